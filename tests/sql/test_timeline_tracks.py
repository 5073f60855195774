"""The timeline modules alone: counters binned by hand, launch calls paired with their kernels, API calls on their
threads."""

from __future__ import annotations

from tests.sql.conftest import given

A, B = "GPU A", "GPU B"


def test_counters_bin_the_union_and_each_family(scope):
    """Span [0,90) in --bins 3: bins of 30 ns. Device A: gemm [0,40) and gemm [20,50) on two streams, a copy kernel
    [70,80); device B: a copy kernel [10,90).

        ns/10      0 1 2 3 4 5 6 7 8
        A gemm     gggg
        A gemm         ggg
        A copy                 c
        B copy       ccccccccc (to 90)

    A busy (union [0,50) + [70,80)): [0,30) 30, [30,60) 20, [60,90) 10; A gemm summed: [0,30) 30 + 10 = 40,
    [30,60) 10 + 20 = 30, [60,90) 0; A memory: 0, 0, 10. B busy and memory: [10,30) 20, 30, 30."""
    given(scope, "scope.ops", ["op_kind", "device", "start_ns", "end_ns"],
          [("kernel", A, 0, 40), ("kernel", A, 20, 50), ("kernel", A, 70, 80), ("kernel", B, 10, 90)])
    given(scope, "scope.kernels", ["device", "start_ns", "end_ns", "name_id"],
          [(A, 0, 40, 1), (A, 20, 50, 1), (A, 70, 80, 2), (B, 10, 90, 2)])
    given(scope, "classify.kernel_families", ["name_id", "family"], [(1, "gemm"), (2, "memory")])
    rows = [tuple(r.values()) for r in scope.rows("timeline.counters", bins=3)]
    assert rows == [
        (A, None, 0, 30, 30), (A, None, 30, 30, 20), (A, None, 60, 30, 10),
        (A, "gemm", 0, 30, 40), (A, "gemm", 30, 30, 30), (A, "gemm", 60, 30, 0),
        (A, "memory", 0, 30, 0), (A, "memory", 30, 30, 0), (A, "memory", 60, 30, 10),
        (B, None, 0, 30, 20), (B, None, 30, 30, 30), (B, None, 60, 30, 30),
        (B, "memory", 0, 30, 20), (B, "memory", 30, 30, 30), (B, "memory", 60, 30, 30),
    ]


def test_counters_last_bin_ends_at_the_span(scope):
    """Span [0,100) in 3 bins: width 34 (100/3 rounded up), the last bin [68,100) is 32 wide."""
    given(scope, "scope.ops", ["op_kind", "device", "start_ns", "end_ns"], [("kernel", A, 0, 100)])
    given(scope, "scope.kernels", ["device", "start_ns", "end_ns", "name_id"], [(A, 0, 100, 1)])
    given(scope, "classify.kernel_families", ["name_id", "family"], [(1, "gemm")])
    busy = [(r["bin_start_ns"], r["bin_ns"], r["time_ns"]) for r in scope.rows("timeline.counters", bins=3)
            if r["family"] is None]
    assert busy == [(0, 34, 34), (34, 34, 34), (68, 32, 32)]


def test_launch_rows_pair_with_their_kernels_in_order(scope):
    """Two kernels of device 0 start at 100 on two streams (op ids 5 and 6), launched by calls at 10 and 20 (one
    per row): they pair in order. A row whose kernel is not in the scope (start 900) has no op_id; device 1's
    kernel at 100 pairs with device 1's row."""
    given(scope, "timeline.ops", ["op_id", "op_kind", "device_index", "start_ns"],
          [(5, "kernel", 0, 100), (6, "kernel", 0, 100), (7, "kernel", 1, 100), (8, "memcpy", 0, 50)])
    given(scope, "scope.launches", ["api_start_ns", "api_duration_ns", "kernel_start_ns", "pid", "tid",
                                    "device_index", "api_function"],
          [(20, 5, 100, 1, 1, 0, "cudaLaunchKernel"), (10, 5, 100, 1, 1, 0, "cudaLaunchKernel"),
           (30, 5, 100, 1, 2, 1, "cudaLaunchKernel"), (40, 5, 900, 1, 1, 0, "cudaLaunchKernel")])
    given(scope, "scope.api_calls", ["start_ns", "duration_ns", "name", "corr_id", "pid", "tid"],
          [(10, 5, "cudaLaunchKernel", 1, 1, 1)])  # launch rows there: the API calls make no flows
    given(scope, "scope.device_processes", ["device", "pid"], [(A, 1)])
    assert flows(scope) == [(1, 10, 1, 5), (2, 20, 1, 6), (3, 30, 2, 7), (None, 40, 1, None)]


