# Two commands set up everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench screenshots sql-reference clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/nsight-ingest classify sample_traces/h200_llm_serve.sqlite --format table
	$(BIN)/nsight-ingest classify sample_traces/h200_dit_oneblock_cuda_gpu_trace.csv --format table
	mkdir -p build
	$(BIN)/nsight-ingest report sample_traces/h200_llm_serve.sqlite -o build/h200_llm_serve.html --format table

test: $(STAMP)
	$(BIN)/ruff check nsight_ingest tests tools
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check nsight_ingest tests tools

# make bench ARGS=--scaling (or --parts, --ranks 8, --json): options of tools/bench.py
bench: $(STAMP)
	$(BIN)/python tools/bench.py $(ARGS)

# the pages' screenshots in docs/ (the README shows them), taken by the browser tests in headless Chromium
screenshots: $(STAMP)
	NSIGHT_INGEST_SCREENSHOTS=docs $(BIN)/python -m pytest -q tests/test_pages_browser.py

# docs/sql-reference.md from the SQL modules' headers (a test fails when it is not current)
sql-reference: $(STAMP)
	$(BIN)/python tools/sql_reference.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
