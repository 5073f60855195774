"""communication.overlap alone: communication time, the part of it hidden behind other kernels, per device,
collective and stream, on kernels given here. One character is 10 ns.

    ns/100        0         1         2         3         4         5         6
    A stream 7    1111111111               222222222222222          5555555555      compute
    A stream 20                                 RRRRRRRRRRRRRRRRRRRR                 all-reduce
    A stream 21                                              GGGGGGG                 all-gather
    B stream 7    66666666666666666666                                               compute
    B stream 20             XXXXXXXXXXXXXXXXXXXX                                     all-reduce

    A: compute [0,100) [250,400) [510,600); all-reduce [300,500) on 20, all-gather [450,520) on 21
       communication union [300,520) = 220, overlapped [300,400) + [510,520) = 110
       all-reduce: 200, overlapped 100; all-gather: 70, overlapped [510,520) = 10
    B: compute [0,200); all-reduce [120,320): 200, overlapped [120,200) = 80 (B's compute never hides A's)
"""

from __future__ import annotations

from tests.sql.conftest import given

A, B = "GPU A", "GPU B"
KERNELS = [  # device, stream, start, end, is_communication, collective
    (A, 7, 0, 100, False, None), (A, 7, 250, 400, False, None), (A, 7, 510, 600, False, None),
    (A, 20, 300, 500, True, "all_reduce"), (A, 21, 450, 520, True, "all_gather"),
    (B, 7, 0, 200, False, None), (B, 20, 120, 320, True, "all_reduce")]


def overlap(scope, kernels=KERNELS) -> dict:
    given(scope, "communication.kernels",
          ["device", "stream_id", "start_ns", "end_ns", "is_communication", "collective VARCHAR"], kernels)
    return {(r["device"], r["breakdown"], r["label"]): (r["kernels"], r["time_ns"], r["overlapped_ns"])
            for r in scope.rows("communication.overlap")}


def test_overlap_per_device_collective_and_stream(scope):
    assert overlap(scope) == {
        (A, "device", None): (2, 220, 110),
        (A, "collective", "all_reduce"): (1, 200, 100), (A, "collective", "all_gather"): (1, 70, 10),
        (A, "stream", "20"): (1, 200, 100), (A, "stream", "21"): (1, 70, 10),
        (B, "device", None): (1, 200, 80), (B, "collective", "all_reduce"): (1, 200, 80),
        (B, "stream", "20"): (1, 200, 80),
    }


def test_overlapping_communication_counts_once(scope):
    """Two all-reduces at once on two streams: [0,100) and [50,150) make 150, not 200; a compute kernel [120,300)
    hides [120,150) = 30 of them."""
    kernels = [(A, 20, 0, 100, True, "all_reduce"), (A, 21, 50, 150, True, "all_reduce"),
               (A, 7, 120, 300, False, None)]
    found = overlap(scope, kernels)
    assert found[(A, "device", None)] == (2, 150, 30)
    assert found[(A, "collective", "all_reduce")] == (2, 150, 30)
    assert found[(A, "stream", "21")] == (1, 100, 30)


def test_no_communication_no_rows(scope):
    assert overlap(scope, [(A, 7, 0, 100, False, None)]) == {}


def arrivals(scope, kernels) -> dict:
    given(scope, "communication.kernels",
          ["device", "stream_id", "start_ns", "end_ns", "is_communication", "collective VARCHAR"], kernels)
    return {(r["device"], r["collective"]): (r["instances"], r["wait_ns"], r["arrived_last"], r["caused_wait_ns"])
            for r in scope.rows("communication.arrivals")}


def test_arrivals_at_each_collective(scope):
    # all-reduce 1: A at 100, B at 160, C at 130 (skew 60, B last: A waits 60, C 30); all-reduce 2: A at 500 last
    # (skew 200: B waits 200, C 100); all-gather 1 on A and B only (C never ran it): not judged. Compute is no
    # communication: not an instance.
    C = "GPU C"
    kernels = [(A, 20, 100, 200, True, "all_reduce"), (B, 20, 160, 220, True, "all_reduce"),
               (C, 20, 130, 200, True, "all_reduce"), (A, 20, 500, 600, True, "all_reduce"),
               (B, 20, 300, 600, True, "all_reduce"), (C, 20, 400, 600, True, "all_reduce"),
               (A, 21, 700, 800, True, "all_gather"), (B, 21, 700, 900, True, "all_gather"),
               (C, 7, 0, 100, False, None)]
    assert arrivals(scope, kernels) == {(A, "all_reduce"): (2, 60, 1, 200), (B, "all_reduce"): (2, 200, 1, 60),
                                        (C, "all_reduce"): (2, 130, 0, 0)}


def test_one_device_has_no_arrivals(scope):
    assert arrivals(scope, [k for k in KERNELS if k[0] == A]) == {}
