"""ranks.kernels alone, on gpu_ops rows stored here: each rank's kernels of its trace and device, inside its
window, with their NCCL collective and its ordinal per rank and collective in start order.

    trace 1, device A (rank 0):  gemm@0  allreduce@10  gemm@20  allgather@30  allreduce@40  memcpy@50
    trace 1, device B (rank 1):  allreduce@5 (window [0, 100): kept)   allreduce@200 (outside the window)
    a kernel with a negative duration is left out
"""

from __future__ import annotations

from tests.sql.conftest import given, store_rows

GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
ALL_GATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
OPS = [  # trace_id, device, op_kind, stream_id, start_ns, duration_ns, name
    (1, "A", "kernel", 7, 0, 5, GEMM), (1, "A", "kernel", 20, 10, 5, ALL_REDUCE), (1, "A", "kernel", 7, 20, 5, GEMM),
    (1, "A", "kernel", 21, 30, 5, ALL_GATHER), (1, "A", "kernel", 20, 40, 5, ALL_REDUCE),
    (1, "A", "memcpy", 7, 50, 5, "[CUDA memcpy Host-to-Device]"), (1, "A", "kernel", 7, 60, -1, GEMM),
    (1, "B", "kernel", 20, 5, 5, ALL_REDUCE), (1, "B", "kernel", 20, 200, 5, ALL_REDUCE)]


def test_collectives_numbered_per_rank_and_collective_in_start_order(scope):
    store_rows(scope.con, "gpu_ops", ["trace_id", "device", "op_kind", "stream_id", "start_ns", "duration_ns", "name"],
               OPS)
    given(scope, "ranks.sources", ["rank", "trace_id", "device", "window_start_ns", "window_end_ns"],
          [(0, 1, "A", None, None), (1, 1, "B", 0, 100)])
    scope.build("ranks.kernels")
    rows = scope.con.execute("SELECT rank, stream_id, start_ns, end_ns, duration_ns, name = $gemm, collective, ordinal "
                             "FROM rank_kernels ORDER BY rank, start_ns", {"gemm": GEMM}).fetchall()
    assert rows == [
        (0, 7, 0, 5, 5, True, None, None), (0, 20, 10, 15, 5, False, "all_reduce", 1),
        (0, 7, 20, 25, 5, True, None, None), (0, 21, 30, 35, 5, False, "all_gather", 1),
        (0, 20, 40, 45, 5, False, "all_reduce", 2),
        (1, 20, 5, 10, 5, False, "all_reduce", 1)]
