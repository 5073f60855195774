"""Multi-rank: clock alignment, idle time, NCCL time and collective skew, on synthetic ranks with known truth
and on the two real two-GPU nsys SQLite exports (checked with plain SQL on the files)."""

from __future__ import annotations

import sqlite3

import pytest

from nsight_ingest.analysis import ranks
from tests.conftest import DATA, GPU_HEADER, kernel_row, write
from tests.intervals import length, union
from tools.gen_ranks import NCCL, generate

SQLITE = DATA / "multi_rank"


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("ranks"), ranks=2, offsets=[7_000_000, -12_345_678])


def test_offsets_idle_and_all_gather_recovered(two_ranks, run_cli):
    out = run_cli("ranks", *two_ranks.files).json()
    offsets = two_ranks.clock_offsets_ns
    # aligned = local + offset_estimate, with rank 0 as the reference: offset_r = offset_0 - offset_r exactly,
    # since matching collectives end together
    assert [r["clock_offset_ns"] for r in out["ranks"]] == [0, offsets[0] - offsets[1]]
    assert out["ranks"][1]["clock_offset_residual_ns"] == 0 and out["ranks"][1]["matched_collectives"] == 12
    everything = [(s, e) for rank in two_ranks.intervals for s, e, _ in rank]
    span = max(e for _, e in everything) - min(s for s, _ in everything)
    assert out["aligned_profile_span_seconds"] == pytest.approx(span / 1e9)
    idle = span - length(union(everything))
    assert out["both_gpus_idle_ms"] == pytest.approx(idle / 1e6)
    assert idle >= 3_000_000  # the injected idle window is in there
    assert out["both_gpus_idle_percent_of_aligned_span"] == pytest.approx(100 * idle / span)
    for rank, intervals in enumerate(two_ranks.intervals):
        all_gather = sum(e - s for s, e, kind in intervals if kind == "all_gather")
        assert out[f"rank{rank}_all_gather_ms"] == pytest.approx(all_gather / 1e6)
        non_nccl = sum(e - s for s, e, kind in intervals if kind == "compute")
        assert out["non_nccl_kernel_seconds_per_gpu"][rank] == pytest.approx(non_nccl / 1e9)
        busy = length(union([(s, e) for s, e, _ in intervals]))
        assert out[f"rank{rank}_kernel_union_percent_of_rank_step"] == pytest.approx(100 * busy / span)


