"""Communication overlap, busy as a union and GPU idle by cause, end to end: on a hand-built capture whose every
number is worked out below, on generated ranks against a brute-force nanosecond grid, and on real captures against
plain SQL and Python written here."""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from nsight_ingest import history
from tests.conftest import API_HEADER, DATA, GPU_HEADER, KERN_EXEC_HEADER, kernel_row, launch_row, memop_row, write
from tests.intervals import grid, intersection_length, length, read_csv, subtract, union
from tools.gen_ranks import NCCL, generate

GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
ALL_GATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
T0 = 1_000_000

# One device, times relative to T0 (ns); the picture is that of tests/sql/test_idle.py and test_communication.py:
#   K1 gemm [0,100) stream 7, launch call [-20,-10)      memcpy [100,150)
#   K2 gemm [250,400) stream 7, launch call [210,220)    sync call [120,180)
#   R  all-reduce [300,500) stream 20, call [280,290)    G all-gather [450,520) stream 21, call [430,440)
#   K5 gemm [510,600) stream 7, call [495,505)           memset [600,650)
# span 650; kernel union [0,100) + [250,600) = 450; kernel time 100 + 150 + 200 + 70 + 90 = 610
# idle 200: [100,150) memory 50, [150,180) synchronization 30, [180,220) CPU launch 40, [220,250) other 30,
#           [600,650) memory 50
# communication union [300,520) = 220, overlapped by gemms [300,400) + [510,520) = 110, exposed 110
KERNELS = [(0, 100, GEMM, 7, -20), (250, 150, GEMM, 7, 210), (300, 200, ALL_REDUCE, 20, 280),
           (450, 70, ALL_GATHER, 21, 430), (510, 90, GEMM, 7, 495)]
MEMOPS = [(100, 50, "[CUDA memcpy Host-to-Device]"), (600, 50, "[CUDA memset]")]
CALLS = [(90, 5, "cudaMemcpyAsync"), (120, 60, "cudaStreamSynchronize"), (590, 5, "cudaMemsetAsync")]


def capture(folder, kernels=KERNELS, calls=CALLS, api=True):
    """The hand-built capture's CSV set in `folder` (with a cuda_api_trace sibling when `api`)."""
    folder.mkdir(exist_ok=True)
    gpu = write(folder / "hand_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(T0 + s, d, name, stream=stream) for s, d, name, stream, _ in kernels]
                + [memop_row(T0 + s, d, name) for s, d, name in MEMOPS])
    write(folder / "hand_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER,
          [launch_row(T0 + call, 10, T0 + s, d, name) for s, d, name, _, call in kernels])
    if api:  # the launch calls, then the others; correlation id 1 is the kernels' (kernel_row), 2 the memops'
        rows = [f"{T0 + call},10,cudaLaunchKernel,0,1,1,1,20,python" for *_, call in kernels]
        rows += [f"{T0 + s},{d},{name},0,{2 if 'Sync' not in name else 9},1,1,20,python" for s, d, name in calls]
        write(folder / "hand_cuda_api_trace.csv", API_HEADER, rows)
    return gpu


