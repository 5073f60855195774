"""The command line: bad input gives one line and exit code 2; --db persists; query runs user SQL."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA, GPU_HEADER, SAMPLES, kernel_row, write

GOOD = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"
API_CALLS = 59  # data rows of its cuda_api_trace sibling, found beside it by name


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.code == 2, (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("nsight-ingest: error: ")
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0]
    assert result.out == ""


def test_missing_file(run_cli, tmp_path):
    assert_one_line_error(run_cli("classify", tmp_path / "nope_cuda_gpu_trace.csv"), "no such file")


def test_empty_file(run_cli, tmp_path):
    path = tmp_path / "e_cuda_gpu_trace.csv"
    path.write_bytes(b"")
    assert_one_line_error(run_cli("classify", path), "file is empty")


def test_header_only(run_cli, tmp_path):
    path = write(tmp_path / "h_cuda_gpu_trace.csv", GPU_HEADER, [])
    assert_one_line_error(run_cli("classify", path), "header but no data rows")


def test_wrong_report_type(run_cli):
    assert_one_line_error(run_cli("classify", SAMPLES / "h200_dit_oneblock_cuda_api_trace.csv"),
                          "is a cuda_api_trace report, expected cuda_gpu_trace")


def test_directory_given(run_cli, tmp_path):
    assert_one_line_error(run_cli("classify", tmp_path), "a directory that is no nsys export")


@pytest.mark.parametrize("cut", [40, 200])
def test_truncated_last_row(run_cli, tmp_path, cut):
    """Cut in the middle of the last row: 40 chars from the end is inside the quoted name, 200 before it."""
    text = GOOD.read_text()
    path = tmp_path / "t_cuda_gpu_trace.csv"
    path.write_text(text[: len(text) - cut])
    result = run_cli("classify", path)
    assert_one_line_error(result, str(path), "line 29")


def test_non_numeric_duration(run_cli, tmp_path):
    path = write(tmp_path / "n_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(1, 2, "a"), kernel_row(3, 4, "b")])
    path.write_text(path.read_text().replace("\n3,4,", "\n3,four,"))
    assert_one_line_error(run_cli("classify", path), "line 3", "four")


def test_usage_error_exit_code(run_cli):
    result = run_cli("classify")
    assert result.code == 2
    assert "Traceback" not in result.err


def test_windows_style_paths_are_printed_verbatim(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gpu = "benchmarks\\gb10-step_cuda_gpu_trace.csv"
    (tmp_path / gpu).write_text(GOOD.read_text())
    (tmp_path / "benchmarks\\gb10-step_cuda_kern_exec_trace.csv").write_text(
        (SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv").read_text())
    out = run_cli("classify", gpu).json()
    assert out["source_gpu_trace"] == gpu
    assert out["source_kernel_exec_trace"] == "benchmarks\\gb10-step_cuda_kern_exec_trace.csv"


def test_db_then_query(run_cli, tmp_path):
    db = tmp_path / "store.duckdb"
    assert run_cli("classify", GOOD, "--db", db).code == 0
    assert run_cli("classify", GOOD, "--db", db).code == 0  # same content: stored once
    result = run_cli("query", "--db", db, "--format", "json",
                     "SELECT report_type, count(*) AS n, sum(rows) AS rows FROM traces GROUP BY 1 ORDER BY 1")
    assert result.code == 0, result.err
    assert json.loads(result.out) == [
        {"report_type": "cuda_api_trace", "n": 1, "rows": API_CALLS},
        {"report_type": "cuda_gpu_trace", "n": 1, "rows": 28},
        {"report_type": "cuda_kern_exec_trace", "n": 1, "rows": 26},
    ]
    csv_out = run_cli("query", "--db", db, "--format", "csv", "SELECT count(*) AS kernels FROM kernels")
    assert csv_out.out == "kernels\n26\n"
    table = run_cli("query", "--db", db, "SELECT op_kind, count(*) AS n FROM gpu_ops GROUP BY 1 ORDER BY 1")
    assert "kernel" in table.out and "memset" in table.out


def test_query_errors_are_one_line(run_cli, tmp_path):
    db = tmp_path / "store.duckdb"
    run_cli("classify", GOOD, "--db", db)
    assert_one_line_error(run_cli("query", "--db", db, "SELECT * FROM no_such_table"), "query failed")
    assert_one_line_error(run_cli("query", "--db", tmp_path / "missing.duckdb", "SELECT 1"), "no such store")


def test_a_stored_result_is_read_back(run_cli, tmp_path):
    import duckdb

    db = tmp_path / "store.duckdb"
    first = run_cli("classify", GOOD, "--db", db)
    again = run_cli("classify", GOOD, "--db", db)
    assert first.json() == again.json()
    other_request = run_cli("classify", GOOD, "--db", db, "--dominance", "1.5")
    assert other_request.json()["components"] == first.json()["components"]
    con = duckdb.connect(str(db))
    assert con.execute("SELECT count(*) FROM summaries").fetchone() == (2,)  # one per distinct request


@pytest.mark.parametrize("command", [
    ("classify", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv", "--per-nvtx", "step.*"),
    ("classify", GOOD, "--ncu", DATA / "ncu" / "h200_dit_raw_metrics.csv"),
    ("launches", SAMPLES / "llama3_rtx4060ti_cuda_gpu_trace.csv"),
    ("launches", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv", "--nvtx", "step 3"),
])
def test_a_temporary_store_answers_like_a_full_store(run_cli, tmp_path, command):
    # A temporary store is made without store.DETAIL_COLUMNS: no analysis may read them.
    lean = run_cli(*command)
    full = run_cli(*command, "--db", tmp_path / "full.duckdb")
    assert lean.code == 0 and full.code == 0, (lean.err, full.err)
    assert rounded(lean.json()) == rounded(full.json())


def rounded(value):
    """`value` with floats to 12 significant digits (sums of floats may run in another order)."""
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return float(f"{value:.12g}") if isinstance(value, float) else value


def test_ctrl_c_during_a_query_is_an_interrupt(run_cli, monkeypatch):
    """DuckDB reports Ctrl-C in the middle of a query as RuntimeError('Query interrupted'): exit 130, one line."""
    from nsight_ingest import pipeline

    def interrupted(*_args, **_kwargs):
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(pipeline, "answer", interrupted)
    result = run_cli("classify", SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv")
    assert (result.code, result.err) == (130, "nsight-ingest: interrupted\n")


def test_cached_answers_import_no_array_library(tmp_path):
    """A question answered from the cache starts no pyarrow, numpy or pandas: importing them is most of a cached
    answer's time."""
    import subprocess
    import sys

    cache = tmp_path / "cache"
    ask = [sys.executable, "-c", "import sys, runpy; sys.argv = sys.argv[1:]; "
           "runpy.run_module('nsight_ingest', run_name='__main__')", "nsight-ingest", "classify", str(GOOD),
           "--cache-dir", str(cache)]
    assert subprocess.run(ask, capture_output=True).returncode == 0  # fills the cache
    probe = ("import atexit, sys; atexit.register(lambda: print(sorted({'numpy', 'pyarrow', 'pandas'} & "
             "set(sys.modules)), file=sys.stderr))")
    again = subprocess.run([*ask[:2], f"{probe}; {ask[2]}", *ask[3:]], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["kernel_count"] > 0
    assert again.stderr.strip().splitlines()[-1] == "[]"
