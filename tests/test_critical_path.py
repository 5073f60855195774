"""The critical-path command: the dependency graph of a hand-built capture and its path, worked out by hand; on the
real samples the path's segments tile the GPU span (checked against plain SQL over the store)."""

from __future__ import annotations

import pytest

from tests.conftest import (
    API_HEADER,
    DATA,
    GPU_HEADER,
    KERN_EXEC_HEADER,
    SAMPLES,
    kernel_row,
    launch_row,
    stored_gpu_span,
    write,
)

GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"

# One thread, one stream (ns):
#   c1 cudaLaunchKernel [0,10) -> K1 gemm [20,120)
#   c2 cudaLaunchKernel [30,40) -> K2 all-reduce [120,280) (it waits for K1 on the stream, not for c2)
#   c3 cudaStreamSynchronize [50,300): returns 20 ns after K2, the last operation to end before it returned
#   c4 cudaLaunchKernel [320,330) -> K3 gemm [350,400) (it waits for c4: 30 ns of launch latency)
# The path, back from K3: K3 50, launch latency 30, c4's start, CPU work 20 after c3 returned, c3's 20 ns after K2
# ended (synchronization), K2 160, K1 100 (reached by stream order): 380 = the GPU span [20,400).
KERNELS = [(20, 100, 11, GEMM), (120, 160, 12, ALL_REDUCE), (350, 50, 14, GEMM)]
CALLS = [(0, 10, "cudaLaunchKernel", 11), (30, 10, "cudaLaunchKernel", 12), (50, 250, "cudaStreamSynchronize", 13),
         (320, 10, "cudaLaunchKernel", 14)]