def test_hand_built_capture(tmp_path, run_cli):
    gpu = capture(tmp_path)
    out = run_cli("classify", str(gpu)).json()
    assert out["idle"] == {"kernel_idle_ns": 200, "inactive_ns": 0, "untraced_graph_ns": 0,
                           "memory_transfer_ns": 100, "synchronization_ns": 30,
                           "cpu_launch_ns": 40, "other_ns": 30}
    assert out["kernel_union_percent_of_span"] == pytest.approx(100 * 450 / 650)
    assert out["kernel_busy_percent_of_span"] == pytest.approx(100 * 610 / 650)  # the summed share, above it
    assert out["communication"] == {
        "time_ns": 220, "overlapped_ns": 110, "exposed_ns": 110, "overlap_percent": 50.0, "kernels": 2,
        "by_collective": {"all_reduce": {"time_ns": 200, "overlapped_ns": 100, "exposed_ns": 100,
                                         "overlap_percent": 50.0},
                          "all_gather": {"time_ns": 70, "overlapped_ns": 10, "exposed_ns": 60,
                                         "overlap_percent": pytest.approx(100 / 7)}},
        "by_stream": {"20": {"time_ns": 200, "overlapped_ns": 100, "exposed_ns": 100, "overlap_percent": 50.0},
                      "21": {"time_ns": 70, "overlapped_ns": 10, "exposed_ns": 60,
                             "overlap_percent": pytest.approx(100 / 7)}}}
    device = out["devices"]["NVIDIA H200 (0)"]
    assert (device["idle"], device["communication"]) == (out["idle"], out["communication"])
    assert device["kernel_union_percent_of_span"] == out["kernel_union_percent_of_span"]

    launches = run_cli("launches", str(gpu)).json()
    assert launches["idle"] == out["idle"]
    # one gap between kernels: K1 ends at 100, K2 starts at 250; it holds every cause but the memset's
    (gap,) = launches["largest_gaps"]
    assert (gap["gap_ns"], gap["gap_start_ns"], gap["gap_end_ns"]) == (150, T0 + 100, T0 + 250)
    assert (gap["memory_transfer_ns"], gap["synchronization_ns"], gap["cpu_launch_ns"], gap["other_ns"]) == (
        50, 30, 40, 30)
    assert gap["idle_cause"] == "memory_transfer"
    # calls in progress during [100,250): the synchronization (60 ns of it) and K2's launch call (10)
    assert [(c["name"], c["overlap_ns"]) for c in gap["api_calls"]] == [("cudaStreamSynchronize", 60),
                                                                         ("cudaLaunchKernel", 10)]
    assert gap["api_call_count"] == 2
    assert run_cli("launches", str(gpu), "--gap-calls", "1").json()["largest_gaps"][0]["api_calls"][0][
        "name"] == "cudaStreamSynchronize"


def test_without_an_api_trace_synchronization_is_unknown(tmp_path, run_cli):
    result = run_cli("classify", str(capture(tmp_path, api=False)))
    assert result.code == 0, result.err
    # the synchronization's 30 ns fall to the later causes: CPU launch to 220, then other
    assert result.json()["idle"] == {"kernel_idle_ns": 200, "inactive_ns": 0, "untraced_graph_ns": None,
                                     "memory_transfer_ns": 100, "synchronization_ns": None,
                                     "cpu_launch_ns": 70, "other_ns": 30}
    assert "idle cause synchronization_ns is null" in result.err
    assert result.err.count("synchronization_ns is null") == 1
    # each cause says what it was told from, and an unknown one what the capture lacks
    assert result.json()["idle_inputs"] == {
        "relied_on": {"inactive_ns": ["gpu_trace"], "memory_transfer_ns": ["gpu_trace"],
                      "cpu_launch_ns": ["gpu_trace", "kernel_exec_trace"], "other_ns": ["gpu_trace"]},
        "unknown": {"untraced_graph_ns": "no CUDA API trace (cuda_api_trace) to show CUDA graph replays",
                    "synchronization_ns": "no CUDA API trace (cuda_api_trace)"}}


def test_a_capture_without_communication(tmp_path, run_cli):
    gpu = capture(tmp_path, kernels=[k for k in KERNELS if k[2] == GEMM])
    out = run_cli("classify", str(gpu)).json()
    assert out["communication"] is None and out["devices"]["NVIDIA H200 (0)"]["communication"] is None
    assert not any(r["metric"].endswith("communication_ms") for r in history.metric_rows(
        out, run_cli("launches", str(gpu)).json()))


