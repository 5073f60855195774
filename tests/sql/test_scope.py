"""scope.ops, scope.kernels, scope.launches and scope.summary on store rows written here (trace 1: the
cuda_gpu_trace, trace 2: the cuda_kern_exec_trace), expected rows worked out by hand."""

from __future__ import annotations

from nsight_ingest import runs
from tests.sql.conftest import store_rows

OPS = ["trace_id", "op_kind", "device", "device_index", "stream_id", "start_ns", "duration_ns", "name"]
LAUNCHES = ["trace_id", "api_start_ns", "api_duration_ns", "kernel_start_ns", "kernel_duration_ns", "device_index",
            "tid"]
HOUR = 3_600_000_000_000
D0, D1 = "GPU (0)", "GPU (1)"


def table(scope, sql: str) -> list[tuple]:
    return scope.con.execute(sql).fetchall()


def test_ops_leave_out_negative_and_over_an_hour(scope):
    """Kept: durations 0 .. one hour inclusive, of the capture's gpu trace; '(no device)' when the label is
    missing."""
    store_rows(scope.con, "gpu_ops", OPS, [
        (1, "kernel", D0, 0, 7, 100, 0, "zero"),             # kept: 0 ns
        (1, "kernel", D0, 0, 7, 200, HOUR, "hour"),          # kept: exactly an hour
        (1, "kernel", D0, 0, 7, 300, -5, "negative"),        # left out
        (1, "kernel", D0, 0, 7, 400, HOUR + 1, "too long"),  # left out
        (1, "memset", None, None, 7, 500, 8, "memset"),      # kept, device '(no device)'
        (5, "kernel", D0, 0, 7, 600, 10, "other trace"),     # another capture
    ])
    scope.build("scope.ops")
    kept = "SELECT op_kind, device, start_ns, end_ns, duration_ns, name FROM scope_ops ORDER BY start_ns"
    assert table(scope, kept) == [
        ("kernel", D0, 100, 100, 0, "zero"),
        ("kernel", D0, 200, 200 + HOUR, HOUR, "hour"),
        ("memset", "(no device)", 500, 508, 8, "memset"),
    ]
    assert scope.row("scope.integrity") == {"negative_duration_operations": 1, "absurd_duration_operations": 1,
                                            "zero_duration_kernels": 1, "overlapping_kernels_same_stream": 0}


def test_kernels_neighbours_per_stream(scope):
    """Names a=1, b=2, c=3 (name order; 'neg' is left out, so it has no id). Streams:

    GPU (0) stream 7:  a [100,150)  b [200,300)  c [250,260)  a [400,400)   c starts before b ended: overlaps
    GPU (0) stream 8:  b [120,150)                                         alone on its stream
    GPU (1) stream 7:  b [130,140)                                         same stream id, other device: alone
    The memcpy on stream 7 is no kernel and no neighbour.
    """
    store_rows(scope.con, "gpu_ops", OPS, [
        (1, "kernel", D0, 0, 7, 100, 50, "a"),
        (1, "kernel", D0, 0, 7, 200, 100, "b"),
        (1, "kernel", D0, 0, 7, 250, 10, "c"),
        (1, "memcpy", D0, 0, 7, 350, 20, "memcpy HtoD"),
        (1, "kernel", D0, 0, 7, 400, 0, "a"),
        (1, "kernel", D0, 0, 7, 450, -1, "neg"),
        (1, "kernel", D0, 0, 8, 120, 30, "b"),
        (1, "kernel", D1, 1, 7, 130, 10, "b"),
    ])
    scope.build("scope.kernels")
    assert table(scope, "SELECT name, name_id FROM scope_names ORDER BY name_id") == [("a", 1), ("b", 2), ("c", 3)]
    rows = table(scope, """
        SELECT device, stream_id, start_ns, end_ns, name_id, prev_1, prev_2, prev_3, prev_4,
               next_1, next_2, next_3, next_4, overlaps_earlier
        FROM scope_kernels ORDER BY device, stream_id, start_ns""")
    assert rows == [
        # device stream start end  id  prev_1..4                next_1..4                overlaps
        (D0, 7, 100, 150, 1, None, None, None, None, 2, 3, 1, None, False),
        (D0, 7, 200, 300, 2, 1, None, None, None, 3, 1, None, None, False),
        (D0, 7, 250, 260, 3, 2, 1, None, None, 1, None, None, None, True),   # 250 < max(150, 300)
        (D0, 7, 400, 400, 1, 3, 2, 1, None, None, None, None, None, False),  # 400 >= 300
        (D0, 8, 120, 150, 2, None, None, None, None, None, None, None, None, False),
        (D1, 7, 130, 140, 2, None, None, None, None, None, None, None, None, False),
    ]
    # the two lone b kernels have one context (same nine ids), the two a kernels on stream 7 two different ones
    keys = dict(table(scope, "SELECT device || '/' || stream_id || '/' || start_ns, context_key FROM scope_kernels"))
    assert keys[f"{D0}/8/120"] == keys[f"{D1}/7/130"]
    assert keys[f"{D0}/7/100"] != keys[f"{D0}/7/400"]
    assert scope.row("scope.integrity")["overlapping_kernels_same_stream"] == 1


