"""--by-nvtx phase groups and the one-row-per-window tables: a hand-built trace worked out by hand, and the LLM
capture's prefill and decode checked against plain SQL over its export."""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict

import pytest

from tests.conftest import DATA, GPU_HEADER, KERN_EXEC_HEADER, kernel_row, write

NVTX_HEADER = ("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
               "ParentId,RangeStack,NameTree")
PATTERN = r"req \d+ (prefill|decode).*"

# kernel (start, duration, name, stream) and the start of its launch call (5 ns long, thread 1)
#   prefill ranges [0,300) and [500,700): K1, K2 (overlapping, two streams), K5, K6 (launched at 680, runs past 700)
#   decode ranges [300,500) and [700,1000): K3, K4, K7
KERNELS = [((50, 100, "gemm_a", 1), 10), ((140, 120, "gemm_a", 2), 20), ((320, 40, "dec_k", 1), 310),
           ((380, 40, "dec_k", 1), 370), ((520, 80, "gemm_a", 1), 505), ((690, 70, "dec_k", 1), 680),
           ((800, 50, "dec_k", 1), 790)]
RANGES = [(0, 300, "req 0 prefill"), (300, 500, "req 0 decode 0"), (500, 700, "req 1 prefill"),
          (700, 1000, "req 1 decode 0")]


def write_phases(folder, prefix: str, kernels=KERNELS):
    """A capture of these kernels (each with its launch call on thread 1) and the four ranges, as a CSV set."""
    gpu = write(folder / f"{prefix}_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(s, d, n, stream=st) for (s, d, n, st), _ in kernels])
    write(folder / f"{prefix}_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, [
        f'{api},5,,,{s},{d},{s + d - api},9,1,0,cudaLaunchKernel,   1    1    1, 128    1    1,"{n}"'
        for (s, d, n, _), api in kernels])
    write(folder / f"{prefix}_nvtx_pushpop_trace.csv", NVTX_HEADER, [
        f"{start},{end},{end - start},0,{end - start},:{name},9,1,0,0,{i},,:{i},:{name}"
        for i, (start, end, name) in enumerate(RANGES, start=1)])
    return gpu


@pytest.fixture
def phases(tmp_path):
    return write_phases(tmp_path, "p")


def test_groups_by_hand(phases, run_cli):
    """prefill: 2 ranges, 300 + 200 = 500 ns; kernels 100 + 120 + 80 + 70 = 370 ns; their union clipped to the
    ranges [50,260) + [520,600) + [690,700) = 300 ns: 60% busy. decode: 200 + 300 = 500 ns of ranges; 40 + 40 + 50 =
    130 ns, all inside: 26%."""
    out = run_cli("classify", phases, "--by-nvtx", PATTERN)
    assert out.code == 0, out.err
    result = out.json()
    assert result["by_nvtx"] == PATTERN and list(result["groups"]) == ["prefill", "decode"]
    prefill, decode = result["groups"]["prefill"], result["groups"]["decode"]
    assert (prefill["ranges"], prefill["range_start_ns"], prefill["range_time_ns"], prefill["kernel_time_ns"],
            prefill["kernel_count"]) == (2, 0, 500, 370, 4)
    assert prefill["busy_percent"] == pytest.approx(60.0)
    assert (decode["ranges"], decode["range_start_ns"], decode["range_time_ns"], decode["kernel_time_ns"]) == (
        2, 300, 500, 130)
    assert decode["busy_percent"] == pytest.approx(26.0)
    assert [(k["name"], k["launches"], k["total_ns"]) for k in prefill["top_kernels"]] == [
        ("gemm_a", 3, 300), ("dec_k", 1, 70)]
    assert [(k["name"], k["total_ns"]) for k in decode["top_kernels"]] == [("dec_k", 130)]
    assert prefill["families"]["gemm"]["launches"] == 3 and prefill["window"] == "prefill"
    # gaps within the ranges: K2 overlaps K1; K5 follows K2 of the other prefill range (no gap); K6 - K5 = 90.
    # decode: K4 - K3 = 20; K7 follows K4 of another range.
    assert prefill["launch_gaps"] == {"positive_gap_count": 1, "total_ns": 90, "average_ns": 90.0, "maximum_ns": 90}
    assert decode["launch_gaps"]["total_ns"] == 20 and decode["launch_gaps"]["positive_gap_count"] == 1