def flows(scope) -> list[tuple]:
    scope.build("timeline.launch_flows")
    return scope.con.execute("SELECT flow_id, api_start_ns, tid, op_id FROM timeline_launch_flows "
                             "ORDER BY api_start_ns, op_id").fetchall()


def test_without_launch_rows_api_calls_launch_the_kernels_of_their_correlation_id(scope):
    """Without kern_exec rows a call launches the kernels of its correlation id, from a process of their device.
    Device A is worked by process 1, device B by processes 1 and 2 (as correlation ties them):
      kernels 5 and 6 start in the same ns on A's streams 7 and 8 with ids 2 and 1: each goes with its own call;
      process 1's graph launch (id 3) launched kernels 7 and 8;
      B's kernel 9 has id 4, which both processes used: no flow rather than a guess;
      the memcpy's call (id 5) launched no kernel."""
    given(scope, "timeline.ops", ["op_id", "op_kind", "device", "device_index", "stream_id", "start_ns", "corr_id"],
          [(5, "kernel", A, 0, 7, 100, 2), (6, "kernel", A, 0, 8, 100, 1), (7, "kernel", A, 0, 7, 200, 3),
           (8, "kernel", A, 0, 7, 300, 3), (9, "kernel", B, 1, 7, 100, 4), (10, "memcpy", A, 0, 7, 400, 5)])
    given(scope, "scope.launches", ["api_start_ns", "kernel_start_ns", "device_index"], [])
    given(scope, "scope.api_calls", ["start_ns", "duration_ns", "name", "corr_id", "pid", "tid"],
          [(10, 5, "cudaLaunchKernel", 1, 1, 1), (20, 5, "cudaLaunchKernel", 2, 1, 1),
           (30, 5, "cudaGraphLaunch", 3, 1, 1), (40, 5, "cudaLaunchKernel", 4, 1, 1),
           (50, 5, "cudaLaunchKernel", 4, 2, 2), (60, 5, "cudaMemcpyAsync", 5, 1, 1)])
    given(scope, "scope.device_processes", ["device", "pid"], [(A, 1), (B, 1), (B, 2)])
    assert flows(scope) == [(1, 10, 1, 6), (2, 20, 1, 5), (3, 30, 1, 7), (4, 30, 1, 8)]


def test_api_calls_on_their_threads(scope):
    """A graph launch call (two rows, two kernels, one not in the scope) is one slice with the flow of the kernel
    in the scope; the API trace's copy of a launch call (same thread and start) gives its name and correlation id;
    the other calls are synchronization or api."""
    given(scope, "timeline.launch_flows", ["flow_id", "pid", "tid", "api_start_ns", "api_duration_ns",
                                           "api_function", "op_id"],
          [(1, 1, 1, 10, 5, "cudaGraphLaunch", 7), (2, 1, 1, 10, 5, "cudaGraphLaunch", None),
           (3, 1, 2, 30, 4, "cudaLaunchKernel", 8)])
    given(scope, "scope.api_calls", ["start_ns", "duration_ns", "end_ns", "name", "corr_id", "pid", "tid"],
          [(10, 5, 15, "cudaGraphLaunch_v10000", 41, 1, 1), (20, 8, 28, "cudaStreamSynchronize", 42, 1, 1),
           (40, 2, 42, "cudaMalloc", 43, 1, 2)])
    scope.build("timeline.cpu_slices")
    rows = scope.con.execute("SELECT * FROM timeline_cpu_slices ORDER BY slice_row").fetchall()
    assert rows == [
        (0, 1, 1, 10, 5, 15, "cudaGraphLaunch_v10000", "launch", [1], 41),
        (1, 1, 1, 20, 8, 28, "cudaStreamSynchronize", "synchronization", [], 42),
        (2, 1, 2, 30, 4, 34, "cudaLaunchKernel", "launch", [3], None),
        (3, 1, 2, 40, 2, 42, "cudaMalloc", "api", [], 43),
    ]