def test_compare_and_history(tmp_path, run_cli):
    """B moves the all-gather under K5: [510,580) is hidden whole; exposed falls from 110 to 100 - 0 = 100 and the
    union of communication to [300,500) + [510,580) = 270."""
    a = capture(tmp_path / "a")
    moved = [k if k[2] != ALL_GATHER else (510, 70, ALL_GATHER, 21, 430) for k in KERNELS]
    b = capture(tmp_path / "b", kernels=moved)
    out = run_cli("compare", str(a), str(b)).json()
    assert out["communication"]["exposed_ns"] == {"a": 110, "b": 100, "delta": -10, "delta_percent":
                                                  pytest.approx(-100 / 11)}
    assert out["communication"]["time_ns"]["b"] == 270
    assert out["idle"]["synchronization_ns"]["delta"] == 0
    gated = run_cli("compare", str(a), str(b), "--fail-above", "5", "--gate-metric", "exposed_communication_ms")
    assert gated.code == 0 and gated.json()["gate"]["verdict"] == "better"
    worse = run_cli("compare", str(b), str(a), "--fail-above", "5", "--gate-metric", "exposed_communication_ms")
    assert worse.code == 1 and worse.json()["verdict"] == "worse"

    summary, launches = run_cli("classify", str(a)).json(), run_cli("launches", str(a)).json()
    rows = {(r["metric"], r["component"]): r["value"] for r in history.metric_rows(summary, launches)}
    assert rows[("exposed_communication_ms", None)] == pytest.approx(110e-6)
    assert rows[("communication_overlap_percent", None)] == 50.0
    assert rows[("kernel_idle_ms", None)] == pytest.approx(200e-6)
    assert {cause: rows[("idle_cause_ms", cause)] for cause in ("memory_transfer", "synchronization", "cpu_launch",
                                                                "other")} == pytest.approx(
        {"memory_transfer": 100e-6, "synchronization": 30e-6, "cpu_launch": 40e-6, "other": 30e-6})
    assert history.METRICS["exposed_communication_ms"].direction == "up"
    assert history.METRICS["communication_overlap_percent"].direction == "down"


def test_generated_ranks_against_a_nanosecond_grid(tmp_path, run_cli):
    truth = generate(tmp_path, ranks=2, overlap=True, offsets=[0, 0])
    out = run_cli("ranks", *map(str, truth.files)).json()
    for rank, intervals in enumerate(truth.intervals):
        low, high = min(s for s, _, _ in intervals), max(e for _, e, _ in intervals)
        computing = grid([(s, e) for s, e, kind in intervals if kind in ("compute", "overlap")], low, high)
        expected = {}
        for collective in [None, *NCCL]:
            communicating = grid([(s, e) for s, e, kind in intervals
                                  if kind in NCCL and collective in (None, kind)], low, high)
            expected[collective] = (int(communicating.sum()), int((communicating & computing).sum()))
        assert 0 < expected[None][1] < expected[None][0]  # some overlap, not all
        block = out["ranks"][rank]["communication"]
        assert (block["time_ns"], block["overlapped_ns"]) == expected[None]
        assert block["exposed_ns"] == expected[None][0] - expected[None][1]
        for collective in NCCL:
            entry = block["by_collective"][collective]
            assert (entry["time_ns"], entry["overlapped_ns"]) == expected[collective]
        assert list(block["by_stream"]) == ["20"]
        # the same rank alone, through classify (its own clock: offsets are 0)
        alone = run_cli("classify", str(truth.files[rank])).json()["communication"]
        assert (alone["time_ns"], alone["overlapped_ns"]) == expected[None]
        busy = grid([(s, e) for s, e, _ in intervals], low, high)
        assert run_cli("classify", str(truth.files[rank])).json()["kernel_union_percent_of_span"] == pytest.approx(
            100 * busy.sum() / (high - low))


def sqlite_kernels(path):
    """(deviceId, start, end, is NCCL) of every kernel of an nsys .sqlite export, read with plain SQL."""
    with sqlite3.connect(path) as con:
        return con.execute("SELECT k.deviceId, k.start, k.\"end\", s.value LIKE 'nccl%' FROM "
                           "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName").fetchall()


def expected_overlap(kernels):
    """Per device: (communication union, its intersection with the union of the other kernels)."""
    result = {}
    for device in sorted({k[0] for k in kernels}):
        nccl = union([(s, e) for d, s, e, is_nccl in kernels if d == device and is_nccl])
        other = union([(s, e) for d, s, e, is_nccl in kernels if d == device and not is_nccl])
        result[device] = (sum(e - s for s, e in nccl), intersection_length(nccl, other))
    return result


def shift_nccl_earlier(path):
    """Move every NCCL kernel of the export to start halfway through the kernel before it on its device."""
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT k.rowid, k.deviceId, k.start, k.\"end\", s.value LIKE 'nccl%' FROM "
                           "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                           "ORDER BY k.deviceId, k.start").fetchall()
        for (_, device, start, end, _), (rowid, next_device, next_start, next_end, is_nccl) in itertools.pairwise(rows):
            if is_nccl and device == next_device:
                begin = (start + end) // 2
                con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = ?, \"end\" = ? WHERE rowid = ?",
                            [begin, begin + next_end - next_start, rowid])


