"""ranks.collectives alone, on collective kernels and clock offsets given here (rank 1's clock is 50 ns behind).

    all_reduce #1: rank 0 arrives at 100, rank 1 at 130 (its clock: 80), rank 2 at 110: skew 30, rank 1 last;
                   rank 0 waits 30, rank 2 waits 20
    all_reduce #2: rank 0 at 300, ranks 1 and 2 together at 320: skew 20, the last is rank 1 (of ranks arriving
                   last together, the lowest-numbered); rank 0 waits 20
    all_gather #1: only rank 0 ran it: not an instance every rank ran
"""

from __future__ import annotations

import pytest

from tests.sql.conftest import given

KERNELS = [  # rank, start_ns (own clock), end_ns, duration_ns, collective, ordinal
    (0, 100, 150, 50, "all_reduce", 1), (1, 80, 100, 20, "all_reduce", 1), (2, 110, 150, 40, "all_reduce", 1),
    (0, 300, 340, 40, "all_reduce", 2), (1, 270, 290, 20, "all_reduce", 2), (2, 320, 340, 20, "all_reduce", 2),
    (0, 400, 410, 10, "all_gather", 1)]


@pytest.mark.parametrize("order", [KERNELS, KERNELS[::-1]], ids=["given order", "reversed"])
def test_skew_waits_and_the_last_arrival_whatever_the_row_order(scope, order):
    given(scope, "ranks.kernels", ["rank", "start_ns", "end_ns", "duration_ns", "collective", "ordinal"], order)
    given(scope, "ranks.clock_offsets", ["rank", "offset_ns"], [(0, 0), (1, 50), (2, 0)])
    rows = scope.rows("ranks.collectives", ranks=3)
    assert [(r["collective"], r["rank"], r["instances"], r["wait_ns"], r["kernel_ns"], r["arrived_last"],
             r["caused_wait_ns"], r["skew_sum_ns"], r["skew_max_ns"]) for r in rows] == [
        ("all_reduce", 0, 2, 30 + 20, 90, 0, 0, 50, 30),
        ("all_reduce", 1, 2, 0, 40, 2, 30 + 20, 50, 30),
        ("all_reduce", 2, 2, 20 + 0, 60, 0, 0, 50, 30)]