TIMES = ["kind", "slice_row", "device", "stream_id", "pid", "tid", "start_ns", "end_ns", "cut_ns"]


def test_only_tracks_whose_slices_overlap_get_lanes(scope):
    """NVTX ranges of thread 7: [0,100) holds [10,50), which holds [20,30); [40,60) starts inside [10,50) but ends
    after it, so it takes a second lane. Stream 1's kernels [0,10) and [10,20) follow each other: no rows."""
    given(scope, "timeline.slice_times", TIMES, [
        ("gpu_slices", 0, A, 1, None, None, 0, 10, 0), ("gpu_slices", 1, A, 1, None, None, 10, 20, 10),
        ("nvtx_slices", 0, None, None, 1, 7, 0, 100, 0), ("nvtx_slices", 1, None, None, 1, 7, 10, 50, 10),
        ("nvtx_slices", 2, None, None, 1, 7, 20, 30, 20), ("nvtx_slices", 3, None, None, 1, 7, 40, 60, 40)])
    scope.build("timeline.lanes")
    assert scope.con.execute("SELECT * FROM timeline_lanes ORDER BY kind, slice_row").fetchall() == [
        ("nvtx_slices", 0, 0, 0), ("nvtx_slices", 1, 0, 1), ("nvtx_slices", 2, 0, 2), ("nvtx_slices", 3, 1, 0)]
    tracks = [(r["kind"], r["slices"], r["lanes"], r["first_start_ns"]) for r in scope.rows("timeline.track_keys")]
    assert tracks == [("gpu_slices", 2, 1, 0), ("nvtx_slices", 4, 2, 0)]


def test_ends_of_a_stretch_of_time_before_the_cut(scope):
    """Slices ending in [20,40) are rows 1 and 2; row 2 happened (cut_ns 35) after a cut at 30, so only row 1 is
    written there; its lane and depth come from timeline_lanes."""
    given(scope, "timeline.slice_times", TIMES, [
        ("gpu_slices", 0, A, 1, None, None, 0, 10, 0), ("gpu_slices", 1, A, 1, None, None, 5, 25, 5),
        ("gpu_slices", 2, A, 1, None, None, 36, 39, 35), ("gpu_slices", 3, A, 1, None, None, 15, 40, 15)])
    given(scope, "timeline.lanes", ["kind", "slice_row", "lane", "depth"], [("gpu_slices", 1, 1, 0)])
    ends = scope.rows("timeline.ends", from_ns=20, to_ns=40, before_ns=30)
    assert [(r["slice_row"], r["end_ns"], r["lane"], r["depth"]) for r in ends] == [(1, 25, 1, 0)]


def test_a_cut_writes_the_flows_whose_two_ends_happen_before_it(scope):
    """Cut at 40: flow 1 (call 1, kernel launched at 1) is written; flow 2's call (2) is before the cut but its
    kernel, placed at its GPU start (50), is not: left out; flow 3 has neither end before the cut."""
    given(scope, "timeline.gpu_slices", ["flow_id", "launch_or_start_ns"], [(1, 1), (2, 50), (3, 60), (None, 5)])
    given(scope, "timeline.launch_flows", ["flow_id", "api_start_ns"], [(1, 1), (2, 2), (3, 60)])
    assert scope.row("timeline.flows", before_ns=40) == {"written_flows": 1, "split_flows": [2]}
    assert scope.row("timeline.flows", before_ns=2**62) == {"written_flows": 3, "split_flows": []}


def test_edges_split_the_starts_into_parts_of_about_as_many(scope):
    """Starts 0..9 in 2 parts: one edge, with 4 to 6 starts on each side; 10 slices starting together: one edge, at
    their start, whatever the parts asked for."""
    given(scope, "timeline.slice_times", TIMES, [("cpu_slices", i, None, None, 1, 1, i, i + 1, i) for i in range(10)])
    (edge,) = [r["edge_ns"] for r in scope.rows("timeline.edges", parts=2)]
    assert 4 <= edge <= 6
    given(scope, "timeline.slice_times", TIMES, [("cpu_slices", i, None, None, 1, 1, 7, 8, 7) for i in range(10)])
    assert [r["edge_ns"] for r in scope.rows("timeline.edges", parts=3)] == [7]
