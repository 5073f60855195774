"""The diagnoses on real captures of the cases they must tell apart, made on an H100 with nsys 2025.3.1 by
tools/capture_diagnosis.sh (tests/data/nsys/diagnosis): an eager loop that synchronizes after every kernel, the
same loop's kernels replayed as a CUDA graph traced node by node and not, and two streams where one starts late.
Every expected number is read from the exports here, with csv and gzip."""

from __future__ import annotations

import csv
import gzip
import re

import pytest

from tests.conftest import DATA

FOLDER = DATA / "nsys" / "diagnosis"
LAUNCH = re.compile(r"^cu(da)?Launch(Cooperative)?Kernel|^cu(da)?GraphLaunch")
SYNC = re.compile(r"^cu(da)?(Device|Thread|Ctx|Stream|Event)Synchronize")
GRAPH_ADVICE = "capture the loop in a CUDA graph"


def rows(name: str) -> list[dict[str, str]]:
    path = FOLDER / name
    with (gzip.open(path, "rt", newline="") if path.suffix == ".gz" else path.open(newline="")) as fh:
        return list(csv.DictReader(fh))


def trace(case: str) -> str:
    return str(FOLDER / f"{case}_cuda_gpu_trace.csv.gz")


def answer(run_cli, *args) -> dict:
    result = run_cli(*args)
    assert result.code == 0, result.err
    return result.json()


def by_id(found: dict) -> dict:
    return {f["id"]: f for f in found["findings"]}


def no_graph_advice(found: dict) -> None:
    assert not [f["id"] for f in found["findings"] if GRAPH_ADVICE in f["suggestion"]
                or "launch them from a CUDA graph" in f["suggestion"]]


@pytest.mark.parametrize("with_api_trace", [False, True])
def test_a_sync_after_every_kernel(run_cli, with_api_trace):
    """cuda_api_sum: 600 launch calls and 601 cudaDeviceSynchronize. Without the API trace only the summary tells the
    syncs; with it, the trace does: either way host synchronization, never CUDA graphs."""
    summary = rows("eager_sync_cuda_api_sum.csv")
    launches = sum(int(r["Num Calls"]) for r in summary if LAUNCH.match(r["Name"]))
    syncs = sum(int(r["Num Calls"]) for r in summary if SYNC.match(r["Name"]))
    assert (launches, syncs) == (600, 601)
    api = ["--api-trace", str(FOLDER / "eager_sync.api_trace.csv.gz")] if with_api_trace else []
    found = answer(run_cli, "findings", trace("eager_sync"), *api)
    launch = by_id(found)["cpu_launch_bound"]
    assert launch["title"].startswith("Host-synchronized launches")
    assert launch["suggestion"].startswith("Remove the host synchronization after each launch")
    assert (launch["evidence"]["launch_calls"], launch["evidence"]["host_sync_calls"]) == (launches, syncs)
    assert launch["evidence"]["calls_counted_from"] == ("api_trace" if with_api_trace else "api_summary")
    # the summary is relied on only when it stands in for the trace
    assert launch["relied_on"] == ["gpu_trace", "kernel_exec_trace", "api_trace" if with_api_trace else "api_summary"]
    no_graph_advice(found)
    assert ("synchronization_stalls" in by_id(found)) == with_api_trace  # without the trace it is skipped, and said
    assert with_api_trace or "synchronization_stalls" in {s["id"] for s in found["skipped"]}
    kernels = sum(1 for r in rows("eager_sync_cuda_gpu_trace.csv.gz") if r["GrdX"])
    integrity = answer(run_cli, "classify", trace("eager_sync"), *api)["integrity"]
    assert (integrity["summary_kernels"], integrity["traced_kernels"]) == (
        sum(int(r["Instances"]) for r in rows("eager_sync_cuda_gpu_kern_sum.csv")), kernels)