def test_window_keeps_kernels_by_launch_call_and_other_ops_by_gpu_start(scope):
    """Window ranges [1000, 2000) on any thread and [3000, 4000) on thread 5.

    launch rows (device 0 unless said)      GPU operation                  in the window?
    L1 call 950,  kernel 1100               kernel K1 1100                 no: its call started outside
    L2 call 1900, kernel 2100               kernel K2 2100                 yes: its call started inside
    L3 call 1200, kernel 1300 (device 1)    kernel K3 1300 on device 1     yes
    L4 call 1950, kernel 2200 (device 1)    kernel K7 2200 on device 0     no: L4 is another device's key, so K7
                                                                           has no launch row; GPU start outside
    -                                       kernel K4 1500                 yes: no launch row, GPU start inside
    -                                       kernel K5 2500                 no: no launch row, GPU start outside
    -                                       memcpy M1 1400 / M2 900        M1 yes, M2 no (by GPU start)
    L5 call 3100 thread 5, kernel 3150      kernel K8 3150                 yes: the range's thread
    L6 call 3200 thread 6, kernel 3250      kernel K9 3250                 no: another thread's call
    """
    scope.substitutes.update(runs.WINDOW_SUBSTITUTES)
    scope.build("scope.window_ranges")  # empty; the ranges are ours
    scope.con.execute("INSERT INTO scope_window_ranges VALUES (1000, 2000, NULL), (3000, 4000, 5)")
    store_rows(scope.con, "kernel_launches", LAUNCHES, [
        (2, 950, 10, 1100, 50, 0, 5),
        (2, 1900, 10, 2100, 50, 0, 5),
        (2, 1200, 10, 1300, 10, 1, 5),
        (2, 1950, 10, 2200, 10, 1, 5),
        (2, 3100, 10, 3150, 10, 0, 5),
        (2, 3200, 10, 3250, 10, 0, 6),
    ])
    store_rows(scope.con, "gpu_ops", OPS, [
        (1, "kernel", D0, 0, 7, 1100, 50, "K1"),
        (1, "kernel", D0, 0, 7, 2100, 50, "K2"),
        (1, "kernel", D1, 1, 7, 1300, 10, "K3"),
        (1, "kernel", D0, 0, 7, 2200, 10, "K7"),
        (1, "kernel", D0, 0, 7, 1500, 10, "K4"),
        (1, "kernel", D0, 0, 7, 2500, 10, "K5"),
        (1, "memcpy", D0, 0, 7, 1400, 10, "M1"),
        (1, "memcpy", D0, 0, 7, 900, 10, "M2"),
        (1, "kernel", D0, 0, 7, 3150, 10, "K8"),
        (1, "kernel", D0, 0, 7, 3250, 10, "K9"),
    ])
    scope.build("scope.kernels", "scope.launches")
    assert table(scope, "SELECT api_start_ns, kernel_start_ns, device_index FROM scope_launches ORDER BY 1") == [
        (1200, 1300, 1), (1900, 2100, 0), (1950, 2200, 1), (3100, 3150, 0)]
    assert table(scope, "SELECT name FROM scope_ops ORDER BY start_ns") == [
        ("K3",), ("M1",), ("K4",), ("K2",), ("K8",)]
    assert table(scope, "SELECT start_ns FROM scope_kernels ORDER BY start_ns") == [(1300,), (1500,), (2100,), (3150,)]


def test_summary_per_device_and_whole_scope(scope):
    """GPU (0): kernels [100,150) [200,300), memcpy [350,400)  span 300, 3 ops, 2 kernels, 150 ns of kernels
    GPU (1): kernel [150,170)                                   span 20, 1 op, 1 kernel, 20 ns
    (no device): memset [500,510)                               span 10, 1 op, no kernel, 0 ns
    whole scope: [100, 510)                                     span 410, 5 ops, 3 kernels, 170 ns, 3 devices
    The negative and over-an-hour operations are left out (else the span would start at 0 or end past 510)."""
    store_rows(scope.con, "gpu_ops", OPS, [
        (1, "kernel", D0, 0, 7, 100, 50, "a"),
        (1, "kernel", D0, 0, 7, 200, 100, "b"),
        (1, "memcpy", D0, 0, 7, 350, 50, "memcpy"),
        (1, "kernel", D1, 1, 7, 150, 20, "a"),
        (1, "memset", None, None, 7, 500, 10, "memset"),
        (1, "kernel", D0, 0, 7, 0, -1, "negative"),
        (1, "kernel", D1, 1, 7, 600, HOUR + 1, "too long"),
    ])
    columns = ["gpu_span_ns", "gpu_operation_count", "kernel_count", "kernel_time_ns", "device_count",
               "first_start_ns", "last_end_ns"]
    assert scope.rows("scope.summary") == [
        {"device": None, **dict(zip(columns, [410, 5, 3, 170, 3, 100, 510], strict=True))},
        {"device": "(no device)", **dict(zip(columns, [10, 1, 0, 0, 1, 500, 510], strict=True))},
        {"device": D0, **dict(zip(columns, [300, 3, 2, 150, 1, 100, 400], strict=True))},
        {"device": D1, **dict(zip(columns, [20, 1, 1, 20, 1, 150, 170], strict=True))},
    ]
