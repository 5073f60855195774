"""ranks.bounds and ranks.busy alone, on kernels and clock offsets given here. One character is 10 ns.

    aligned ns/100   0         1         2         3
    rank 0           ..111111......2222222222.....    own clock = aligned (offset 0)
    rank 1           ......33333333...........4444    own clock = aligned - 50 (offset +50)

    rank 0: [20,80) [140,240); rank 1 on its clock: [10,90) [250,290) -> aligned [60,140) [300,340)
    span [0, 320): busy [20,240) (rank 1's [60,140) joins 0's two, touching at 140) and [300,320) clipped
"""

from __future__ import annotations

from tests.sql.conftest import given

KERNELS = [  # rank, start_ns, end_ns on the rank's own clock
    (0, 20, 80), (0, 140, 240), (1, 10, 90), (1, 250, 290)]


def given_kernels(scope) -> None:
    given(scope, "ranks.kernels", ["rank", "start_ns", "end_ns"], KERNELS)
    given(scope, "ranks.clock_offsets", ["rank", "offset_ns"], [(0, 0), (1, 50)])


def test_bounds_on_each_ranks_own_clock(scope):
    given_kernels(scope)
    assert scope.rows("ranks.bounds") == [
        {"rank": 0, "first_start_ns": 20, "last_end_ns": 240}, {"rank": 1, "first_start_ns": 10, "last_end_ns": 290}]


def test_busy_is_the_union_on_the_aligned_clock_clipped_to_the_span(scope):
    given_kernels(scope)
    busy = scope.rows("ranks.busy", span_start=0, span_end=320)
    assert [(r["start_ns"], r["end_ns"]) for r in busy] == [(20, 240), (300, 320)]


def test_kernels_outside_the_span_are_not_busy(scope):
    given_kernels(scope)
    busy = scope.rows("ranks.busy", span_start=100, span_end=200)
    assert [(r["start_ns"], r["end_ns"]) for r in busy] == [(100, 200)]