def test_a_pattern_without_a_group_is_one_group(phases, run_cli):
    result = run_cli("classify", phases, "--by-nvtx", r"req \d+ prefill").json()
    (name,) = result["groups"]
    assert name == r"req \d+ prefill" and result["groups"][name]["ranges"] == 2


def test_launches_groups(phases, run_cli):
    """launches --by-nvtx: each group's gaps, its kernel time and its --top-kernels kernels."""
    result = run_cli("launches", phases, "--by-nvtx", PATTERN, "--top-kernels", "1").json()
    prefill = result["groups"]["prefill"]
    assert (prefill["kernel_count"], prefill["kernel_time_ns"], prefill["range_time_ns"]) == (4, 370, 500)
    assert [k["name"] for k in prefill["top_kernels"]] == ["gemm_a"]
    assert (prefill["gaps"]["positive_gap_count"], prefill["gaps"]["max_ns"]) == (1, 90)
    assert prefill["busy_percent"] == pytest.approx(60.0)


def test_tables_have_one_row_per_group_and_window(phases, run_cli):
    groups = run_cli("classify", phases, "--by-nvtx", PATTERN, "--format", "table").out
    assert re.search(r"prefill\s+│\s+2 │\s+0\.000 │\s+0\.001 │", groups)  # then each group's details
    assert groups.count("classify ") == 2
    windows = run_cli("classify", phases, "--per-nvtx", PATTERN, "--format", "table").out
    assert windows.count(" @ ") == 4 and "classify " not in windows
    details = run_cli("classify", phases, "--per-nvtx", PATTERN, "--format", "table", "--details").out
    assert details.count("classify ") == 4


def test_one_window_option_at_a_time(phases, run_cli):
    out = run_cli("classify", phases, "--by-nvtx", PATTERN, "--per-nvtx", PATTERN)
    assert out.code == 2 and "choose one of" in out.err


LLM = DATA / "h200_llm_serve" / "llm2.sqlite"


def test_llm_prefill_and_decode_against_plain_sql(run_cli):
    """Each kernel belongs to the NVTX range holding the start of its launch call on the call's thread (runtime
    calls and kernels meet on correlationId); per group: ranges, their time, kernel time and count."""
    with sqlite3.connect(f"{LLM.resolve().as_uri()}?mode=ro", uri=True) as export:
        ranges = export.execute(
            'SELECT text, start, "end", globalTid FROM NVTX_EVENTS WHERE text IS NOT NULL').fetchall()
        kernels = export.execute(
            'SELECT r.start, r.globalTid, k."end" - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k '
            "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId").fetchall()
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    pattern = re.compile(r"request \d+ (prefill|decode).*")
    for name, start, end, tid in ranges:
        group = pattern.fullmatch(name)[1]
        expected[group][0] += 1
        expected[group][1] += end - start
        inside = [d for call, thread, d in kernels if start <= call < end and thread == tid]
        expected[group][2] += sum(inside)
        expected[group][3] += len(inside)
    result = run_cli("classify", LLM, "--by-nvtx", pattern.pattern).json()
    got = {g: [r["ranges"], r["range_time_ns"], r["kernel_time_ns"], r["kernel_count"]]
           for g, r in result["groups"].items()}
    assert got == dict(expected)
    prefill = result["groups"]["prefill"]
    assert prefill["kernel_time_ns"] > prefill["range_time_ns"]  # summed kernel time exceeds the range time ...
    assert prefill["busy_percent"] < 100  # ... their union clipped to the ranges cannot