@pytest.mark.parametrize("moved", [False, True], ids=["as captured", "nccl moved earlier"])
def test_real_two_gpu_capture(tmp_path, run_cli, moved):
    """The 2-GPU NCCL capture: its SendRecv kernels never run beside compute; moved earlier, they do."""
    path = tmp_path / "two_gpu.sqlite"
    shutil.copy(DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite", path)
    if moved:
        shift_nccl_earlier(path)
    expected = expected_overlap(sqlite_kernels(path))
    out = run_cli("classify", str(path)).json()
    for device, (time_ns, overlapped_ns) in expected.items():
        block = out["devices"][f"GPU ({device})"]["communication"]
        assert (block["time_ns"], block["overlapped_ns"]) == (time_ns, overlapped_ns)
        assert block["by_collective"]["send_recv"]["time_ns"] == time_ns
    assert (out["communication"]["overlapped_ns"] > 0) == moved
    assert out["communication"]["exposed_ns"] == sum(t - o for t, o in expected.values())
    ranks = run_cli("ranks", str(path)).json()  # one capture of two GPUs: a shared clock, the same figures
    assert [(r["communication"]["time_ns"], r["communication"]["overlapped_ns"]) for r in ranks["ranks"]] == [
        expected[device] for device in sorted(expected)]


def test_llm_capture_idle_causes_against_a_grid(run_cli):
    """Each nanosecond of the LLM capture's span, classified by numpy from the CSV files: no kernel running, then
    the first cause that holds."""
    folder = DATA / "h200_llm_serve"
    ops = read_csv(folder / "llm2_cuda_gpu_trace.csv")
    launches = read_csv(folder / "llm2_cuda_kern_exec_trace.csv")
    calls = read_csv(folder / "llm2_cuda_api_trace.csv")
    timed = [(int(o["Start (ns)"]), int(o["Start (ns)"]) + int(o["Duration (ns)"]), o["Name"]) for o in ops]
    low, high = min(s for s, _, _ in timed), max(e for _, e, _ in timed)
    kernels = [(s, e) for s, e, name in timed if not name.startswith("[CUDA mem")]
    running = grid(kernels, low, high)
    memory = grid([(s, e) for s, e, name in timed if name.startswith("[CUDA mem")], low, high)
    syncing = grid([(int(c["Start (ns)"]), int(c["Start (ns)"]) + int(c["Duration (ns)"])) for c in calls
                    if c["Name"].split("_v")[0] in ("cudaDeviceSynchronize", "cudaStreamSynchronize",
                                                    "cudaEventSynchronize")], low, high)
    # per nanosecond, the launch-call end of the next kernel to start (kernels start at distinct times here)
    launch_end = {int(r["Kernel Start (ns)"]): int(r["API Start (ns)"]) + int(r["API Dur (ns)"]) for r in launches}
    assert len(launch_end) == len(launches) == len(kernels)
    starts = np.array(sorted({s for s, _ in kernels}))
    t = np.arange(low, high)
    following = np.searchsorted(starts, t + 1)  # the first kernel starting after instant t
    next_end = np.array([launch_end.get(int(s), low) for s in starts] + [low])[following]
    idle = ~running
    expected = {
        "kernel_idle_ns": int(idle.sum()),
        "inactive_ns": 0,  # one GPU: its span is the capture's
        "untraced_graph_ns": 0,  # every cudaGraphLaunch's kernels are in the trace
        "memory_transfer_ns": int((idle & memory).sum()),
        "synchronization_ns": int((idle & ~memory & syncing).sum()),
        "cpu_launch_ns": int((idle & ~memory & ~syncing & (t < next_end)).sum()),
    }
    expected["other_ns"] = expected["kernel_idle_ns"] - sum(v for k, v in expected.items() if k != "kernel_idle_ns")
    assert all(v for k, v in expected.items() if k not in ("inactive_ns", "untraced_graph_ns"))  # the four happen
    out = run_cli("classify", str(folder / "llm2_cuda_gpu_trace.csv")).json()
    assert out["idle"] == expected
    assert sum(v for k, v in out["idle"].items() if k != "kernel_idle_ns") == out["idle"]["kernel_idle_ns"]
    assert out["kernel_union_percent_of_span"] == pytest.approx(100 * running.sum() / (high - low))
    # the .sqlite export of the same capture gives the same causes
    assert run_cli("classify", str(folder / "llm2.sqlite")).json()["idle"] == expected


def test_two_processes_idle_causes_against_plain_sql(run_cli):
    """Each GPU of the 2-process capture is worked by its own process: only that process's synchronization calls
    count on it (correlation ids repeat across processes). Worked out with sqlite3 and interval arithmetic."""
    path = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"
    with sqlite3.connect(path) as con:
        kernels = con.execute("SELECT deviceId, start, \"end\", (globalPid >> 24) & 16777215, correlationId "
                              "FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
        memory = con.execute("SELECT deviceId, start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
                             "SELECT deviceId, start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchall()
        calls = con.execute("SELECT r.start, r.\"end\", (r.globalTid >> 24) & 16777215, r.correlationId, s.value "
                            "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId").fetchall()
    call_end = {(pid, corr): end for _, end, pid, corr, _ in calls}
    everything = [(s, e) for _, s, e, *_ in kernels] + [(s, e) for _, s, e in memory]
    capture_span = max(e for _, e in everything) - min(s for s, _ in everything)
    out = run_cli("classify", str(path)).json()
    for device in (0, 1):
        mine = [k for k in kernels if k[0] == device]
        (pid,) = {k[3] for k in mine}
        ops = [(s, e) for d, s, e, *_ in mine] + [(s, e) for d, s, e in memory if d == device]
        span = [(min(s for s, _ in ops), max(e for _, e in ops))]
        idle = subtract(span, union([(s, e) for _, s, e, *_ in mine]))
        copying = union([(s, e) for d, s, e in memory if d == device])
        syncs = union([(s, e) for s, e, p, _, name in calls if p == pid and "Synchronize" in name])
        launch_end = {}  # per kernel start: the earliest end of a launch call of a kernel starting then
        for _, start, _, _, corr in mine:
            if (pid, corr) in call_end:  # a kernel whose call the export lacks has no launch row
                launch_end[start] = min(launch_end.get(start, call_end[(pid, corr)]), call_end[(pid, corr)])
        waiting = []  # each idle stretch up to its next kernel's launch call end
        for start, end in idle:
            if end in launch_end and launch_end[end] > start:
                waiting.append((start, min(end, launch_end[end])))
        after_memory = subtract(idle, copying)
        after_sync = subtract(after_memory, syncs)
        inactive = capture_span - length(span)  # the capture's span before the GPU's first operation, after its last
        expected = {"kernel_idle_ns": length(idle) + inactive, "inactive_ns": inactive, "untraced_graph_ns": 0,
                    "memory_transfer_ns": length(idle) - length(after_memory),
                    "synchronization_ns": length(after_memory) - length(after_sync),
                    "cpu_launch_ns": length(after_sync) - length(subtract(after_sync, waiting))}
        expected["other_ns"] = length(subtract(after_sync, waiting))
        assert out["devices"][f"GPU ({device})"]["idle"] == expected
    # union busy and idle are over the same span: together they are the span on each of the two GPUs
    assert out["kernel_union_percent_of_span"] + 100 * out["idle"]["kernel_idle_ns"] / (2 * capture_span) \
        == pytest.approx(100)


def test_every_gate_metric_has_a_worse_direction():
    from nsight_ingest.analysis.compare import GATE_METRICS
    assert all(history.METRICS[metric].direction in ("up", "down") for metric in GATE_METRICS)


def test_ranks_answer_follows_the_family_rules(tmp_path, run_cli):
    """The ranks' communication kernels come from the family rules: other rules, another answer (not a cached one)."""
    path = str(DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite")
    families = tmp_path / "families"
    shutil.copytree(Path(__file__).resolve().parent.parent / "sql" / "families", families)
    (families / "03_communication.sql").write_text(
        "-- family: communication | nothing\nSELECT name, 'communication' AS family, 10 AS priority "
        "FROM kernel_names WHERE false\n", encoding="utf-8")
    assert run_cli("ranks", path).json()["communication"]["time_ns"] == 25_401_752
    assert run_cli("ranks", path, "--families", str(families)).json()["communication"] is None
