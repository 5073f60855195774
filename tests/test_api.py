"""The Python API (nsight_ingest.api): each answer is the command's JSON, its tables are DataFrames, bad input and
options are refused, and the documented example runs."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nsight_ingest
from nsight_ingest.errors import InputError
from tests.conftest import DATA, SAMPLES

GOOD = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"
GRAPH = SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv"
LLM = SAMPLES / "h200_llm_serve.sqlite"
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("method", "command", "options"), [
    ("classify", ["classify"], {"top": 3}),
    ("launches", ["launches"], {"gap_calls": 2}),
    ("queue_delay", ["queue-delay"], {}),
    ("findings", ["findings"], {}),
    ("audit", ["rules", "audit"], {"top": 4}),
    ("critical_path", ["critical-path"], {"top": 3}),
    ("whatif", ["whatif"], {"launch_latency": "2us"}),
])
def test_each_answer_is_the_commands_json(run_cli, method, command, options):
    flags = [text for name, value in options.items() for text in (f"--{name.replace('_', '-')}", str(value))]
    cli = run_cli(*command, GOOD, *flags)
    answer = getattr(nsight_ingest.open(GOOD), method)(**options)
    assert cli.code == 0, cli.err
    assert answer.to_dict() == cli.json()
    assert list(answer.warnings) == [line.removeprefix("nsight-ingest: ") for line in cli.err.splitlines()]


def test_windows_are_arguments(run_cli):
    cli = run_cli("classify", GRAPH, "--per-nvtx", "step.*", "--no-cache")
    answer = nsight_ingest.open(GRAPH, cache=False).classify(per_nvtx="step.*")
    assert answer.to_dict() == cli.json() and len(answer.to_dict()["windows"]) > 1


def test_frames_are_the_answers_tables():
    answer = nsight_ingest.open(GOOD, cache=False).classify(top=5)
    data, frames = answer.to_dict(), answer.frames()
    components = frames["components"]
    assert list(components.index) == list(data["components"])
    # the components split the kernel time: their milliseconds add up to it
    assert components["milliseconds"].sum() == pytest.approx(data["kernel_time_ns"] / 1e6)
    top = frames["top_kernels"]
    assert len(top) == 5 and top.to_dict("records") == data["top_kernels"]


def test_per_nvtx_frames_hold_every_window():
    answer = nsight_ingest.open(GRAPH, cache=False).classify(per_nvtx="step.*")
    windows = answer.to_dict()["windows"]
    components = answer.frames()["windows.components"]
    assert components.index.is_unique and components.index.names == ["windows", None]
    assert list(dict.fromkeys(components.index.get_level_values(0))) == [w["window"] for w in windows]
    for window in windows:  # each window's components add up to its kernel time
        mine = components.loc[window["window"]]
        assert list(mine.index) == list(window["components"])
        assert mine["milliseconds"].sum() == pytest.approx(window["kernel_time_ns"] / 1e6)


def test_errors_name_keywords_not_flags():
    capture = nsight_ingest.open(GOOD, cache=False)
    with pytest.raises(InputError, match=r"^time_range='abc': expected START_NS:END_NS") as caught:
        capture.classify(time_range="abc")
    assert "--" not in str(caught.value)
    with pytest.raises(InputError, match=r"^choose one of nvtx, time_range, per_nvtx, by_nvtx"):
        capture.classify(nvtx="a", per_nvtx="b")
    llm = nsight_ingest.open(LLM, cache=False).classify()  # the bundled DiT rules leave its kernels in other
    assert any("rules=FOLDER takes components of your own" in warning for warning in llm.warnings)


def test_the_connection_holds_the_capture(tmp_path):
    with GOOD.open() as fh:
        kernels = sum(1 for row in csv.DictReader(fh) if not row["Name"].startswith("[CUDA mem"))
    con = nsight_ingest.open(GOOD).connect()
    assert con.execute("SELECT count(*) FROM kernels").fetchone() == (kernels,)
    con.close()
    in_file = nsight_ingest.open(GOOD, db=tmp_path / "s.duckdb")
    in_file.classify()
    con = in_file.connect()  # the same store: the capture is there once
    assert con.execute("SELECT count(*) FROM captures").fetchone() == (1,)
    con.close()


def test_report_and_timeline_write_their_files(run_cli, tmp_path):
    capture = nsight_ingest.open(GOOD)
    page = capture.report(tmp_path / "page.html")
    assert page.to_dict()["output"] == str(tmp_path / "page.html") and (tmp_path / "page.html").stat().st_size > 0
    cli = run_cli("timeline", GOOD, "-o", tmp_path / "cli.pftrace")
    drawn = capture.timeline(tmp_path / "api.pftrace")
    assert {**drawn.to_dict(), "output": None} == {**cli.json(), "output": None}
    assert (tmp_path / "api.pftrace").read_bytes() == (tmp_path / "cli.pftrace").read_bytes()


def test_an_output_over_an_input_is_refused(tmp_path):
    with pytest.raises(InputError, match="that is an input"):
        nsight_ingest.open(GOOD).report(GOOD)


def test_options_are_checked():
    capture = nsight_ingest.open(GOOD)
    with pytest.raises(TypeError, match=r"classify takes no keyword 'topp' \(did you mean 'top'\?\); it takes top"):
        capture.classify(topp=3)
    with pytest.raises(InputError, match="top=0: at least 1"):
        capture.classify(top=0)
    with pytest.raises(InputError, match="choose one of"):
        capture.classify(nvtx="a", time_range="0:10")
    with pytest.raises(TypeError, match=r"no keyword 'range' \(did you mean 'time_range'\?\)"):
        capture.classify(range="0:10")
    for wrong in (None, True, "5", 5.5):  # top is a whole number
        with pytest.raises(TypeError, match=r"top=.*: give int"):
            capture.classify(top=wrong)
    with pytest.raises(TypeError, match=r"time_range=.*give text"):
        capture.classify(time_range=(0, 10))
    with pytest.raises(InputError, match="fail_on='critical': one of high, medium, low"):
        capture.findings(fail_on="critical")
    with pytest.raises(TypeError, match="a list of paths, not one path"):
        nsight_ingest.ranks(str(GOOD))
    with pytest.raises(TypeError, match="a list of paths, not one path"):
        nsight_ingest.open(GOOD, ncu=str(GOOD))
    with pytest.raises(InputError, match="ncu: no files given"):
        nsight_ingest.ncu([])
    assert capture.classify(latency_below=5).to_dict()  # a whole number where a float goes


def test_a_missing_file_is_the_commands_error(run_cli, tmp_path):
    missing = tmp_path / "nope_cuda_gpu_trace.csv"
    with pytest.raises(InputError) as raised:
        nsight_ingest.open(missing).classify()
    assert run_cli("classify", missing).err.strip() == f"nsight-ingest: error: {raised.value}"


def test_ranks_compare_and_ncu_are_the_commands_json(run_cli):
    two_gpus = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"
    assert nsight_ingest.ranks([two_gpus]).to_dict() == run_cli("ranks", two_gpus).json()
    assert nsight_ingest.compare(nsight_ingest.open(GOOD), GRAPH).to_dict() == run_cli("compare", GOOD, GRAPH).json()
    raw = DATA / "ncu" / "h200_dit_raw_metrics.csv"
    assert nsight_ingest.ncu([raw]).to_dict() == run_cli("ncu", raw).json()


def test_the_example_answers_three_questions(run_cli, cache_folder):
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "examples" / "three_questions.py")],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NSIGHT_INGEST_CACHE_DIR": str(cache_folder)})
    assert done.returncode == 0, done.stderr
    summary, found = run_cli("classify", LLM).json(), run_cli("findings", LLM).json()["findings"]
    printed = done.stdout.splitlines()
    assert printed[0] == f"kernel time {summary['kernel_time_ns'] / 1e6:.3f} ms, by family:"
    largest = max(summary["families"].items(), key=lambda item: item[1]["milliseconds"])
    assert printed[1].split() == [largest[0], f"{largest[1]['milliseconds']:.3f}", "ms"]
    assert f"idle {summary['idle']['kernel_idle_ns'] / 1e6:.3f} ms:" in printed
    assert printed[-len(found) - 1] == f"{len(found)} finding(s):"
    assert printed[-len(found)].split()[1] == f"{found[0]['id']}:"


def test_a_failed_question_leaves_the_cached_store_usable():
    capture = nsight_ingest.open(GOOD)
    first = capture.classify().to_dict()
    with pytest.raises(InputError, match="no NVTX range"):
        capture.classify(nvtx="no such range")  # fails with the cached store open
    assert capture.classify().to_dict() == first  # its lock was released: no wait, the same answer
