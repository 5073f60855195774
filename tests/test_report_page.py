"""The one-capture report (`report`, `classify --html`): the page's tables and cards read back with an HTML parser
and checked against hand-worked answers and plain sqlite3; its figures (busy over time, the gap histogram) against
numpy; windows, ncu, several GPUs and bad outputs."""

from __future__ import annotations

import math
import shutil
import sqlite3
from collections import defaultdict

import numpy as np
import pytest

from nsight_ingest import pipeline, registry, runs, store
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.rules import load_family_set, load_rule_set
from tests import html_page
from tests.conftest import DATA, SAMPLES
from tests.test_idle_communication import KERNELS as HAND_KERNELS
from tests.test_idle_communication import capture as hand_built_capture

LLM = SAMPLES / "h200_llm_serve.sqlite"
TWO_GPUS = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"


def report_answer(files: CaptureFiles, **options) -> dict:
    """The report's answer for a capture, in-process (the command prints where the page is, not its figures)."""
    run = runs.Run(store.connect(), load_rule_set(), load_family_set())
    return pipeline.answer(run, registry.REPORT, pipeline.Request((files,), options=options))


def test_hand_built_capture(tmp_path, run_cli):
    """tests/test_idle_communication's capture: kernels K1 [0,100) K2 [250,400) K3 [300,500) (all-reduce)
    K4 [450,520) (all-gather) K5 [510,600); a memcpy [100,150), a memset [600,650).

    span 650; kernel time 100 + 150 + 200 + 70 + 90 = 610; union [0,100) + [250,600) = 450: 69.23%; idle 200.
    Gaps between kernels: K2 - K1 = 150 (bin 8 of the quarter decades: [100, 177.8) ns); K3, K4, K5 overlap the
    kernels before them (-100, -50, -10): one positive gap. Its longest cause: the memcpy, 50 of its 150 ns.
    Communication exposed: 110 of 270 ns. 13 bins of 50 ns: busy in [0,100) and [250,600), idle otherwise.
    """
    gpu = hand_built_capture(tmp_path)
    page_path = tmp_path / "page.html"
    out = run_cli("report", str(gpu), "-o", str(page_path), "--bins", "13")
    assert out.code == 0, out.err
    written = out.json()
    assert written["output"] == str(page_path) and written["bytes"] == page_path.stat().st_size
    assert written["sections"] == ["summary", "time", "kernels", "utilization", "idle", "path", "provenance"]
    page = html_page.read(page_path)
    assert page.sections == written["sections"] and page.charts == written["charts"] == 6
    # the critical path's chart covers the 650 ns span; its table lists what critical-path lists
    assert "the critical path: 650 ns (the GPU span)" in page.text
    path = run_cli("critical-path", str(gpu)).json()
    assert [(n["category"], n["ms"], n["segments"]) for n in page.tables["path-nodes"].records()] == [
        (n["category"], f"{n['time_ns'] / 1e6:.3f}", str(n["segments"])) for n in path["nodes"]]
    assert {label: page.cards[label] for label in ("GPU span", "kernel time", "union busy", "GPU idle",
                                                    "launch gaps", "exposed communication")} == {
        "GPU span": "650 ns", "kernel time": "610 ns", "union busy": "69.23%", "GPU idle": "200 ns",
        "launch gaps": "1", "exposed communication": "110 ns"}
    kernels = page.tables["top-kernels"].records()
    assert [(k["family"], k["total ms"], k["launches"]) for k in kernels] == [
        ("gemm", "0.000", "3"), ("communication", "0.000", "1"), ("communication", "0.000", "1")]
    assert [k["% of kernel time"] for k in kernels] == ["55.74%", "32.79%", "11.48%"]  # 340, 200, 70 of 610
    (gap,) = page.tables["largest-gaps"].records()
    assert (gap["gap"], gap["stream"], gap["longest cause"]) == ("150 ns", "7", "memory transfer")
    # idle 200 = the gap K1-K2 (150) + after K5 until the memset ends (600 to 650)
    assert ("GPU idle 200 ns: 150 ns of it in 1 gap between kernels (the histogram and the table), 50 ns before "
            "each GPU's first kernel and after its last.") in page.text
    inputs = page.tables["inputs"].records()
    assert [(i["role"], i["rows"]) for i in inputs] == [("gpu_trace", "7"), ("kernel_exec_trace", "5"),
                                                          ("api_trace", "8")]

    answer = report_answer(CaptureFiles(str(gpu)), bins=13)
    ((device, bins),) = answer["utilization"].items()
    assert [b["bin_ns"] for b in bins] == [50] * 13
    assert [b["busy_percent"] for b in bins] == [100, 100, 0, 0, 0, 100, 100, 100, 100, 100, 100, 100, 0]
    assert answer["gap_histogram"]["all"] == answer["gap_histogram"][device] == [
        {"low_ns": 100.0, "high_ns": pytest.approx(177.83, abs=0.01), "gaps": 1, "total_ns": 150}]


