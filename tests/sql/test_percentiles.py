"""launches.queue_delay alone on scope_launches rows given here: percentiles interpolated like numpy.percentile's
default (linear) method."""

from __future__ import annotations

import random

import numpy
import pytest

from tests.sql.conftest import given

DELAYS = [5, 1, 3, 3, 10, 7, 2, 8, 4, 6]


def queue_delay(scope, delays: list[int | None]) -> dict:
    given(scope, "scope.launches", ["queue_duration_ns"], [(d,) for d in delays])
    return scope.row("launches.queue_delay")


def test_queue_delay_by_hand(scope):
    """Sorted: 1 2 3 3 4 5 6 7 8 10 (n 10, sum 49); the three NULLs were not queued: counted, not timed.
    p at index (n - 1) * p between the sorted values v0..v9:
    p50 at 4.5:  v4 + 0.5 * (v5 - v4) = 4 + 0.5 * 1 = 4.5
    p90 at 8.1:  v8 + 0.1 * (v9 - v8) = 8 + 0.1 * 2 = 8.2
    p99 at 8.91: 8 + 0.91 * 2 = 9.82
    """
    row = queue_delay(scope, [*DELAYS, None, None, None])
    assert row == {"queued_kernels": 10, "not_queued_kernels": 3, "total_ns": 49,
                   "p50_ns": pytest.approx(4.5), "p90_ns": pytest.approx(8.2), "p99_ns": pytest.approx(9.82),
                   "max_ns": 10}
    assert [row["p50_ns"], row["p90_ns"], row["p99_ns"]] == pytest.approx(numpy.percentile(DELAYS, [50, 90, 99]))


def test_one_value_is_every_percentile(scope):
    assert queue_delay(scope, [None, 7]) == {"queued_kernels": 1, "not_queued_kernels": 1, "total_ns": 7,
                                             "p50_ns": 7, "p90_ns": 7, "p99_ns": 7, "max_ns": 7}


@pytest.mark.parametrize("delays", [[None, None], []], ids=["none queued", "no launch rows"])
def test_nothing_queued(scope, delays):
    """No queue durations: nothing to take percentiles of (NULL), counts and total 0."""
    assert queue_delay(scope, delays) == {"queued_kernels": 0, "not_queued_kernels": len(delays), "total_ns": 0,
                                          "p50_ns": None, "p90_ns": None, "p99_ns": None, "max_ns": None}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_queue_delay_matches_numpy(scope, seed):
    """Many repeated lengths (the module counts each distinct length once) against numpy.percentile."""
    rng = random.Random(seed)
    delays = [rng.choice([0, 1, 2, 5, 50, 1000, 10**9]) for _ in range(rng.randint(2, 300))]
    row = queue_delay(scope, delays)
    assert row["queued_kernels"] == len(delays) and row["total_ns"] == sum(delays)
    assert [row["p50_ns"], row["p90_ns"], row["p99_ns"], row["max_ns"]] == pytest.approx(
        numpy.percentile(delays, [50, 90, 99, 100]), rel=1e-12)