def graph_replay_time(case: str) -> tuple[int, int]:
    """The graph launch calls of a capture, and the time its replays' kernels span (each replay's first kernel start
    to its last kernel end, summed): kernels carry their graph launch's correlation id."""
    launches = {r["CorrID"] for r in rows(f"{case}_cuda_api_trace.csv.gz") if r["Name"].startswith("cudaGraphLaunch")}
    bounds: dict[str, tuple[int, int]] = {}
    for r in rows(f"{case}_cuda_gpu_trace.csv.gz"):
        if r["CorrId"] in launches:
            start = int(r["Start (ns)"])
            end = start + int(r["Duration (ns)"])
            low, high = bounds.get(r["CorrId"], (start, end))
            bounds[r["CorrId"]] = (min(low, start), max(high, end))
    return len(launches), sum(high - low for low, high in bounds.values())


def test_graph_replays_not_traced(run_cli):
    """50 replays whose kernels nsys left out (--cuda-graph-trace=graph): counted, their gaps are theirs, a finding
    says to capture again, and no advice to adopt graphs. The gaps hold about the time the same replays' kernels
    span in the capture traced node by node (another run of the same program: within 15%)."""
    launches, _ = graph_replay_time("graph_untraced")
    replays_traced, traced_ns = graph_replay_time("graph_node")
    assert launches == replays_traced == 50
    summary = answer(run_cli, "classify", trace("graph_untraced"))
    assert (summary["integrity"]["graph_launches"], summary["integrity"]["untraced_graph_launches"]) == (50, 50)
    assert summary["idle"]["untraced_graph_ns"] == pytest.approx(traced_ns, rel=0.15)
    found = answer(run_cli, "findings", trace("graph_untraced"))
    replays = by_id(found)["untraced_graph_replays"]
    assert replays["evidence"]["capture_untraced_graph_launches"] == 50
    assert "--cuda-graph-trace=node" in replays["suggestion"]
    no_graph_advice(found)
    gaps = answer(run_cli, "launches", trace("graph_untraced"), "--top", "3")["largest_gaps"]
    assert [g["idle_cause"] for g in gaps].count("untraced_graph") >= 2


def test_graph_replays_traced_node_by_node(run_cli):
    """The same program traced node by node: every replay's kernels are there, nothing is untraced, and the advice
    is to bring the rest into the graphs."""
    summary = answer(run_cli, "classify", trace("graph_node"))
    graph_kernels = sum(1 for r in rows("graph_node_cuda_kern_exec_trace.csv.gz")
                        if r["API Function"].startswith("cudaGraphLaunch"))
    assert (summary["integrity"]["untraced_graph_launches"], summary["integrity"]["graph_kernels"]) == (
        0, graph_kernels) == (0, 1500)
    assert summary["idle"]["untraced_graph_ns"] == 0
    found = answer(run_cli, "findings", trace("graph_node"))
    assert "untraced_graph_replays" not in by_id(found)
    no_graph_advice(found)
    launch = by_id(found).get("cpu_launch_bound")
    assert launch is None or launch["suggestion"].startswith("The loop already replays CUDA graphs")


def test_a_stream_that_starts_late(run_cli):
    """One GPU, stream 17 starting 85% into the capture: a stream, not a device, so no device is named late; the
    GPU's union busy and idle add up to the span."""
    ops = rows("late_stream_cuda_gpu_trace.csv.gz")
    starts = {}
    for r in ops:
        starts.setdefault(r["Strm"], []).append(int(r["Start (ns)"]))
    low = min(int(r["Start (ns)"]) for r in ops)
    high = max(int(r["Start (ns)"]) + int(r["Duration (ns)"]) for r in ops)
    assert (min(starts["17"]) - low) / (high - low) > 0.8
    summary = answer(run_cli, "classify", trace("late_stream"))
    assert summary["gpu_span_ns"] == high - low
    assert summary["kernel_union_percent_of_span"] + 100 * summary["idle"]["kernel_idle_ns"] / summary["gpu_span_ns"] \
        == pytest.approx(100)
    (device,) = summary["devices"].values()
    assert (device["starts_late_ns"], device["ends_early_ns"], summary["idle"]["inactive_ns"]) == (0, 0, 0)
    assert "late_or_early_device" not in by_id(answer(run_cli, "findings", trace("late_stream")))