def _sqlite(query: str, path=LLM) -> list[tuple]:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as con:
        return con.execute(query).fetchall()


def test_llm_capture_against_sqlite(tmp_path, run_cli):
    """The page of the project's h200_llm_serve capture: its cards and top-kernels table against plain sqlite3
    over the export; busy over time and the gap histogram against numpy."""
    page_path = tmp_path / "llm.html"
    out = run_cli("report", str(LLM), "-o", str(page_path))
    assert out.code == 0, out.err
    page = html_page.read(page_path)
    ops = np.array(_sqlite("SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
                           "SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMSET"))  # it holds no memcpy
    kernels = _sqlite("SELECT k.start, k.\"end\", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                      "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start, k.\"end\"")
    span = int(ops[:, 1].max() - ops[:, 0].min())
    kernel_time = sum(end - start for start, end, _ in kernels)
    assert page.cards["GPU span"] == f"{span / 1e6:,.3f} ms" == "33.947 ms"
    assert page.cards["kernel time"] == f"{kernel_time / 1e6:,.3f} ms"
    assert page.cards["busy"] == f"{100 * kernel_time / span:.2f}%"

    by_name: dict[str, list[int]] = defaultdict(list)
    for start, end, name in kernels:
        by_name[name].append(end - start)
    ranked = sorted(by_name, key=lambda n: (-sum(by_name[n]), n))[:registry.REPORT.defaults()["top"]]
    rows = page.tables["top-kernels"].records()
    assert [(r["total ms"], r["launches"], r["max µs"]) for r in rows] == [
        (f"{sum(by_name[n]) / 1e6:,.3f}", f"{len(by_name[n]):,}", f"{max(by_name[n]) / 1e3:,.1f}") for n in ranked]
    assert len({r["kernel"] for r in rows}) == len(rows)  # different kernels never share a label

    answer = report_answer(CaptureFiles(str(LLM)), bins=100)
    ((_, bins),) = answer["utilization"].items()
    start0, width = int(ops[:, 0].min()), math.ceil(span / 100)
    union = np.zeros(100)
    reach = None
    for start, end, _ in kernels:  # the union of kernel intervals, piece by piece, cut at the bin edges
        start = max(start, reach or start)
        reach = max(reach or end, end)
        for b in range((start - start0) // width, (end - 1 - start0) // width + 1) if end > start else ():
            union[b] += min(end, start0 + (b + 1) * width) - max(start, start0 + b * width)
    assert [b["busy_percent"] for b in bins] == pytest.approx(
        [100 * u / b["bin_ns"] for u, b in zip(union, bins, strict=True)], abs=1e-9)

    ends = np.maximum.accumulate(np.array([end for _, end, _ in kernels]))
    gaps = np.array([start for start, _, _ in kernels[1:]]) - ends[:-1]
    gaps = gaps[gaps > 0]
    expected: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for gap in gaps:
        expected[math.floor(math.log10(gap) * 4)][0] += 1
        expected[math.floor(math.log10(gap) * 4)][1] += int(gap)
    got = {round(math.log10(b["low_ns"]) * 4): [b["gaps"], b["total_ns"]] for b in answer["gap_histogram"]["all"]}
    every_bin = range(min(expected), max(expected) + 1)  # the empty bins between too: the shape is the data's
    assert got == {k: expected.get(k, [0, 0]) for k in every_bin} and sum(v[0] for v in got.values()) == 1192

    # the largest gap, its start in ms since the span's start (the utilization chart's axis)
    largest = int(np.argmax(gaps_all := np.array([s for s, _, _ in kernels[1:]]) - ends[:-1]))
    first = page.tables["largest-gaps"].records()[0]
    assert first["gap"] == f"{gaps_all[largest] / 1e3:,.1f} µs"
    assert first["starts at (ms)"] == f"{(ends[largest] - start0) / 1e6:,.3f}"


def test_nvtx_groups_and_ncu(tmp_path, run_cli):
    """--by-nvtx adds the group table (each row as classify --by-nvtx answers the group), --ncu the verdicts per
    component (as classify --ncu answers them); the rest of the page covers the whole capture."""
    folder = DATA / "h200_llm_serve"
    gpu, ncu = folder / "llm2_cuda_gpu_trace.csv", folder / "llm2_ncu_raw.csv"
    pattern = r"request \d+ (decode|prefill).*"
    page_path = tmp_path / "groups.html"
    out = run_cli("report", str(gpu), "--by-nvtx", pattern, "--ncu", str(ncu), "-o", str(page_path))
    assert out.code == 0, out.err
    assert out.json()["nvtx_groups"] == ["prefill", "decode"]
    page = html_page.read(page_path)
    assert page.sections == ["summary", "time", "kernels", "utilization", "idle", "path", "groups", "ncu",
                             "provenance"]
    groups = run_cli("classify", str(gpu), "--by-nvtx", pattern).json()["groups"]
    assert [(g["group"], g["ranges"], g["kernels"], g["kernel time ms"], g["CPU-launch idle ms"],
             g["most time in (family)"]) for g in page.tables["nvtx-groups"].records()] == [
        (label, str(g["ranges"]), f"{g['kernel_count']:,}", f"{g['kernel_time_ns'] / 1e6:,.3f}",
         f"{g['idle']['cpu_launch_ns'] / 1e6:,.3f}", max(g["families"], key=lambda f: g["families"][f]["milliseconds"]))
        for label, g in groups.items()]
    assert sum(g["ranges"] for g in groups.values()) == 18  # every NVTX range of the capture is a request's phase
    whole = run_cli("classify", str(gpu), "--ncu", str(ncu)).json()
    assert page.cards["kernel time"] == f"{whole['kernel_time_ns'] / 1e6:,.3f} ms"
    verdicts = {r["component"]: r for r in page.tables["ncu-verdicts"].records()}
    assert verdicts.keys() == {c for c, e in whole["components"].items() if e.get("ncu") and e["launches"]}
    for component, row in verdicts.items():
        split = whole["components"][component]["ncu"]
        assert (row["profiled"], row["latency bound"], row["balanced"]) == (
            f"{split['profiled_percent']:.2f}%", f"{split['latency_bound_percent']:.2f}%",
            f"{split['balanced_percent']:.2f}%")


def test_two_gpus(tmp_path, run_cli):
    """A capture of two GPUs: one busy series and one per-GPU row each, spans as sqlite3 gives them."""
    page_path = tmp_path / "two.html"
    assert run_cli("report", str(TWO_GPUS), "-o", str(page_path)).code == 0
    page = html_page.read(page_path)
    rows = page.tables["devices"].records()
    spans = _sqlite("SELECT deviceId, max(\"end\") - min(start) FROM (SELECT deviceId, start, \"end\" FROM "
                    "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT deviceId, start, \"end\" FROM "
                    "CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT deviceId, start, \"end\" FROM "
                    "CUPTI_ACTIVITY_KIND_MEMSET) GROUP BY deviceId ORDER BY deviceId", TWO_GPUS)
    assert [r["span ms"] for r in rows] == [f"{span / 1e6:,.3f}" for _, span in spans]
    assert len(report_answer(CaptureFiles(str(TWO_GPUS)))["utilization"]) == 2 == len(rows)
    for row, (_, span) in zip(rows, spans, strict=True):  # over each GPU's own span, union busy and idle add up
        idle = float(row["idle in its span ms"].replace(",", "")) * 1e6
        assert float(row["union busy"].rstrip("%")) + 100 * idle / span == pytest.approx(100, abs=0.01)
    late = _sqlite("WITH ops AS (SELECT deviceId, start FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT deviceId, "
                   "start FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT deviceId, start FROM "
                   "CUPTI_ACTIVITY_KIND_MEMSET) SELECT deviceId, min(start) - (SELECT min(start) FROM ops) FROM ops "
                   "GROUP BY deviceId ORDER BY deviceId", TWO_GPUS)
    assert [r["starts late ms"] for r in rows] == [f"{ns / 1e6:,.3f}" for _, ns in late]


def test_classify_html_writes_the_page_and_answers_as_before(tmp_path, run_cli):
    page_path = tmp_path / "classify.html"
    plain = run_cli("classify", str(LLM))
    with_page = run_cli("classify", str(LLM), "--html", str(page_path))
    assert with_page.code == 0 and with_page.out == plain.out
    page = html_page.read(page_path)
    assert len(page.tables["top-kernels"].rows) == 10  # classify's --top
    assert page.cards["kernel time"] == f"{plain.json()['kernel_time_ns'] / 1e6:,.3f} ms"


@pytest.mark.parametrize("output, message", [
    ("{folder}", "name the report file to write"),
    ("-", "name the report file to write"),
    ("{input}", "that is an input or the store of the report"),
    ("{folder}/missing/page.html", "/missing; create it first"),
])
def test_bad_outputs_are_refused_and_nothing_is_written(tmp_path, run_cli, output, message):
    gpu = hand_built_capture(tmp_path / "capture")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    out = run_cli("report", str(gpu), "-o", output.format(folder=tmp_path, input=gpu))
    assert out.code == 2 and message in out.err and len(out.err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_per_nvtx_is_refused_with_what_to_give_instead(tmp_path, run_cli):
    """Refused before any store is made: the --db named is not created."""
    for command in (("report", str(LLM), "-o"), ("classify", str(LLM), "--html")):
        out = run_cli(*command, str(tmp_path / "x.html"), "--per-nvtx", "request.*", "--db", str(tmp_path / "s.db"))
        assert out.code == 2 and "a report is one page: give --by-nvtx" in out.err
    assert list(tmp_path.iterdir()) == []


def test_a_capture_s_files_are_never_written_over(tmp_path, run_cli):
    """A file in an export folder, and a sibling report of the capture the run does not read, are refused."""
    folder = tmp_path / "llm2_pq"
    shutil.copytree(DATA / "h200_llm_serve" / "llm2_pq", folder)
    kernels = folder / "CUPTI_ACTIVITY_KIND_KERNEL.parquet"
    before = kernels.read_bytes()
    out = run_cli("report", str(folder), "-o", str(kernels))
    assert out.code == 2 and "lies in an input folder" in out.err and kernels.read_bytes() == before
    csvs = tmp_path / "csv"
    gpu = hand_built_capture(csvs)
    nvtx = csvs / "hand_nvtx_pushpop_trace.csv"
    nvtx.write_text("a sibling the run does not read\n")
    for command in (("report", str(gpu), "-o"), ("classify", str(gpu), "--html")):
        out = run_cli(*command, str(nvtx))
        assert out.code == 2 and "that is a capture's or a store's file" in out.err
    assert nvtx.read_text() == "a sibling the run does not read\n"


def test_a_store_named_as_the_page_is_refused_before_it_is_made(tmp_path, run_cli):
    page_path = tmp_path / "page.html"
    for command in (("report", str(LLM), "-o"), ("classify", str(LLM), "--html")):
        out = run_cli(*command, str(page_path), "--db", str(page_path))
        assert out.code == 2 and "that is an input or the store of the" in out.err
    assert list(tmp_path.iterdir()) == []


def test_classify_html_says_where_the_page_went(tmp_path, run_cli):
    out = run_cli("classify", str(LLM), "--html", str(tmp_path / "c.html"))
    assert out.code == 0 and f"wrote the report page {tmp_path / 'c.html'} (" in out.err
    out = run_cli("classify", str(LLM), "--html", str(tmp_path / "missing" / "c.html"))
    assert out.code == 2 and out.err.startswith("nsight-ingest: error: --html ") and out.out == ""


def test_window_pages_cover_the_window(tmp_path, run_cli):
    """--nvtx and --range: the page's cards and kernels are classify's of the same window, its title names it."""
    for window in (("--nvtx", "request 0 prefill"), ("--range", "20000000:30000000")):
        page_path = tmp_path / "window.html"
        out = run_cli("report", str(LLM), "-o", str(page_path), *window)
        assert out.code == 0, out.err
        classify = run_cli("classify", str(LLM), *window, "--top", "25").json()
        assert out.json()["window"] == classify["window"]
        page = html_page.read(page_path)
        assert f"[{classify['window']}]" in page.text
        assert page.cards["kernel time"] == f"{classify['kernel_time_ns'] / 1e6:,.3f} ms"
        assert page.cards["GPU span"] == f"{classify['gpu_span_ns'] / 1e6:,.3f} ms"
        assert [r["launches"] for r in page.tables["top-kernels"].records()] == [
            f"{k['launches']:,}" for k in classify["top_kernels"]]
        assert classify["kernel_count"] < 1256  # a part of the capture's kernels
        if classify["idle"]["kernel_idle_ns"] > classify["launch_gaps"]["total_ns"]:  # idle the gaps do not hold
            assert "in stretches that end at the window's kernels but begin outside those gaps" in page.text


def test_a_single_kernel_capture(tmp_path, run_cli):
    """One kernel [0,100) with the memcpy [100,150) and memset [600,650): no gap between kernels to histogram or
    list (the page says so and draws the rest); one bin of the 650 ns span, 100 ns of it busy."""
    gpu = hand_built_capture(tmp_path, kernels=HAND_KERNELS[:1], api=False)
    page_path = tmp_path / "one.html"
    out = run_cli("report", str(gpu), "-o", str(page_path), "--bins", "1")
    assert out.code == 0, out.err
    page = html_page.read(page_path)
    assert page.cards["launch gaps"] == "0" and page.cards["union busy"] == "15.38%"
    assert "No idle gap between kernels" in page.text and "largest-gaps" not in page.tables
    assert "Top 1 kernel by total time" in page.text
    # no API trace: synchronization cannot be told, and the page says what it needs
    assert ("their time counted under the later causes: graph replay not traced (no CUDA API trace (cuda_api_trace) "
            "to show CUDA graph replays); synchronization (no CUDA API trace (cuda_api_trace))") in page.text
    assert page.charts == out.json()["charts"] == 5  # component, family, busy over time, idle causes, the path
    answer = report_answer(CaptureFiles(str(gpu)), bins=1)
    assert answer["gap_histogram"] == {} and [b["busy_percent"] for b in answer["utilization"]["NVIDIA H200 (0)"]] == [
        pytest.approx(100 * 100 / 650)]


def test_the_table_says_what_was_written(tmp_path, run_cli):
    page_path = tmp_path / "w.html"
    out = run_cli("report", str(LLM), "-o", str(page_path), "--nvtx", "request 0 prefill", "--format", "table")
    assert out.code == 0, out.err
    lines = out.out.splitlines()
    assert lines[0] == f"report {page_path}: {page_path.stat().st_size:,} bytes, 6 charts"
    assert lines[1] == "sections: summary, time, kernels, utilization, idle, path, provenance"
    assert lines[2] == "window: nvtx request 0 prefill"
    assert any(line.startswith("gpu_trace: ") and "(1,280 rows, sha256 9a248dfbc541)" in line for line in lines)
