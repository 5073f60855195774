"""graph.edges alone: what each node of a hand-built graph waits for, worked out by hand: stream and program order,
launches, a stream synchronization that waits for its own stream, a stream waiting for an event of another stream,
and a collective over two GPUs."""

from __future__ import annotations

from tests.sql.conftest import given

NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
NODES = ["node_id", "on_gpu", "category VARCHAR", "start_ns", "end_ns", "device VARCHAR", "stream_id", "pid", "tid",
         "corr_id", "name VARCHAR", "sync_kind VARCHAR", "sync_stream_id"]
# GPU A (process 1): K1 gemm on stream 7 [20,100); K2 all-reduce on stream 9 [100,150); K3 gemm on stream 7 [100,180).
# GPU B (process 2): K4 all-reduce [130,160), the other participant of K2's collective.
# Process 1's thread: launch K1 [0,10); record an event [12,14); make stream 9 wait for it [15,17); launch K2 [18,22)
# and K3 [23,25); synchronize stream 9 [30,200).
GPU = [(1, True, "kernel", 20, 100, "A", 7, None, None, 1, "gemm", None, None),
       (2, True, "kernel", 100, 150, "A", 9, None, None, 4, NCCL, None, None),
       (3, True, "kernel", 100, 180, "A", 7, None, None, 5, "gemm", None, None),
       (4, True, "kernel", 130, 160, "B", 5, None, None, 9, NCCL, None, None)]
CPU = [(101, False, "launch_call", 0, 10, None, None, 1, 1, 1, "cudaLaunchKernel", None, None),
       (102, False, "api_call", 12, 14, None, None, 1, 1, 2, "cudaEventRecord", None, None),
       (103, False, "api_call", 15, 17, None, None, 1, 1, 3, "cudaStreamWaitEvent", "stream_wait_event", 9),
       (104, False, "launch_call", 18, 22, None, None, 1, 1, 4, "cudaLaunchKernel", None, None),
       (105, False, "launch_call", 23, 25, None, None, 1, 1, 5, "cudaLaunchKernel", None, None),
       (106, False, "sync_call", 30, 200, None, None, 1, 1, 6, "cudaStreamSynchronize", "stream_synchronize", 9)]


def edges(scope, cpu=CPU) -> set[tuple]:
    given(scope, "graph.nodes", NODES, GPU + cpu)
    given(scope, "scope.ops", ["op_id", "op_kind VARCHAR"], [])
    given(scope, "scope.launches", ["api_start_ns"], [])
    given(scope, "scope.device_processes", ["device VARCHAR", "pid"], [("A", 1), ("B", 2)])
    given(scope, "classify.kernel_families", ["name VARCHAR", "family VARCHAR"],
          [(NCCL, "communication"), ("gemm", "gemm")])
    scope.build("graph.edges")
    return set(scope.con.execute("SELECT kind, src, dst, ready_ns, held_ns, at_end FROM graph_edges").fetchall())


def test_every_kind_of_edge(scope):
    """K2's stream waits for the event recorded after K1 was launched (K3 came later: not the event's), so K2 waits
    for K1's end; the stream synchronization waits for K2, the last of stream 9 (not K3, the last of the device);
    K2 ends no earlier than K4, its collective's other participant, arrived (K4 arrived later: it waited for none)."""
    assert edges(scope) == {
        ("stream", 1, 3, 100, 100, False),
        ("program", 101, 102, 10, 10, False), ("program", 102, 103, 14, 14, False),
        ("program", 103, 104, 17, 17, False), ("program", 104, 105, 22, 22, False),
        ("program", 105, 106, 25, 25, False),
        ("launch", 101, 1, 0, 10, False), ("launch", 104, 2, 18, 22, False), ("launch", 105, 3, 23, 25, False),
        ("sync", 2, 106, 150, 150, True),
        ("event", 1, 2, 100, 100, False),
        ("collective", 4, 2, 130, 130, True)}


def test_without_synchronization_records(scope):
    """A CSV report's calls say not what they waited for: no event edge, and the synchronization waits for the last
    operation of the device (K3)."""
    plain = [(*row[:-2], None, None) for row in CPU]
    found = edges(scope, plain)
    assert ("sync", 3, 106, 180, 180, True) in found and ("sync", 2, 106, 150, 150, True) not in found
    assert not {edge for edge in found if edge[0] == "event"}