def test_compare_group_by_group(phases, run_cli, tmp_path):
    """After: K5 (req 1 prefill) runs 120 ns, not 80. prefill 370 -> 410 ns (+10.8%), decode 130 -> 130."""
    slower = [((520, 120, "gemm_a", 1), 505) if kernel[0] == 520 else (kernel, api) for kernel, api in KERNELS]
    after = write_phases(tmp_path, "q", slower)
    out = run_cli("compare", phases, after, "--by-nvtx", PATTERN, "--fail-above", "5")
    assert out.code == 1, out.err
    groups = out.json()["groups"]
    assert groups["prefill"]["kernel_time_ms"]["delta"] == pytest.approx(40e-6)
    assert groups["prefill"]["verdict"] == "worse" and groups["decode"]["verdict"] == "unchanged"
    assert out.json()["verdict"] == "worse"
    (gemm,) = groups["prefill"]["kernels"]["changed"]
    assert gemm["total_ns"] == {"a": 300, "b": 340, "delta": 40, "delta_percent": pytest.approx(40 / 3)}
    first = run_cli("compare", phases, after, "--nvtx", "req 0 prefill", "--fail-above", "5")
    assert first.code == 0 and first.json()["verdict"] == "unchanged"  # K5 is in the other prefill range
    assert first.json()["window"] == "nvtx req 0 prefill"


def test_compare_refuses_per_nvtx(phases, run_cli):
    out = run_cli("compare", phases, phases, "--by-nvtx", PATTERN, "--nvtx", "x")
    assert out.code == 2 and "choose one of" in out.err


def test_gaps_between_ranges_without_launch_rows(phases, run_cli):
    """Without a kern_exec trace, kernels go to the range holding their GPU start: still no gap across ranges."""
    phases.with_name("p_cuda_kern_exec_trace.csv").unlink()
    prefill = run_cli("classify", phases, "--by-nvtx", PATTERN).json()["groups"]["prefill"]
    assert prefill["launch_gaps"]["total_ns"] == 90 and prefill["launch_gaps"]["positive_gap_count"] == 1


def test_the_gate_refuses_what_it_cannot_judge(phases, run_cli, tmp_path):
    """No group in common, a metric one side lacks, an unknown metric, gate options with --abba: one line, exit 2."""
    only_decode = write_phases(tmp_path, "d", [k for k in KERNELS if k[1] in (310, 370, 790)])  # decode launches
    out = run_cli("compare", phases, only_decode, "--by-nvtx", r"req \d+ (prefill)", "--fail-above", "5")
    assert out.code == 2 and "no group is in both captures" in out.err
    bare = write(tmp_path / "bare_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 10, "k")])
    out = run_cli("compare", phases, bare, "--fail-above", "5", "--gate-metric", "cpu_starved_kernel_percent")
    assert out.code == 2 and "after capture has no value" in out.err
    assert run_cli("compare", phases, phases, "--gate-metric", "bogus").code == 2
    timings = tmp_path / "t.csv"
    timings.write_text("trial,variant,update,seconds\n1,before,1,2.0\n2,after,1,1.0\n")
    out = run_cli("compare", "--abba", str(timings), "--fail-above", "1")
    assert out.code == 2 and "not --abba" in out.err


def test_the_gate_from_zero(tmp_path, run_cli):
    """No gap before, a 100 ns gap after: launch_gap_total_ms rose from zero, past any limit; reported in ms."""
    before = write(tmp_path / "z_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 10, "k"), kernel_row(10, 10, "k")])
    after = write(tmp_path / "y_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 10, "k"), kernel_row(110, 10, "k")])
    out = run_cli("compare", before, after, "--fail-above", "50", "--gate-metric", "launch_gap_total_ms")
    assert out.code == 1 and out.json()["verdict"] == "worse"
    assert out.json()["gate"]["before"] == 0 and out.json()["gate"]["after"] == pytest.approx(100e-6)