def test_ranks_without_a_matching_collective_say_they_are_not_aligned(tmp_path, run_cli):
    """No collective in either rank: the clocks are taken as they are, and the answer says so, with one warning."""
    write(tmp_path / "job_rank0_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 100, "gemm"),
                                                                 kernel_row(200, 100, "gemm")])
    write(tmp_path / "job_rank1_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(50, 100, "gemm")])
    result = run_cli("ranks", tmp_path / "job_rank0_cuda_gpu_trace.csv", tmp_path / "job_rank1_cuda_gpu_trace.csv")
    assert result.code == 0, result.err
    out = result.json()
    assert out["aligned"] is False and out["unaligned_ranks"] == [1]
    assert [r["clock"] for r in out["ranks"]] == ["reference", "no matching collectives: not aligned"]
    # span [0, 300) on the clocks as given; some GPU busy in [0, 150) and [200, 300): 50 ns with no GPU busy
    assert out["aligned_span_ns"] == [0, 300] and out["both_gpus_idle_ms"] == pytest.approx(50 / 1e6)
    (warning,) = [line for line in result.err.splitlines() if "could not be aligned" in line]
    assert warning == f"nsight-ingest: {out['caveat']}" and "rank(s) 1 could not be aligned" in warning
    assert "NOT ALIGNED" in run_cli("ranks", tmp_path / "job_rank0_cuda_gpu_trace.csv",
                                    tmp_path / "job_rank1_cuda_gpu_trace.csv", "--format", "table").out
    again = run_cli("ranks", tmp_path / "job_rank0_cuda_gpu_trace.csv", tmp_path / "job_rank1_cuda_gpu_trace.csv")
    assert out["caveat"] in again.err  # the cached answer warns the same


def test_aligned_ranks_carry_no_caveat(two_ranks, run_cli):
    result = run_cli("ranks", *two_ranks.files)
    assert result.json()["aligned"] is True and result.json()["caveat"] is None
    assert "could not be aligned" not in result.err


def test_collective_skew_and_who_waits(two_ranks, run_cli):
    out = run_cli("ranks", *two_ranks.files).json()
    for collective in NCCL:
        assert out["collectives"][collective]["skew_total_ms"] == pytest.approx(two_ranks.skew_ns[collective] / 1e6)
        assert out["collectives"][collective]["instances"] == 4
    gather = out["collectives"]["all_gather"]
    # rank 1 arrived 2 ms late at step 2's all-gather: rank 0 waited for it
    assert gather["late_rank"] == 1 and gather["waiting_rank"] == 0
    assert gather["skew_max_ms"] >= 2.0


def test_explicit_offsets_and_rank_pattern(two_ranks, tmp_path, run_cli):
    offsets = two_ranks.clock_offsets_ns
    given = run_cli("ranks", *two_ranks.files, "--offset", f"1={offsets[0] - offsets[1]}").json()
    assert given["ranks"][1]["clock"] == "given"
    assert given["both_gpus_idle_ms"] == pytest.approx(run_cli("ranks", *two_ranks.files).json()["both_gpus_idle_ms"])
    renamed = []
    for rank, path in enumerate(two_ranks.files):
        target = tmp_path / f"host-{rank}-gpu_cuda_gpu_trace.csv"
        target.write_text(path.read_text())
        renamed.append(target)
    assert run_cli("ranks", *renamed).code == 2  # no rank in the names
    out = run_cli("ranks", *renamed, "--rank-pattern", r"host-(\d+)").json()
    assert [r["rank"] for r in out["ranks"]] == [0, 1]


def test_four_ranks_report_all_gpus_idle(tmp_path, run_cli):
    truth = generate(tmp_path, ranks=4, steps=2, idle_step=0, late_step=1, seed=5)
    out = run_cli("ranks", *truth.files).json()
    everything = [(s, e) for rank in truth.intervals for s, e, _ in rank]
    idle = max(e for _, e in everything) - min(s for s, _ in everything) - length(union(everything))
    assert out["all_gpus_idle_ms"] == pytest.approx(idle / 1e6)
    assert [r["clock_offset_ns"] for r in out["ranks"]] == [truth.clock_offsets_ns[0] - o for o in
                                                           truth.clock_offsets_ns]


def test_range_window_on_the_aligned_clock(two_ranks, run_cli):
    full = run_cli("ranks", *two_ranks.files).json()
    start, end = full["aligned_span_ns"]
    middle = f"{start + (end - start) // 4}:{start + (end - start) // 2}"
    out = run_cli("ranks", *two_ranks.files, "--range", middle).json()
    assert out["aligned_profile_span_seconds"] == pytest.approx((end - start) // 4 / 1e9, rel=1e-6)
    assert out["both_gpus_idle_ms"] <= full["both_gpus_idle_ms"]


@pytest.mark.parametrize("name", ["2gpu_mfu_before_nccl.sqlite", "h100_2gpu_1s_no_nccl.sqlite"])
def test_real_two_gpu_sqlite(name, run_cli):
    path = SQLITE / name
    with sqlite3.connect(path) as con:
        expected = {device: (count, nccl, nccl_ns) for device, count, nccl, nccl_ns in con.execute(
            "SELECT k.deviceId, count(*), count(*) FILTER (WHERE s.value LIKE 'ncclDevKernel%'),"
            " coalesce(sum(k.\"end\" - k.start) FILTER (WHERE s.value LIKE 'ncclDevKernel%'), 0)"
            " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY 1")}
        span = con.execute('SELECT max("end") - min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0]
    out = run_cli("ranks", path).json()
    assert out["aligned_profile_span_seconds"] == pytest.approx(span / 1e9)
    for rank in out["ranks"]:
        count, nccl, nccl_ns = expected[rank["rank"]]
        assert (rank["kernel_count"], rank["nccl_kernel_count"]) == (count, nccl)
        assert rank["nccl_kernel_ms"] == pytest.approx(nccl_ns / 1e6)
        assert rank["clock"] == "shared clock" and rank["clock_offset_ns"] == 0
    if name.startswith("2gpu"):
        assert out["collectives"]["send_recv"]["instances"] == 33
    else:
        assert out["collectives"] == {}


def test_real_one_rank_capture_of_the_multirank_program(run_cli):
    """tools/capture_multirank on the one-GPU H200 with one rank (NCCL runs no collective kernel there):
    the per-rank export path and NVTX steps, checked against the CSVs."""
    import csv

    folder = DATA / "multi_rank" / "h200_1rank"
    with open(folder / "rank0_nvtx_pushpop_trace.csv", newline="") as fh:
        (step,) = [r for r in csv.DictReader(fh) if r["Name"] == ":step 2"]
    start, end = int(step["Start (ns)"]), int(step["End (ns)"])
    with open(folder / "rank0_cuda_gpu_trace.csv", newline="") as fh:
        kernels = [r for r in csv.DictReader(fh) if r["GrdX"] and start <= int(r["Start (ns)"]) < end]
    out = run_cli("ranks", folder / "rank0_cuda_gpu_trace.csv", "--nvtx", "step 2").json()
    (rank,) = out["ranks"]
    assert rank["kernel_count"] == len(kernels) == 8
    assert rank["non_nccl_kernel_seconds"] == pytest.approx(sum(int(r["Duration (ns)"]) for r in kernels) / 1e9)
    assert out["aligned_profile_span_seconds"] == pytest.approx((end - start) / 1e9)
    assert out["aligned_profile_span_seconds"] > 0.02  # the injected 20 ms late start of step 2


def test_rank_labels_that_are_no_numbers(two_ranks, tmp_path, run_cli):
    offsets = two_ranks.clock_offsets_ns
    labelled = []
    for label, path in zip("ba", two_ranks.files, strict=True):  # rank 0's file is labelled b: labels sort a, b
        target = tmp_path / f"node_{label}_cuda_gpu_trace.csv"
        target.write_text(path.read_text())
        labelled.append(target)
    out = run_cli("ranks", *labelled, "--rank-pattern", r"node_([ab])_", "--offset", f"b={offsets[1] - offsets[0]}"
                  ).json()
    assert out["rank_labels"] == {"0": "a", "1": "b"}
    by_label = {r["label"]: r for r in out["ranks"]}
    assert by_label["b"]["source"].endswith("node_b_cuda_gpu_trace.csv") and by_label["b"]["rank"] == 1
    assert by_label["b"]["clock"] == "given" and by_label["b"]["clock_offset_ns"] == offsets[1] - offsets[0]
    assert by_label["a"]["clock"] == "reference"
    # the same alignment as with numbered files: the idle time does not depend on how ranks are named
    assert out["both_gpus_idle_ms"] == pytest.approx(run_cli("ranks", *two_ranks.files).json()["both_gpus_idle_ms"])


@pytest.mark.parametrize(("pattern", "message"), [
    ("(", "not a regular expression"), (r"rank\d+", "needs a group"),
])
def test_bad_rank_patterns_are_one_line(two_ranks, run_cli, pattern, message):
    result = run_cli("ranks", *two_ranks.files, "--rank-pattern", pattern)
    assert result.code == 2 and message in result.err and result.err.count("\n") == 1


def test_offset_of_an_unknown_rank(two_ranks, run_cli):
    result = run_cli("ranks", *two_ranks.files, "--offset", "7=100")
    assert result.code == 2 and "no rank '7'" in result.err


def test_two_labels_of_one_rank_number(two_ranks, tmp_path, run_cli):
    named = []
    for label, path in zip(("01", "1"), two_ranks.files, strict=True):
        target = tmp_path / f"rank{label}_cuda_gpu_trace.csv"
        target.write_text(path.read_text())
        named.append(target)
    result = run_cli("ranks", *named)
    assert result.code == 2 and "two files give the same rank: 01, 1" in result.err


def test_offset_beyond_the_time_limit(two_ranks, run_cli):
    result = run_cli("ranks", *two_ranks.files, "--offset", "1=9223372036854775807")
    assert result.code == 2 and "offsets lie within" in result.err


def test_facts_without_their_collective_kernels_hold_none_of_their_memory():
    import pyarrow as pa

    before = pa.total_allocated_bytes()
    kernels = pa.table({"rank": pa.array([0] * 100_000, pa.int32()), "start_ns": pa.array(range(100_000)),
                        "end_ns": pa.array(range(1, 100_001))})
    facts = ranks.CaptureFacts("rank0.csv", 1, (ranks.DeviceFacts("GPU 0", 0, (0, 100_000), kernels),))
    del kernels
    slim = ranks.without_collective_kernels(facts)
    del facts
    assert slim.devices[0].nccl_kernels.num_rows == 0 and slim.devices[0].bounds == (0, 100_000)
    assert pa.total_allocated_bytes() <= before