def capture(folder, api: bool = True, kern_exec: bool = False):
    """The hand-built capture's CSV set in `folder`."""
    gpu = write(folder / "cp_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(start, duration, name, corr_id=corr) for start, duration, corr, name in KERNELS])
    if api:
        write(folder / "cp_cuda_api_trace.csv", API_HEADER,
              [f"{s},{d},{name},0,{corr},1,1,20,python" for s, d, name, corr in CALLS])
    if kern_exec:
        launches = [(0, 10, 20, 100, GEMM), (30, 10, 120, 160, ALL_REDUCE), (320, 10, 350, 50, GEMM)]
        write(folder / "cp_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, [launch_row(*row) for row in launches])
    return gpu


def test_the_hand_built_path(tmp_path, run_cli):
    result = run_cli("critical-path", capture(tmp_path))
    assert result.code == 0, result.err
    out = result.json()
    assert (out["span_ns"], out["critical_path_ns"]) == (380, 380)
    assert out["composition"] == {"gpu_kernels": 150, "communication": 160, "memory_transfer": 0, "launch_calls": 0,
                                  "launch_latency": 30, "cpu_api": 0, "cpu_work": 20, "synchronization": 20,
                                  "communication_wait": 0, "event_wait": 0, "gpu_gap": 0, "idle": 0}
    assert out["composition_percent"]["communication"] == pytest.approx(100 * 160 / 380)
    assert out["gpu_by_family"] == {"communication": 160, "gemm": 150}
    assert out["gpu_by_component"] == {"other": 310}
    assert [(n["category"], n["short_name"], n["time_ns"], n["segments"]) for n in out["nodes"]] == [
        ("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 160, 1), ("kernel", "Kernel2", 150, 2),
        ("launch_latency", "Kernel2", 30, 1), ("cpu_work", "cudaLaunchKernel", 20, 1),
        ("synchronization", "cudaStreamSynchronize", 20, 1)]
    assert out["graph"]["nodes"] == {"cpu": 4, "gpu": 3}
    # stream K1->K2->K3; program c1->c2->c3->c4; launches c1, c2, c4; c3 waited for K2
    assert out["graph"]["edges"] == {"launch": 3, "program": 3, "stream": 2, "sync": 1}
    assert out["stopped"] is False
    table = run_cli("critical-path", capture(tmp_path), "--format", "table").out
    assert "launch latency" in table and "cudaStreamSynchronize" in table


def test_a_window_has_its_own_path(tmp_path, run_cli):
    """In the window [300,400) the GPU span is K3's [350,400): the path is K3 alone."""
    out = run_cli("critical-path", capture(tmp_path), "--range", "300:400").json()
    assert (out["span_ns"], out["critical_path_ns"]) == (50, 50)
    assert out["composition"]["gpu_kernels"] == 50 and out["window"]


def test_without_an_api_trace_the_graph_is_thinner_and_says_so(tmp_path, run_cli):
    """With the kern_exec trace alone the CPU calls are the three launch calls: K3 waits for c4 (launch latency 30),
    c4 for c2 on the thread (CPU work [40,320): the synchronization call is not in the capture), c2 [30,40) for c1
    (CPU work [20,30) within the span): 50 + 30 + 280 + 10 + 10 = 380. Without any CPU call the path is the
    stream's kernels and the gap between K2 and K3: 50 + 70 + 160 + 100."""
    out = run_cli("critical-path", capture(tmp_path, api=False, kern_exec=True)).json()
    assert out["graph"]["edges"] == {"launch": 3, "program": 2, "stream": 2}
    assert out["composition"] == {"gpu_kernels": 50, "communication": 0, "memory_transfer": 0, "launch_calls": 10,
                                  "launch_latency": 30, "cpu_api": 0, "cpu_work": 290, "synchronization": 0,
                                  "communication_wait": 0, "event_wait": 0, "gpu_gap": 0, "idle": 0}
    assert "no cuda_api_trace" in out["graph"]["missing"][0]
    (tmp_path / "bare").mkdir()
    bare = run_cli("critical-path", capture(tmp_path / "bare", api=False)).json()
    assert bare["graph"]["edges"] == {"stream": 2}
    assert bare["composition"] == {"gpu_kernels": 150, "communication": 160, "memory_transfer": 0, "launch_calls": 0,
                                   "launch_latency": 0, "cpu_api": 0, "cpu_work": 0, "synchronization": 0,
                                   "communication_wait": 0, "event_wait": 0, "gpu_gap": 70, "idle": 0}
    assert "no cuda_api_trace or kern_exec trace" in bare["graph"]["missing"][0]


@pytest.mark.parametrize("path", [SAMPLES / "h200_llm_serve.sqlite", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv",
                                  DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"],
                         ids=["llm", "dit_graph", "two_gpus"])
def test_the_path_tiles_the_span_of_real_captures(tmp_path, run_cli, path):
    """The path's length is the GPU span, computed here from the store's rows; its composition adds up to it."""
    db = tmp_path / "store.duckdb"
    out = run_cli("critical-path", path, "--db", db).json()
    span = stored_gpu_span(db)
    assert out["span_ns"] == out["critical_path_ns"] == span
    assert sum(out["composition"].values()) == span
    assert sum(out["gpu_by_family"].values()) == out["composition"]["gpu_kernels"] + out["composition"][
        "communication"]


def test_a_call_of_negative_duration_is_left_out(tmp_path, run_cli):
    """c3 exported with -250 ns (damaged) is no node: K3's launch call c4 then follows c2 on the thread, as with the
    kern_exec trace alone, and the path still tiles the span."""
    calls = [(s, -250 if name == "cudaStreamSynchronize" else d, name, corr) for s, d, name, corr in CALLS]
    gpu = capture(tmp_path, api=False)
    write(tmp_path / "cp_cuda_api_trace.csv", API_HEADER,
          [f"{s},{d},{name},0,{corr},1,1,20,python" for s, d, name, corr in calls])
    out = run_cli("critical-path", gpu).json()
    assert out["graph"]["nodes"] == {"cpu": 3, "gpu": 3} and out["critical_path_ns"] == out["span_ns"] == 380
    assert out["composition"]["cpu_work"] == 290 and out["composition"]["synchronization"] == 0


def test_each_nvtx_group_has_a_path_that_tiles_its_span(run_cli):
    out = run_cli("critical-path", SAMPLES / "h200_llm_serve.sqlite", "--by-nvtx", r"request (\d+) decode .*").json()
    assert len(out["groups"]) > 1
    for group in out["groups"].values():
        assert group["critical_path_ns"] == group["span_ns"] == sum(group["composition"].values()) > 0
        assert group["ranges"] >= 1  # the group's NVTX figures, for the row per group
    table = run_cli("critical-path", SAMPLES / "h200_llm_serve.sqlite", "--by-nvtx", r"request (\d+) decode .*",
                    "--format", "table").out
    assert "groups" in table and "composition of the critical path" in table
