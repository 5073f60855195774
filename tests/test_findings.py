"""Findings end to end: each default finding rule on a hand-built capture made to trigger it and on one made not to
(every evidence number worked out here), the rule contract and its sandbox, --fail-on, classify --findings, and the
LLM capture, whose first finding is checked against a nanosecond grid built from its CSV files."""

from __future__ import annotations

import csv
import sqlite3
from contextlib import closing

import numpy as np
import pytest

from tests.conftest import API_HEADER, DATA, GPU_HEADER, KERN_EXEC_HEADER, kernel_row, launch_row, write, write_rules
from tests.intervals import grid, read_csv

NEEDS_NCU = "needs Nsight Compute metrics of the same workload (--ncu)"
DEVICE = "NVIDIA H200 (0)"
GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
CUSTOM = "my_solver_step_kernel"  # no family rule knows it
T0 = 1_000_000  # every time below is relative to it


def capture(folder, kernels, memops=(), calls=(), api=True):
    """A capture's CSV set in `folder`. kernels: (start, duration, name, stream, call start, call duration), each
    launched by cudaLaunchKernel (correlation id 1); memops: (start, duration, name, bytes, source kind, destination
    kind), correlation id 2, 3, ...; calls: other API calls (start, duration, name, correlation id), all of pid 1."""
    folder.mkdir(exist_ok=True)
    memop_rows = [f"{T0 + s},{d},{2 + i},,,,,,,,,,{size / 1e6},1.000,{src},{dst},{DEVICE},1,,7,{name}"
                  for i, (s, d, name, size, src, dst) in enumerate(memops)]
    gpu = write(folder / "t_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(T0 + s, d, name, stream=stream) for s, d, name, stream, _, _ in kernels] + memop_rows)
    write(folder / "t_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER,
          [launch_row(T0 + call, call_d, T0 + s, d, name) for s, d, name, _, call, call_d in kernels])
    if api:
        rows = [f"{T0 + call},{call_d},cudaLaunchKernel,0,1,1,1,20,python" for *_, call, call_d in kernels]
        rows += [f"{T0 + s},{d},{name},0,{corr},1,1,20,python" for s, d, name, corr in calls]
        write(folder / "t_cuda_api_trace.csv", API_HEADER, rows)
    return gpu


def findings(run_cli, gpu, *options, replay=False):
    """The findings JSON of a capture, checked to be whole: every finding ranked by its ceiling, within the span.
    Without `replay` the ceilings are the rules' own (--no-replay-ceilings): what most tests here work out."""
    result = run_cli("findings", str(gpu), *options, *(() if replay else ("--no-replay-ceilings",)))
    assert result.code == 0, result.err
    out = result.json()
    ceilings = [f["gain_ceiling_ns"] for f in out["findings"]]
    assert ceilings == sorted(ceilings, reverse=True)
    spans = [out["window_spans_ns"][f["scope"]["nvtx_group"]] if "window_spans_ns" in out else out["gpu_span_ns"]
             for f in out["findings"]]
    assert all(0 <= ceiling <= span for ceiling, span in zip(ceilings, spans, strict=True))
    return out


def by_id(out):
    return {f["id"]: f for f in out["findings"]}


def skipped(out):
    return {s["id"]: s["reason"] for s in out["skipped"]}


# CPU launch-bound: ten 200 ns gemms, one every 1000 ns; each launch call takes 800 ns and returns 100 ns before its
# kernel starts. Before kernels 1..9 the GPU is idle 800 ns: 700 of them while the call has not returned (CPU launch)
# and 100 after (other). Span 9 x 1000 + 200 = 9200; CPU launch 9 x 700 = 6300 (68.5%: high).
# Every kernel (200 ns) runs shorter than its call (800 ns): ten tiny gemms, and the GPU waited 6300 ns for them.
# The replay with launches as from a CUDA graph (2 us at most each): the calls follow one another at once, 800 ns
# each, from -900; each kernel starts 900 ns after its call (its measured lag, under 2 us), at 800 i: the span is
# 7200 + 200 = 7400, 1800 ns shorter. That is the finding's ceiling (6300 ns without the replay).
LAUNCH_BOUND = [(1000 * i, 200, GEMM, 7, 1000 * i - 900, 800) for i in range(10)]


def test_cpu_launch_bound_and_tiny_kernels(tmp_path, run_cli):
    out = findings(run_cli, capture(tmp_path, LAUNCH_BOUND), replay=True)
    found = by_id(out)
    assert [f["id"] for f in out["findings"]] == ["tiny_kernels", "cpu_launch_bound"]  # by gain ceiling
    launch = found["cpu_launch_bound"]
    assert (launch["severity"], launch["gain_ceiling_ns"], launch["scope"]) == ("high", 1800, {"device": DEVICE})
    assert (launch["gain_ceiling_from"], launch["heuristic_gain_ceiling_ns"]) == ("replay", 6300)
    assert launch["evidence"] == {"cpu_launch_ns": 6300, "kernel_idle_ns": 7200, "gpu_span_ns": 9200,
                                  "kernel_count": 10, "cpu_launch_percent_of_span": pytest.approx(100 * 6300 / 9200),
                                  "wait_per_kernel_ns": 630,  # up to 100 us a kernel: launch overhead
                                  "launch_calls": 10, "host_sync_calls": 0, "calls_counted_from": "api_trace"}
    assert launch["gain_ceiling_percent_of_span"] == pytest.approx(100 * 1800 / 9200)
    tiny = found["tiny_kernels"]
    assert (tiny["severity"], tiny["gain_ceiling_ns"], tiny["gain_ceiling_from"]) == ("high", 6300, "heuristic")
    without = by_id(findings(run_cli, capture(tmp_path, LAUNCH_BOUND)))["cpu_launch_bound"]
    assert without["gain_ceiling_ns"] == 6300 and "gain_ceiling_from" not in without
    assert tiny["scope"] == {"device": DEVICE, "family": "gemm"}
    assert tiny["evidence"] == {"family": "gemm", "kernels": 10, "short_kernels": 10, "short_kernel_ns": 2000,
                                "launch_call_ns": 8000, "cpu_launch_idle_ns": 6300, "gpu_span_ns": 9200}
    assert skipped(out) == {"memory_bound_hot_kernel": NEEDS_NCU, "latency_bound_hot_kernel": NEEDS_NCU}


@pytest.mark.parametrize(("graph_corr", "advice"), [
    (None, "capture the loop in a CUDA graph"),  # no graph launch: graphs are the advice
    (1, "The loop already replays CUDA graphs"),  # a replay whose kernels are traced (they carry its correlation id)
    (99, "Capture again with --cuda-graph-trace=node first: 1 CUDA graph replays"),  # one whose kernels are not
])
def test_cpu_launch_bound_never_advises_graphs_to_a_capture_that_replays_them(tmp_path, run_cli, graph_corr, advice):
    calls = [] if graph_corr is None else [(-5000, 400, "cudaGraphLaunch_v10000", graph_corr)]
    gpu = capture(tmp_path, LAUNCH_BOUND, calls=calls)
    launch = by_id(findings(run_cli, gpu))["cpu_launch_bound"]
    assert advice in launch["suggestion"] and "cuda_api_trace" not in launch["caveat"]
    assert launch["relied_on"] == ["gpu_trace", "kernel_exec_trace", "api_trace"]  # launch rows; API calls: graphs
    if graph_corr != 1:
        assert "The loop already replays" not in launch["suggestion"]
    result = run_cli("classify", gpu)
    integrity = result.json()["integrity"]
    untraced = 1 if graph_corr == 99 else 0
    assert (integrity["graph_launches"], integrity["untraced_graph_launches"]) == (len(calls), untraced)
    assert ("without --cuda-graph-trace=node" in result.err) == bool(untraced)


# A sync after every launch: ten 200 ns gemms, one every 1000 ns; each launch call [-500, -100) before its kernel,
# then cudaDeviceSynchronize [-90, 250), which returns 50 ns after its kernel ends. Each of the 9 gaps [200, 1000)
# after a kernel: synchronization [200, 250) 50 ns, CPU launch (the next call returns at 900) 650, other [900, 910)
# 10, synchronization again [910, 1000) 90 (the next sync is called before its kernel starts).
# Span 9200; CPU launch 9 x 650 = 5850 (63.6%: high). Without the API trace the syncs are invisible: their 50 ns
# count as CPU launch (9 x 700 = 6300), and only the cuda_api_sum summary tells that the host synchronizes.
SYNCED = [(1000 * i, 200, GEMM, 7, 1000 * i - 500, 400) for i in range(10)]
SYNCS = [(1000 * i - 90, 340, "cudaDeviceSynchronize", 100 + i) for i in range(10)]
API_SUM_HEADER = "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
KERN_SUM_HEADER = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"


def api_sum(folder, calls):
    """The capture's cuda_api_sum beside its trace: {API function: calls}."""
    write(folder / "t_cuda_api_sum.csv", API_SUM_HEADER,
          [f"50.0,{100 * n},{n},100.0,100.0,100,100,0.0,{name}" for name, n in calls.items()])


SYNC_ADVICE = "Remove the host synchronization after each launch"


def test_a_sync_after_every_launch_is_host_synchronization_not_launch_overhead(tmp_path, run_cli):
    gpu = capture(tmp_path, SYNCED, calls=SYNCS)
    out = findings(run_cli, gpu)
    launch = by_id(out)["cpu_launch_bound"]
    assert (launch["severity"], launch["gain_ceiling_ns"]) == ("high", 5850)
    assert launch["title"] == ("Host-synchronized launches: the GPU waited 0.01 ms (64% of the span) for kernel "
                               "launches while the host synchronizes with it 10 times for 10 launch calls")
    assert launch["suggestion"].startswith(SYNC_ADVICE) and "CUDA graph" in launch["suggestion"]
    assert "capture the loop in a CUDA graph" not in launch["suggestion"]
    assert (launch["evidence"]["launch_calls"], launch["evidence"]["host_sync_calls"],
            launch["evidence"]["calls_counted_from"]) == (10, 10, "api_trace")
    assert launch["relied_on"] == ["gpu_trace", "kernel_exec_trace", "api_trace"]
    idle = run_cli("classify", gpu).json()["idle"]
    assert (idle["synchronization_ns"], idle["cpu_launch_ns"], idle["other_ns"]) == (9 * 140, 9 * 650, 9 * 10)


def test_without_an_api_trace_the_api_summary_tells_the_syncs(tmp_path, run_cli):
    gpu = capture(tmp_path, SYNCED, api=False)
    api_sum(tmp_path, {"cudaLaunchKernel": 10, "cudaDeviceSynchronize": 10, "cudaMalloc": 3})
    result = run_cli("classify", gpu)
    assert {i["role"] for i in result.json()["inputs"]} == {"gpu_trace", "kernel_exec_trace", "api_summary"}
    assert result.json()["idle"]["synchronization_ns"] is None  # the summary has no times to place them by
    launch = by_id(findings(run_cli, gpu))["cpu_launch_bound"]
    assert launch["gain_ceiling_ns"] == 6300
    assert launch["title"].startswith("Host-synchronized launches") and launch["suggestion"].startswith(SYNC_ADVICE)
    assert launch["evidence"]["calls_counted_from"] == "api_summary"
    assert "counted from the cuda_api_sum summary" in launch["caveat"]
    assert launch["relied_on"] == ["gpu_trace", "kernel_exec_trace", "api_summary"]


def test_an_occasional_sync_in_the_api_summary_leaves_launch_overhead(tmp_path, run_cli):
    """One sync for ten launches (4 < 10 / 2): the wait is launch overhead, and graphs are the advice."""
    gpu = capture(tmp_path, SYNCED, api=False)
    api_sum(tmp_path, {"cudaLaunchKernel_v7000": 10, "cudaStreamSynchronize": 4})
    launch = by_id(findings(run_cli, gpu))["cpu_launch_bound"]
    assert launch["title"].startswith("CPU launch-bound") and "capture the loop in a CUDA graph" in launch["suggestion"]
    assert (launch["evidence"]["launch_calls"], launch["evidence"]["host_sync_calls"]) == (10, 4)


def test_the_kernel_summary_is_checked_against_the_trace(tmp_path, run_cli):
    gpu = capture(tmp_path, SYNCED)
    write(tmp_path / "t_cuda_gpu_kern_sum.csv", KERN_SUM_HEADER, [f'100.0,2000,10,200.0,200.0,200,200,0.0,"{GEMM}"'])
    result = run_cli("classify", gpu)
    assert (result.json()["integrity"]["summary_kernels"], result.json()["integrity"]["traced_kernels"]) == (10, 10)
    assert "kern_sum" not in result.err
    write(tmp_path / "t_cuda_gpu_kern_sum.csv", KERN_SUM_HEADER, [f'100.0,2400,12,200.0,200.0,200,200,0.0,"{GEMM}"'])
    result = run_cli("classify", gpu)
    assert result.json()["integrity"]["summary_kernels"] == 12
    assert f"t_cuda_gpu_kern_sum.csv: counts 12 kernels, {gpu} holds 10" in result.err


def test_a_real_capture_with_its_summaries(run_cli):
    """3DCONV on an H100 NVL: 254 kernels, each launched by cudaLaunchKernel, one cudaDeviceSynchronize; its
    summaries say so (read with csv here), and its trace holds every kernel the kernel summary counts."""
    folder = DATA / "public"
    with (folder / "3dconv_cuda_api_sum.csv").open() as fh:
        calls = {row["Name"]: int(row["Num Calls"]) for row in csv.DictReader(fh)}
    with (folder / "3dconv_cuda_gpu_trace.csv").open() as fh:
        kernels = sum(1 for row in csv.DictReader(fh) if row["GrdX"])
    out = run_cli("classify", folder / "3dconv_cuda_gpu_trace.csv").json()
    assert {"api_summary", "kernel_summary", "api_trace"} <= {i["role"] for i in out["inputs"]}
    assert (out["integrity"]["summary_kernels"], out["integrity"]["traced_kernels"]) == (kernels, kernels) == (254, 254)
    assert (calls["cudaLaunchKernel"], calls["cudaDeviceSynchronize"]) == (254, 1)


def test_without_an_api_trace_graph_replays_are_unknown_and_the_caveat_says_so(tmp_path, run_cli):
    gpu = capture(tmp_path, LAUNCH_BOUND, api=False)
    integrity = run_cli("classify", gpu).json()["integrity"]
    assert (integrity["graph_launches"], integrity["untraced_graph_launches"], integrity["graph_kernels"]) == (
        None, None, 0)  # unknown without the API trace; the kern_exec trace shows no graph kernel
    found = by_id(findings(run_cli, gpu))
    launch = found["cpu_launch_bound"]
    assert "Without the CUDA API trace (cuda_api_trace)" in launch["caveat"]
    assert launch["relied_on"] == found["tiny_kernels"]["relied_on"] == ["gpu_trace", "kernel_exec_trace"]


def test_a_real_capture_of_graph_replays_traced_node_by_node(run_cli):
    """The DiT block replayed as CUDA graphs on an H200, with its API trace: its graph launches counted from the
    API trace, each traced (some GPU operation carries its correlation id), checked with plain csv here."""
    folder = DATA / "nsys" / "dit_graph"
    api = read_csv(folder / "h200_dit_graph_cuda_api_trace.csv")
    launches = [row for row in api if row["Name"].startswith("cudaGraphLaunch")]
    gpu_corr = {row["CorrId"] for row in read_csv(folder / "h200_dit_graph_cuda_gpu_trace.csv")}
    result = run_cli("classify", folder / "h200_dit_graph_cuda_gpu_trace.csv")
    integrity = result.json()["integrity"]
    assert integrity["graph_launches"] == len(launches) > 0
    assert integrity["untraced_graph_launches"] == sum(row["CorrID"] not in gpu_corr for row in launches) == 0
    assert "--cuda-graph-trace=node" not in result.err


def test_launches_in_time_and_kernels_longer_than_their_calls(tmp_path, run_cli):
    # each call (50 ns) returns 50 ns before the previous kernel ends: no CPU-launch idle, no tiny kernel
    out = findings(run_cli, capture(tmp_path, [(1000 * i, 200, GEMM, 7, 1000 * i - 900, 50) for i in range(10)]))
    assert out["findings"] == []


def test_four_tiny_kernels_are_not_enough(tmp_path, run_cli):
    # as LAUNCH_BOUND, but the first six kernels' calls take 100 ns (shorter than their kernels) and still return 100 ns
    # before them: 4 tiny kernels, fewer than the rule's 5; the CPU launch-bound finding stays (the GPU still waits
    # from the end of one kernel until the next one's call returns)
    kernels = [(1000 * i, 200, GEMM, 7, 1000 * i - 200, 100) for i in range(6)] + LAUNCH_BOUND[6:]
    assert [f["id"] for f in findings(run_cli, capture(tmp_path, kernels))["findings"]] == ["cpu_launch_bound"]


def test_tiny_kernels_count_only_the_waits_before_short_kernels(tmp_path, run_cli):
    # ten gemms, one every 1000 ns. Even ones run 200 ns, launched by 800 ns calls (short); odd ones run 600 ns,
    # launched by 500 ns calls (not short). Each call starts 900 ns before its kernel. Before an odd kernel the GPU
    # waits from the even one's end (-800) to the call's end (-400): 400 ns; before an even one from -400 to -100:
    # 300 ns. Short kernels with a wait before them: 2, 4, 6, 8 -> 1200 ns; all waits 5 x 400 + 1200 = 3200.
    kernels = [(1000 * i, 600 if i % 2 else 200, GEMM, 7, 1000 * i - 900, 500 if i % 2 else 800) for i in range(10)]
    found = by_id(findings(run_cli, capture(tmp_path, kernels)))
    assert found["cpu_launch_bound"]["gain_ceiling_ns"] == 3200
    tiny = found["tiny_kernels"]
    assert (tiny["severity"], tiny["gain_ceiling_ns"]) == ("medium", 1200)  # 12.5% of the 9600 span
    assert tiny["evidence"] == {"family": "gemm", "kernels": 10, "short_kernels": 5, "short_kernel_ns": 1000,
                                "launch_call_ns": 4000, "cpu_launch_idle_ns": 1200, "gpu_span_ns": 9600}


def test_cpu_launch_bound_per_nvtx_group(tmp_path, run_cli):
    gpu = capture(tmp_path, LAUNCH_BOUND)
    # group "a" holds the ranges of kernels 0-4 (launch calls from -900 to 3100), group "b" kernels 5-9
    write(tmp_path / "t_nvtx_pushpop_trace.csv",
          "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
          "ParentId,RangeStack,NameTree",
          [f"{T0 - 950},{T0 + 3500},4450,0,4450,step a,1,1,0,0,1,,:1,step a",
           f"{T0 + 3500},{T0 + 9500},6000,0,6000,step b,1,1,0,0,2,,:2,step b"])
    out = findings(run_cli, gpu, "--by-nvtx", r"step (\w)")
    assert out["window_spans_ns"] == {"a": 4200, "b": 4200}
    launch = [f for f in out["findings"] if f["id"] == "cpu_launch_bound"]
    # a: the stretches before kernels 1-4; b: before kernels 6-9 (the stretch before kernel 5 starts before b's span)
    assert [(f["scope"], f["gain_ceiling_ns"]) for f in launch] == [
        ({"nvtx_group": "a", "device": DEVICE}, 2800), ({"nvtx_group": "b", "device": DEVICE}, 2800)]
    # each range on its own: the same two windows, labelled by name and start
    per_range = findings(run_cli, gpu, "--per-nvtx", r"step \w")
    assert per_range["window_spans_ns"] == {f"step a @ {T0 - 950}": 4200, f"step b @ {T0 + 3500}": 4200}
    assert sorted(f["gain_ceiling_ns"] for f in per_range["findings"] if f["id"] == "cpu_launch_bound") == [2800, 2800]
    # classify --findings: the groups' summaries, and their findings ranked together
    classified = run_cli("classify", gpu, "--by-nvtx", r"step (\w)", "--findings").json()
    assert set(classified["groups"]) == {"a", "b"}
    assert classified["findings"]["findings"] == findings(run_cli, gpu, "--by-nvtx", r"step (\w)", replay=True)[
        "findings"]


# Synchronization: gemm A [0,1000), gemm B [5000,6000), launched by calls that return before A ends; the host waits
# in cudaDeviceSynchronize [1000,4000). The idle stretch [1000,5000): synchronization 3000, other 1000. Span 6000:
# synchronization 50% (high).
SYNC_KERNELS = [(0, 1000, GEMM, 7, -100, 10), (5000, 1000, GEMM, 7, 850, 100)]


def test_synchronization_stalls(tmp_path, run_cli):
    out = findings(run_cli, capture(tmp_path, SYNC_KERNELS, calls=[(1000, 3000, "cudaDeviceSynchronize", 9)]))
    assert [f["id"] for f in out["findings"]] == ["synchronization_stalls"]
    (stall,) = out["findings"]
    assert (stall["severity"], stall["gain_ceiling_ns"]) == ("high", 3000)
    assert stall["evidence"] == {
        "synchronization_ns": 3000, "kernel_idle_ns": 4000, "gpu_span_ns": 6000,
        "synchronization_percent_of_span": 50.0,
        "calls": [{"name": "cudaDeviceSynchronize", "calls": 1, "time_ns": 3000, "max_ns": 3000}]}
    assert "cudaDeviceSynchronize" in stall["title"]
    assert skipped(out) == {"memory_bound_hot_kernel": NEEDS_NCU, "latency_bound_hot_kernel": NEEDS_NCU}
    assert {s["rule_file"] for s in out["skipped"]} == {"memory_bound_kernels.sql"}


def test_a_short_synchronization_is_no_finding(tmp_path, run_cli):
    # 30 ns of 6000: 0.5%, under the rule's 1% (the other 3970 ns of the stretch are no CPU launch: B's call returned)
    out = findings(run_cli, capture(tmp_path, SYNC_KERNELS, calls=[(1000, 30, "cudaDeviceSynchronize", 9)]))
    assert out["findings"] == []


def test_without_an_api_trace_the_synchronization_rule_is_skipped(tmp_path, run_cli):
    out = findings(run_cli, capture(tmp_path, SYNC_KERNELS, api=False))
    assert skipped(out)["synchronization_stalls"].startswith("needs the CUDA API calls")
    assert "cpu_launch_bound" not in skipped(out)  # the launch rows are there


def test_without_launch_rows_the_launch_rules_are_skipped(tmp_path, run_cli):
    gpu = capture(tmp_path, LAUNCH_BOUND, api=False)
    (tmp_path / "t_cuda_kern_exec_trace.csv").unlink()
    out = findings(run_cli, gpu)
    assert out["findings"] == []
    assert set(skipped(out)) == {"cpu_launch_bound", "tiny_kernels", "synchronization_stalls",
                                 "untraced_graph_replays", "memory_bound_hot_kernel", "latency_bound_hot_kernel"}
    assert skipped(out)["tiny_kernels"].startswith("needs the kernels' launch rows")
    assert skipped(out)["untraced_graph_replays"].startswith("needs the CUDA API calls")  # only they show replays


# Exposed communication: gemm [0,1500) and [3000,4000) on stream 7, an all-reduce [1000,3000) on stream 20.
# Communication 2000, of which [1000,1500) = 500 overlaps the gemm: 1500 exposed, 37.5% of the 4000 span (high).
def test_exposed_communication(tmp_path, run_cli):
    kernels = [(0, 1500, GEMM, 7, -100, 10), (1000, 2000, ALL_REDUCE, 20, 900, 10), (3000, 1000, GEMM, 7, 2900, 10)]
    out = findings(run_cli, capture(tmp_path, kernels))
    (exposed,) = out["findings"]
    assert (exposed["id"], exposed["severity"], exposed["gain_ceiling_ns"]) == ("exposed_communication", "high", 1500)
    assert exposed["evidence"] == {
        "exposed_ns": 1500, "time_ns": 2000, "overlapped_ns": 500, "kernels": 1, "gpu_span_ns": 4000,
        "exposed_percent_of_span": 37.5,
        "by_collective": [{"collective": "all_reduce", "kernels": 1, "time_ns": 2000, "overlapped_ns": 500,
                           "exposed_ns": 1500, "waited_ns": None, "late_device": None}]}  # one GPU: no arrivals


def test_exposed_communication_waits_for_the_late_gpu(tmp_path, run_cli):
    # GPU 0: gemm [0,1000), all-reduce [1000,3000); GPU 1: gemm [0,1500), all-reduce [1500,3000). Nothing overlaps
    # either all-reduce: exposed 2000 and 1500 of the 3000 span (high). GPU 1 arrives 500 ns after GPU 0, which
    # waits those 500 ns.
    second = "NVIDIA H200 (1)"
    rows = [kernel_row(T0, 1000, GEMM), kernel_row(T0 + 1000, 2000, ALL_REDUCE, stream=20),
            kernel_row(T0, 1500, GEMM, device=second), kernel_row(T0 + 1500, 1500, ALL_REDUCE, device=second,
                                                                  stream=20)]
    launches = [launch_row(T0 - 100, 10, T0, 1000, GEMM), launch_row(T0 - 50, 10, T0 + 1000, 2000, ALL_REDUCE),
                launch_row(T0 - 100, 10, T0, 1500, GEMM, device_index=1),
                launch_row(T0 - 50, 10, T0 + 1500, 1500, ALL_REDUCE, device_index=1)]
    gpu = write(tmp_path / "t_cuda_gpu_trace.csv", GPU_HEADER, rows)
    write(tmp_path / "t_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, launches)
    out = findings(run_cli, gpu)
    exposed = {f["scope"]["device"]: f for f in out["findings"] if f["id"] == "exposed_communication"}
    assert {device: (f["gain_ceiling_ns"], f["evidence"]["by_collective"]) for device, f in exposed.items()} == {
        DEVICE: (2000, [{"collective": "all_reduce", "kernels": 1, "time_ns": 2000, "overlapped_ns": 0,
                         "exposed_ns": 2000, "waited_ns": 500, "late_device": second}]),
        second: (1500, [{"collective": "all_reduce", "kernels": 1, "time_ns": 1500, "overlapped_ns": 0,
                         "exposed_ns": 1500, "waited_ns": 0, "late_device": second}])}
    assert exposed[DEVICE]["title"].endswith(f"0.00 ms of it waiting for later GPUs (most for {second})")
    assert "waiting" not in exposed[second]["title"]


def test_real_two_gpu_capture_waits_for_the_late_gpu(run_cli):
    """The 2-GPU NCCL capture: the n-th SendRecv kernel of each GPU is one instance; each GPU waits from its start to
    the later one's, worked out here from the export with sqlite3."""
    path = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
        starts: dict[int, list[int]] = {}
        for device, start in con.execute("SELECT k.deviceId, k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds "
                                         "s ON s.id = k.demangledName WHERE s.value LIKE 'ncclDevKernel_SendRecv%' "
                                         "ORDER BY k.start, k.\"end\""):
            starts.setdefault(device, []).append(start)
    devices = sorted(starts)
    instances = list(zip(*(starts[d] for d in devices), strict=False))  # those every GPU ran
    waited = {d: sum(max(i) - i[n] for i in instances) for n, d in enumerate(devices)}
    caused = {d: sum(max(i) - min(i) for i in instances if i[n] == max(i) > min(i)) for n, d in enumerate(devices)}
    late = f"GPU ({max(caused, key=caused.get)})"
    out = findings(run_cli, path)
    exposed = [f for f in out["findings"] if f["id"] == "exposed_communication"]
    assert exposed  # GPU 0's exposed SendRecv time is over 5% of its span
    for finding in exposed:
        (send_recv,) = finding["evidence"]["by_collective"]
        device = int(finding["scope"]["device"].removeprefix("GPU (").removesuffix(")"))
        assert (send_recv["waited_ns"], send_recv["late_device"]) == (waited[device], late)


def test_a_gpu_that_starts_late_is_named(tmp_path, run_cli):
    # GPU 0: gemms [0,1000) and [1000,4000); GPU 1: one gemm [3000,4000). The span is [0,4000): GPU 1 runs nothing
    # for its first 3000 ns, 75% of the span (high); GPU 0 is within 10% of both ends (no finding).
    second = "NVIDIA H200 (1)"
    gpu = write(tmp_path / "t_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(T0, 1000, GEMM), kernel_row(T0 + 1000, 3000, GEMM),
        kernel_row(T0 + 3000, 1000, GEMM, device=second)])
    (late,) = [f for f in findings(run_cli, gpu)["findings"] if f["id"] == "late_or_early_device"]
    assert (late["severity"], late["scope"], late["gain_ceiling_ns"]) == ("high", {"device": second}, 0)
    assert late["evidence"] == {"late_start_ns": 3000, "early_end_ns": 0, "device_span_ns": 1000, "gpu_span_ns": 4000,
                                "outside_percent_of_span": 75.0}
    assert late["title"] == f"{second} starts 0.00 ms late: it runs nothing for 75% of the span (0.00 ms)"
    devices = run_cli("classify", gpu).json()["devices"]
    assert {d: (v["starts_late_ns"], v["ends_early_ns"]) for d, v in devices.items()} == {
        DEVICE: (0, 0), second: (3000, 0)}


@pytest.mark.parametrize("name", ["h100_2gpu_1s_no_nccl.sqlite", "2gpu_mfu_before_nccl.sqlite"])
def test_late_or_early_gpus_of_real_two_gpu_captures(run_cli, name):
    """Each GPU's time outside its own span, from the export with sqlite3: named when it passes 10% of the span."""
    path = DATA / "multi_rank" / name
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
        bounds = {f"GPU ({device})": (first, last) for device, first, last in con.execute(
            "SELECT deviceId, min(start), max(\"end\") FROM (SELECT deviceId, start, \"end\" FROM "
            "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT deviceId, start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMCPY "
            "UNION ALL SELECT deviceId, start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMSET) GROUP BY deviceId")}
    first, last = min(b[0] for b in bounds.values()), max(b[1] for b in bounds.values())
    outside = {device: (b[0] - first, last - b[1]) for device, b in bounds.items()}
    named = {f["scope"]["device"]: f for f in findings(run_cli, path)["findings"] if f["id"] == "late_or_early_device"}
    assert set(named) == {d for d, (late, early) in outside.items() if late + early >= 0.10 * (last - first)}
    for device, finding in named.items():
        assert (finding["evidence"]["late_start_ns"], finding["evidence"]["early_end_ns"]) == outside[device]
    devices = run_cli("classify", path).json()["devices"]
    assert {d: (v["starts_late_ns"], v["ends_early_ns"]) for d, v in devices.items()} == outside


def test_communication_under_compute_is_no_finding(tmp_path, run_cli):
    kernels = [(0, 1500, GEMM, 7, -100, 10), (500, 900, ALL_REDUCE, 20, 400, 10), (3000, 1000, GEMM, 7, 2900, 10)]
    out = findings(run_cli, capture(tmp_path, kernels))
    assert "exposed_communication" not in by_id(out)


# Memory transfers: gemms [0,1000) and [3000,4000); a pageable host-to-device copy [500,2500) of 4000 bytes issued by
# a synchronous cudaMemcpy. Flagged time 2000 (50%: high); the GPU is idle during copies [1000,2500) = 1500, the
# ceiling (what can be won back). Those 1500 ns are also 37.5% of the span with nothing but a copy running:
# transfer-bound (medium, from 20%).
MEMORY_KERNELS = [(0, 1000, GEMM, 7, -100, 10), (3000, 1000, GEMM, 7, 500, 10)]  # B's call returns before A ends
H2D = "[CUDA memcpy Host-to-Device]"


def test_slow_memory_transfers(tmp_path, run_cli):
    gpu = capture(tmp_path, MEMORY_KERNELS, memops=[(500, 2000, H2D, 4000, "Pageable", "Device")],
                  calls=[(400, 2200, "cudaMemcpy", 2)])
    found = by_id(findings(run_cli, gpu))
    assert set(found) == {"slow_memory_transfers", "transfer_bound"}
    slow = found["slow_memory_transfers"]
    assert (slow["severity"], slow["gain_ceiling_ns"]) == ("high", 1500)
    assert slow["evidence"] == {
        "pageable_operations": 1, "pageable_ns": 2000, "synchronous_operations": 1, "synchronous_ns": 2000,
        "operations_not_known_synchronous": 0, "flagged_ns": 2000, "memory_transfer_idle_ns": 1500, "gpu_span_ns": 4000,
        "transfers": [{"name": H2D, "pageable": True, "synchronous": True, "operations": 1, "time_ns": 2000,
                       "bytes": 4000}]}
    assert slow["caveat"].startswith("Only the GPU's idle time counts")
    bound = found["transfer_bound"]
    assert (bound["severity"], bound["gain_ceiling_ns"]) == ("medium", 1500)
    assert bound["evidence"] == {
        "memory_transfer_ns": 1500, "kernel_idle_ns": 2000, "gpu_span_ns": 4000,
        "memory_transfer_percent_of_span": 37.5,
        "transfers": [{"name": H2D, "operations": 1, "time_ns": 2000, "bytes": 4000}]}


def test_pinned_asynchronous_copies_are_only_transfer_bound(tmp_path, run_cli):
    gpu = capture(tmp_path, MEMORY_KERNELS, memops=[(500, 2000, H2D, 4000, "Pinned", "Device")],
                  calls=[(400, 20, "cudaMemcpyAsync", 2)])
    assert [f["id"] for f in findings(run_cli, gpu)["findings"]] == ["transfer_bound"]


def test_copies_under_compute_are_no_finding(tmp_path, run_cli):
    # a pinned asynchronous copy [100,900) inside gemm A [0,1000): no idle time while it runs
    gpu = capture(tmp_path, MEMORY_KERNELS, memops=[(100, 800, H2D, 4000, "Pinned", "Device")],
                  calls=[(50, 20, "cudaMemcpyAsync", 2)])
    assert findings(run_cli, gpu)["findings"] == []


def test_without_an_api_trace_only_pageable_copies_count(tmp_path, run_cli):
    gpu = capture(tmp_path, MEMORY_KERNELS, memops=[(500, 2000, H2D, 4000, "Pageable", "Device")], api=False)
    slow = by_id(findings(run_cli, gpu))["slow_memory_transfers"]
    assert (slow["evidence"]["synchronous_operations"], slow["evidence"]["transfers"][0]["synchronous"]) == (0, None)
    assert slow["caveat"].startswith("Whether the host waited for 1 of the transfers is unknown")
    # the title does not count the unknown as 0 synchronous transfers
    assert slow["title"] == ("Slow memory transfers: 1 pageable transfers took 0.00 ms (50.0% of the span); whether 1 "
                             "were synchronous is unknown")
    assert slow["evidence"]["operations_not_known_synchronous"] == 1


# Memory-bound hot kernel (with ncu): gemm 3000 ns of 4000 ns kernel time; ncu measured 20% SM and 85% memory
# throughput: memory-bound. Ceiling 3000 x (1 - 0.85) = 450 ns, 11.25% of the 4000 span (high).
def ncu_file(folder, sm, memory, duration_us="10"):
    from tests.test_ncu import DETAILS_HEADER, throughput

    return write(folder / "ncu.csv", DETAILS_HEADER, throughput(0, GEMM, sm, memory, duration_us))


NCU_KERNELS = [(0, 3000, GEMM, 7, -100, 10), (3000, 1000, ALL_REDUCE, 20, 2900, 10)]


def test_memory_bound_hot_kernel(tmp_path, run_cli):
    out = findings(run_cli, capture(tmp_path, NCU_KERNELS), "--ncu", ncu_file(tmp_path, "20", "85"))
    hot = by_id(out)["memory_bound_hot_kernel"]
    assert (hot["severity"], hot["gain_ceiling_ns"]) == ("high", 450)
    assert hot["evidence"] == {
        "kernel_key": hot["scope"]["kernel"], "short_name": "Kernel2", "family": "gemm", "verdict": "memory_bound",
        "launches": 1, "total_ns": 3000, "kernel_time_ns": 4000, "profiled_launches": 1,
        "profiled_duration_ns": 10000.0, "traced_mean_ns": 3000.0, "sm_throughput_pct": 20.0,
        "memory_throughput_pct": 85.0}
    # ncu's launch took 10 us, the traced one 3 us: another problem size
    assert hot["caveat"].startswith("ncu profiled launches of another size (10.0 us each, against 3.0 us")
    assert out["skipped"] == []


def test_latency_bound_hot_kernel(tmp_path, run_cli):
    # 20% SM and 30% memory throughput, both under 60%: latency-bound; ceiling 3000 x (1 - 0.30) = 2100 (52.5%: high)
    out = findings(run_cli, capture(tmp_path, NCU_KERNELS), "--ncu", ncu_file(tmp_path, "20", "30", duration_us="3"))
    (hot,) = [f for f in out["findings"] if f["id"].endswith("_hot_kernel")]
    assert (hot["id"], hot["severity"], hot["gain_ceiling_ns"]) == ("latency_bound_hot_kernel", "high", 2100)
    assert hot["caveat"].startswith("Throughputs are medians")  # 3 us in ncu and in the trace


def test_a_compute_bound_kernel_is_no_memory_finding(tmp_path, run_cli):
    out = findings(run_cli, capture(tmp_path, NCU_KERNELS), "--ncu", ncu_file(tmp_path, "85", "20"))
    assert "memory_bound_hot_kernel" not in by_id(out)


# Unclassified time: a kernel no family rule knows runs 3000 of the 4000 ns of kernel time: 75% (medium, over 30%).
def test_unclassified_kernel_time(tmp_path, run_cli):
    kernels = [(0, 3000, CUSTOM, 7, -100, 10), (3000, 1000, GEMM, 7, 2900, 10)]
    (other,) = findings(run_cli, capture(tmp_path, kernels))["findings"]
    assert (other["id"], other["severity"], other["gain_ceiling_ns"]) == ("unclassified_kernel_time", "medium", 0)
    assert other["evidence"] == {
        "other_time_ns": 3000, "other_launches": 1, "kernel_time_ns": 4000, "other_percent_of_kernel_time": 75.0,
        "top_names": [{"short_name": CUSTOM, "name": CUSTOM, "launches": 1, "total_ns": 3000}]}


def test_the_findings_table_names_kernels_by_their_short_names(tmp_path, run_cli):
    demangled = "void my_ns::my_solver_step_kernel<float, 128>(my_ns::Params<float> const *, int)"
    gpu = capture(tmp_path, [(0, 3000, demangled, 7, -100, 10), (3000, 1000, GEMM, 7, 2900, 10)])
    (top,) = by_id(findings(run_cli, gpu))["unclassified_kernel_time"]["evidence"]["top_names"]
    assert top["name"] == demangled and top["short_name"] == "my_solver_step_kernel"  # the JSON keeps both
    table = run_cli("findings", gpu, "--format", "table").out
    assert "my_solver_step_kernel (launches 1" in " ".join(table.split())
    assert "my_ns::Params" not in table


def test_a_small_unclassified_share_is_no_finding(tmp_path, run_cli):
    # 100 of 2100 ns: 4.8%, under the rule's 10%
    kernels = [(0, 100, CUSTOM, 7, -100, 10), (100, 2000, GEMM, 7, 50, 10)]
    assert findings(run_cli, capture(tmp_path, kernels))["findings"] == []


def test_fail_on_gates_by_severity(tmp_path, run_cli):
    gpu = capture(tmp_path, LAUNCH_BOUND)  # two high findings
    high = run_cli("findings", gpu, "--fail-on", "high")
    assert high.code == 1
    assert high.json()["gate"] == {"fail_on": "high", "failed": True, "findings_at_or_above": 2}
    clean = capture(tmp_path / "clean", [(1000 * i, 200, GEMM, 7, 1000 * i - 900, 50) for i in range(10)])
    passed = run_cli("findings", clean, "--fail-on", "low")
    assert (passed.code, passed.json()["gate"]["failed"]) == (0, False)
    assert run_cli("findings", gpu, "--fail-on", "severe").code == 2


def test_classify_with_findings(tmp_path, run_cli):
    gpu = capture(tmp_path, LAUNCH_BOUND)
    out = run_cli("classify", gpu, "--findings").json()
    assert out["kernel_count"] == 10
    # the launch-bound finding's ceiling is its replay's (1800 ns: test_cpu_launch_bound_and_tiny_kernels)
    assert [f["id"] for f in out["findings"]["findings"]] == ["tiny_kernels", "cpu_launch_bound"]
    gated = run_cli("classify", gpu, "--fail-on", "high")
    assert (gated.code, gated.json()["findings"]["gate"]["failed"]) == (1, True)
    table = run_cli("classify", gpu, "--findings", "--format", "table")
    assert "CPU launch-bound" in table.out and "68.48%" in table.out and "19.57%" in table.out
    assert "skipped memory_bound_hot_kernel" in table.out


def test_findings_table(tmp_path, run_cli):
    out = run_cli("findings", capture(tmp_path, LAUNCH_BOUND), "--format", "table").out
    lines = [line for line in out.splitlines() if line.lstrip().startswith(("1 ", "2 "))]
    assert "high" in lines[0] and "Tiny kernels" in lines[0] and "0.006" in lines[0] and "68.48%" in lines[0]
    assert "CPU launch-bound" in lines[1] and "0.002" in lines[1] and "19.57%" in lines[1]  # its replay's ceiling
    assert "cpu_launch_bound: Launch fewer kernels" in out


# The rule contract: a pack of one's own, refused with one line when it breaks the contract.
GOOD = """-- finding: long_kernel | a kernel of the top_kernels longer than 1000 ns
SELECT 'long_kernel' AS id, 'low' AS severity, 'long ' || short_name AS title,
       '{"max_ns": ' || max_ns || '}' AS evidence, {'kernel': kernel_key} AS scope, max_ns AS gain_ceiling_ns,
       'split it' AS suggestion, NULL AS caveat
FROM top_kernels WHERE device IS NULL AND max_ns > 1000
"""


def test_a_pack_of_ones_own(tmp_path, run_cli):
    pack = write_rules(tmp_path / "pack", {"long.sql": GOOD})
    kernels = [(0, 3000, GEMM, 7, -100, 10), (3000, 1000, CUSTOM, 7, 2900, 10)]
    out = findings(run_cli, capture(tmp_path, kernels), "--findings", pack)
    (long_kernel,) = out["findings"]
    assert (long_kernel["title"], long_kernel["evidence"], long_kernel["caveat"]) == ("long Kernel2",
                                                                                      {"max_ns": 3000}, None)
    assert out["rule_set"]["files"] == ["long.sql"] and out["skipped"] == []
    # in a window, a finding whose rule's scope leaves the window out still names it
    windowed = findings(run_cli, capture(tmp_path, kernels), "--findings", pack, "--range", f"{T0 - 1000}:{T0 + 5000}")
    assert windowed["findings"][0]["scope"] == {"nvtx_group": f"range {T0 - 1000}:{T0 + 5000}",
                                                "kernel": long_kernel["scope"]["kernel"]}
    # the answer kept in the cache is the pack's: the default pack, asked next, answers anew
    assert [f["id"] for f in findings(run_cli, capture(tmp_path, kernels))["findings"]] == ["unclassified_kernel_time"]


@pytest.mark.parametrize(("sql", "message"), [
    (GOOD.replace("'low'", "'urgent'"), "severity 'urgent' is none of high, medium, low"),
    (GOOD.replace("'long_kernel' AS id", "'other_thing' AS id"), "emits undeclared finding 'other_thing'"),
    (GOOD.replace("max_ns AS gain", "max_ns * 100 AS gain"), "is not a time between 0 and the span, 4000 ns"),
    (GOOD.replace(", NULL AS caveat", ""), "must return caveat"),
    (GOOD.replace("{'kernel': kernel_key}", "{'thread': 1}"), "scope key(s) thread are none of"),
    (GOOD.replace("'{\"max_ns\": ' || max_ns || '}'", "'not json'"), "evidence is text that is not JSON"),
    (GOOD.replace("FROM top_kernels", "FROM read_csv('/etc/passwd'), top_kernels"), "finding rule failed"),
    ("-- finding: x | y\nCOPY (SELECT 1) TO 'out.csv'", "only a SELECT statement may run here"),
    ("-- finding: x | y\nSELECT 1; SELECT 2", "must be exactly one SQL statement"),
    ("SELECT 1", "declares no finding"),
    (GOOD.replace("'long_kernel' AS id", "['long_kernel'] AS id"), "emits undeclared finding ['long_kernel']"),
    (GOOD.replace("'{\"max_ns\": ' || max_ns || '}'", "{'raw': '\\xAA'::BLOB}"), "evidence holds a bytes"),
    (GOOD.replace("NULL AS caveat", "{'a': 1} AS caveat"), "caveat must be text"),
    (GOOD.replace("'long ' || short_name", "'long' || chr(10) || short_name"), "title holds a line break"),
    (GOOD.replace("'split it'", "'split' || chr(27) || '[31m it'"), "suggestion holds a line break or a control"),
    (GOOD.replace("{'kernel': kernel_key}", "{'device': [1, 2]}"), "scope values must be text or integers"),
    (GOOD.replace("max_ns AS gain", "INTERVAL 1 SECOND AS gain"), "gain_ceiling_ns"),
    (GOOD.replace("'{\"max_ns\": ' || max_ns || '}'", "{'at': 'infinity'::TIMESTAMP}"), "a value Python cannot hold"),
    (GOOD.replace("'long ' || short_name", "'long' || chr(155) || short_name"), "title holds a line break"),
    (GOOD.replace("-- finding: long_kernel |", "-- finding: long_kernel | x\n-- finding: long_kernel |"),
     "declares a finding twice"),
])
def test_a_rule_breaking_the_contract_is_refused(tmp_path, run_cli, sql, message):
    pack = write_rules(tmp_path / "pack", {"bad.sql": sql})
    kernels = [(0, 3000, GEMM, 7, -100, 10), (3000, 1000, CUSTOM, 7, 2900, 10)]
    result = run_cli("findings", capture(tmp_path, kernels), "--findings", pack)
    assert result.code == 2
    assert result.out == "" and len(result.err.strip().splitlines()) == 1
    assert message in result.err


def test_dates_in_evidence_are_iso_text(tmp_path, run_cli):
    pack = write_rules(tmp_path / "pack", {"long.sql": GOOD.replace(
        "'{\"max_ns\": ' || max_ns || '}'", "{'max_ns': max_ns, 'seen': DATE '2026-12-03'}")})
    kernels = [(0, 3000, GEMM, 7, -100, 10), (3000, 1000, CUSTOM, 7, 2900, 10)]
    (long_kernel,) = findings(run_cli, capture(tmp_path, kernels), "--findings", pack)["findings"]
    assert long_kernel["evidence"] == {"max_ns": 3000, "seen": "2026-12-03"}


def test_the_table_shows_nested_evidence_and_escapes_control_characters(tmp_path, run_cli):
    pack = write_rules(tmp_path / "pack", {"long.sql": GOOD.replace(
        "'{\"max_ns\": ' || max_ns || '}'", "{'max_ns': max_ns, 'split': {'parts_ns': 2000, 'how': 'halves'}}").replace(
        "{'kernel': kernel_key}", "{'kernel': kernel_key, 'device': 'x' || chr(27) || '[2J'}")})
    kernels = [(0, 3000, GEMM, 7, -100, 10), (3000, 1000, CUSTOM, 7, 2900, 10)]
    result = run_cli("findings", capture(tmp_path, kernels), "--findings", pack, "--format", "table")
    assert result.code == 0, result.err
    assert "\x1b" not in result.out and "x\\x1b[2J" in result.out
    assert "split halves (parts_ns 2.0 us)" in result.out


def test_two_files_declaring_one_finding_are_refused(tmp_path, run_cli):
    pack = write_rules(tmp_path / "pack", {"a.sql": GOOD, "b.sql": GOOD})
    result = run_cli("findings", capture(tmp_path, LAUNCH_BOUND), "--findings", pack)
    assert result.code == 2
    assert "b.sql: declares finding 'long_kernel', which a.sql declares too" in result.err


def test_a_rule_reading_what_is_missing_is_skipped(tmp_path, run_cli):
    sql = """-- finding: syncs | any synchronization call
SELECT 'syncs' AS id, 'low' AS severity, name AS title, {'calls': calls} AS evidence, {'device': device} AS scope,
       0 AS gain_ceiling_ns, 'none' AS suggestion, NULL AS caveat FROM sync_calls"""
    pack = write_rules(tmp_path / "pack", {"syncs.sql": sql})
    out = findings(run_cli, capture(tmp_path, SYNC_KERNELS, api=False), "--findings", pack)
    assert out["skipped"] == [{"id": "syncs", "rule_file": "syncs.sql",
                               "reason": "needs the CUDA API calls (a cuda_api_trace, or an nsys export with CUDA "
                                         "API calls)"}]


def test_llm_capture_first_finding_is_the_launch_bound_decode(run_cli):
    """The decode phase of the LLM capture (its NVTX ranges 'request N decode M') is CPU launch-bound; the ceiling
    is the decode group's CPU-launch idle time, computed here per nanosecond from the CSV files: idle time before a
    decode kernel (one launched inside a decode range), within the group's span, while no memory operation runs, no
    synchronization call is in progress and the kernel's launch call has not returned."""
    folder = DATA / "h200_llm_serve"
    ops, launches = read_csv(folder / "llm2_cuda_gpu_trace.csv"), read_csv(folder / "llm2_cuda_kern_exec_trace.csv")
    calls, ranges = read_csv(folder / "llm2_cuda_api_trace.csv"), read_csv(folder / "llm2_nvtx_pushpop_trace.csv")
    decode = [(int(r["Start (ns)"]), int(r["End (ns)"])) for r in ranges if " decode " in r["Name"]]
    timed = [(int(o["Start (ns)"]), int(o["Start (ns)"]) + int(o["Duration (ns)"]), o["Name"]) for o in ops]
    low, high = min(s for s, _, _ in timed), max(e for _, e, _ in timed)
    kernels = sorted((s, e) for s, e, name in timed if not name.startswith("[CUDA mem"))
    memops = [(s, e) for s, e, name in timed if name.startswith("[CUDA mem")]
    call_of = {int(r["Kernel Start (ns)"]): (int(r["API Start (ns)"]),
                                             int(r["API Start (ns)"]) + int(r["API Dur (ns)"])) for r in launches}
    in_decode = {s for s, _ in kernels if any(a <= call_of[s][0] < b for a, b in decode)}
    span_start = min([s for s in in_decode] + [s for s, _ in memops if any(a <= s < b for a, b in decode)])
    syncing = grid([(int(c["Start (ns)"]), int(c["Start (ns)"]) + int(c["Duration (ns)"])) for c in calls
                    if c["Name"] in ("cudaDeviceSynchronize", "cudaStreamSynchronize")], low, high)
    starts = np.array([s for s, _ in kernels])
    t = np.arange(low, high)
    following = np.searchsorted(starts, t + 1)  # the kernel that ends the idle stretch holding instant t
    next_start = np.append(starts, -1)[following]
    next_call_end = np.array([call_of[int(s)][1] for s in starts] + [low])[following]
    next_is_decode = np.isin(next_start, list(in_decode))
    cpu_launch = (~grid(kernels, low, high) & ~grid(memops, low, high) & ~syncing & (t < next_call_end)
                  & next_is_decode & (t >= span_start))
    out = findings(run_cli, folder / "llm2_cuda_gpu_trace.csv", "--by-nvtx", r"request \d+ (prefill|decode).*")
    first = out["findings"][0]
    assert (first["id"], first["scope"]["nvtx_group"], first["severity"]) == ("cpu_launch_bound", "decode", "high")
    assert first["gain_ceiling_ns"] == first["evidence"]["cpu_launch_ns"] == int(cpu_launch.sum())
    # the same from the .sqlite export, and as classify's idle causes of the decode group say
    sqlite = findings(run_cli, folder / "llm2.sqlite", "--by-nvtx", r"request \d+ (prefill|decode).*")
    assert sqlite["findings"][0] == first
    groups = run_cli("classify", folder / "llm2.sqlite", "--by-nvtx", r"request \d+ (prefill|decode).*").json()
    assert groups["groups"]["decode"]["idle"]["cpu_launch_ns"] == first["gain_ceiling_ns"]


def test_a_night_summarized_again_under_other_finding_rules(tmp_path, run_cli):
    traces, history = tmp_path / "night", tmp_path / "history"
    capture(traces, LAUNCH_BOUND)
    first = run_cli("summarize", traces, "--history", history, "--date", "2026-12-01")
    assert first.json()["written"] and run_cli("summarize", traces, "--history", history, "--date",
                                                "2026-12-01").json()["skipped"]
    pack = write_rules(tmp_path / "pack", {"long.sql": GOOD})
    assert run_cli("summarize", traces, "--history", history, "--date", "2026-12-01", "--findings",
                   pack).json()["written"]  # the pack is another version: the capture is summarized again
    import duckdb

    versions = duckdb.sql(f"SELECT DISTINCT finding_set_version FROM read_parquet('{history}/date=*/*.parquet')")
    assert len(versions.fetchall()) == 2


def test_the_nightly_history_keeps_each_findings_ceiling(tmp_path):
    from nsight_ingest import nightly

    capture(tmp_path, LAUNCH_BOUND)
    (named,) = nightly.discover(tmp_path)
    rows = nightly.capture_rows(named, nightly.RuleFolders())["rows"]
    assert {(r["component"], r["value"]) for r in rows if r["metric"] == "finding_gain_ceiling_ms"} == {
        ("cpu_launch_bound", 1800 / 1e6), ("tiny_kernels", 6300 / 1e6)}  # the launch-bound one's from its replay
    # a pack of one's own decides them
    pack = write_rules(tmp_path / "pack", {"long.sql": GOOD})
    rows = nightly.capture_rows(named, nightly.RuleFolders(findings=str(pack)))["rows"]
    assert [r["component"] for r in rows if r["metric"] == "finding_gain_ceiling_ms"] == []  # no kernel > 1000 ns


REAL = [  # (capture, options): real captures, launch-bound, communicating, copying pageable memory
    (DATA / "h200_llm_serve" / "llm2_cuda_gpu_trace.csv", ("--by-nvtx", r"request \d+ (prefill|decode).*")),
    (DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite", ()),
    (DATA / "public" / "saxpy_mpi_cuda_2022.sqlite", ()),
    (DATA / "h200_llm_serve" / "llm2.sqlite", ()),
]


@pytest.mark.parametrize(("path", "options"), REAL, ids=lambda value: getattr(value, "name", None))
def test_evidence_agrees_with_the_other_analyses(run_cli, path, options):
    """Every number a finding rests on is the one classify reports for the same device (and NVTX group)."""
    out = findings(run_cli, path, *options)
    classified = run_cli("classify", path, *options).json()
    groups = classified.get("groups", {None: classified})
    assert out["findings"]
    for finding in out["findings"]:
        summary = groups[finding["scope"].get("nvtx_group")]
        device = summary["devices"].get(finding["scope"].get("device"), {})
        evidence = finding["evidence"]
        if finding["id"] in ("cpu_launch_bound", "synchronization_stalls"):
            cause = "cpu_launch_ns" if finding["id"] == "cpu_launch_bound" else "synchronization_ns"
            assert (evidence[cause], evidence["kernel_idle_ns"], evidence["gpu_span_ns"]) == (
                device["idle"][cause], device["idle"]["kernel_idle_ns"], device["gpu_span_ns"])
            assert finding["gain_ceiling_ns"] == device["idle"][cause]
        elif finding["id"] == "exposed_communication":
            block = device["communication"]
            assert (evidence["time_ns"], evidence["overlapped_ns"], evidence["exposed_ns"]) == (
                block["time_ns"], block["overlapped_ns"], block["exposed_ns"])
            assert {c["collective"]: (c["time_ns"], c["exposed_ns"]) for c in evidence["by_collective"]} == {
                name: (c["time_ns"], c["exposed_ns"]) for name, c in block["by_collective"].items()}
        elif finding["id"] == "slow_memory_transfers":
            assert evidence["memory_transfer_idle_ns"] == device["idle"]["memory_transfer_ns"]
            assert finding["gain_ceiling_ns"] == min(evidence["flagged_ns"], evidence["memory_transfer_idle_ns"])
        elif finding["id"] == "transfer_bound":
            assert evidence["memory_transfer_ns"] == device["idle"]["memory_transfer_ns"] == finding["gain_ceiling_ns"]
        elif finding["id"] == "unclassified_kernel_time":
            assert evidence["other_time_ns"] / 1e6 == pytest.approx(summary["families"]["other"]["milliseconds"])
        elif finding["id"] == "tiny_kernels":
            assert evidence["cpu_launch_idle_ns"] <= device["idle"]["cpu_launch_ns"]
            assert evidence["kernels"] <= device["families"][finding["scope"]["family"]]["launches"]
    found = {f["id"] for f in out["findings"]}
    assert found <= {"cpu_launch_bound", "tiny_kernels", "exposed_communication", "slow_memory_transfers",
                     "transfer_bound", "synchronization_stalls", "unclassified_kernel_time"}


def test_the_real_captures_find_launch_waits_tiny_kernels_communication_and_copies(run_cli):
    found = {f["id"] for path, options in REAL for f in findings(run_cli, path, *options)["findings"]}
    assert found >= {"cpu_launch_bound", "tiny_kernels", "exposed_communication", "slow_memory_transfers"}
