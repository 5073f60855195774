"""launches.kernel_gaps, launches.gap_percentiles, launches.gap_histogram and launches.cpu_starved, each alone on
rows given here."""

from __future__ import annotations

import pytest

from tests.sql.conftest import given

KERNELS = ["device", "device_index", "stream_id", "start_ns", "end_ns", "context_key"]
LAUNCHES = ["api_start_ns", "api_duration_ns", "api_end_ns", "kernel_start_ns", "device_index"]


def test_kernel_gaps(scope):
    """Per device, in start order: gap = start - latest end of the earlier kernels (any stream of the device).

    A (index 0):  k1 [100,200) ctx 11 s7   first: no gap
                  k2 [250,300) ctx 12 s8   gap 250 - 200 = 50, before k1 (11)
                  k3 [280,400) ctx 13 s7   gap 280 - max(200, 300) = -20 (overlaps k2), before k2 (12)
                  k4 [400,450) ctx 14 s7   gap 400 - 400 = 0 (touches k3), before 13
                  k5 [500,510) ctx 15 s7   gap 500 - 450 = 50, before 14
    B (index 1):  k6 [150,160) ctx 21      first
                  k7 [190,200) ctx 22      gap 190 - 160 = 30, before 21
    C (no index): k8 [1000,1010) ctx 31    first; its launch row says device 0 (the index NULL counts as 0)

    Launch ends (api start + duration): k1 50+20 = 70; k2 has two rows, ends 240 and 260: the first, 240;
    k4 410; k6 140; k8 990. k3, k5: no row. k7: the row at 190 is device 0's, not B's: none.
    """
    given(scope, "scope.kernels", KERNELS, [
        ("A", 0, 7, 100, 200, 11),
        ("A", 0, 8, 250, 300, 12),
        ("A", 0, 7, 280, 400, 13),
        ("A", 0, 7, 400, 450, 14),
        ("A", 0, 7, 500, 510, 15),
        ("B", 1, 7, 150, 160, 21),
        ("B", 1, 7, 190, 200, 22),
        ("C", None, 7, 1000, 1010, 31),
    ])
    given(scope, "scope.launches", LAUNCHES, [
        (50, 20, 70, 100, 0),
        (200, 60, 260, 250, 0),
        (220, 20, 240, 250, 0),
        (405, 5, 410, 400, 0),
        (130, 10, 140, 150, 1),
        (180, 5, 185, 190, 0),
        (980, 10, 990, 1000, 0),
    ])
    scope.build("launches.kernel_gaps")
    assert scope.con.execute("SELECT * FROM kernel_gaps ORDER BY device, start_ns").fetchall() == [
        # device stream start end  ctx before launch_end earlier_end gap
        ("A", 7, 100, 200, 11, None, 70, None, None),
        ("A", 8, 250, 300, 12, 11, 240, 200, 50),
        ("A", 7, 280, 400, 13, 12, None, 300, -20),
        ("A", 7, 400, 450, 14, 13, 410, 400, 0),
        ("A", 7, 500, 510, 15, 14, None, 450, 50),
        ("B", 7, 150, 160, 21, None, 140, None, None),
        ("B", 7, 190, 200, 22, 21, None, 160, 30),
        ("C", 7, 1000, 1010, 31, None, 990, None, None),
    ]


def test_gap_percentiles(scope):
    """Positive gaps only, interpolated linearly between the sorted gaps at (n - 1) * p:

    A: 10, 20, 20, 40 (n 4; 0, -5 and NULL left out)  total 90
       p50 at 1.5: 20 + 0.5 * (20 - 20) = 20;  p90 at 2.7: 20 + 0.7 * (40 - 20) = 34;
       p99 at 2.97: 20 + 0.97 * 20 = 39.4;  max 40
    B: 100 (n 1)                                     every percentile 100, total 100
    C: only 0 and NULL                               no row
    all: 10, 20, 20, 40, 100 (n 5)                   total 190
       p50 at 2: 20;  p90 at 3.6: 40 + 0.6 * (100 - 40) = 76;  p99 at 3.96: 40 + 0.96 * 60 = 97.6;  max 100
    """
    given(scope, "launches.kernel_gaps", ["device", "gap_ns"], [
        ("A", 20), ("A", 10), ("A", 0), ("A", 40), ("A", -5), ("A", None), ("A", 20),
        ("B", 100), ("B", None),
        ("C", 0), ("C", None),
    ])
    rows = scope.rows("launches.gap_percentiles")
    assert [(r["device"], r["positive_gap_count"], r["total_ns"], r["max_ns"]) for r in rows] == [
        (None, 5, 190, 100), ("A", 4, 90, 40), ("B", 1, 100, 100)]
    percentiles = [(r["p50_ns"], r["p90_ns"], r["p99_ns"]) for r in rows]
    assert percentiles == [pytest.approx((20, 76, 97.6)), pytest.approx((20, 34, 39.4)), pytest.approx((100, 100, 100))]


def test_gap_histogram(scope):
    """Quarter-decade bins: bin k holds gaps of 10^(k/4) up to 10^((k+1)/4) ns.

    A: 150 -> log10 2.176, x4 = 8.70: bin 8 [100, 177.8); 170 -> 8.92: bin 8; 1000 -> exactly 12: bin 12
       [1000, 1778.3); 999 -> 11.998: bin 11 [562.3, 1000); 0, -20 and NULL are no gaps.
    B: 150 -> bin 8.
    All: bin 8 holds 150 + 170 + 150 = 470 in 3 gaps; bins 11 and 12 one each.
    Every scope has every bin from 8 to 12 (the capture's shortest and longest gaps), bins 9 and 10 empty.
    """
    given(scope, "launches.kernel_gaps", ["device", "gap_ns"], [
        ("A", 150), ("A", 170), ("A", 1000), ("A", 999), ("A", 0), ("A", -20), ("A", None), ("B", 150),
    ])
    rows = [(r["device"], r["bin"], round(r["low_ns"], 1), round(r["high_ns"], 1), r["gaps"], r["total_ns"])
            for r in scope.rows("launches.gap_histogram", per_decade=4)]
    empty = [(9, 177.8, 316.2, 0, 0), (10, 316.2, 562.3, 0, 0)]
    assert rows == [
        (None, 8, 100.0, 177.8, 3, 470), *((None, *e) for e in empty), (None, 11, 562.3, 1000.0, 1, 999),
        (None, 12, 1000.0, 1778.3, 1, 1000),
        ("A", 8, 100.0, 177.8, 2, 320), *(("A", *e) for e in empty), ("A", 11, 562.3, 1000.0, 1, 999),
        ("A", 12, 1000.0, 1778.3, 1, 1000),
        ("B", 8, 100.0, 177.8, 1, 150), *(("B", *e) for e in empty), ("B", 11, 562.3, 1000.0, 0, 0),
        ("B", 12, 1000.0, 1778.3, 0, 0),
    ]


def test_gap_histogram_without_gaps(scope):
    """No positive gap: no bins at all."""
    given(scope, "launches.kernel_gaps", ["device", "gap_ns"], [("A", 0), ("A", None)])
    assert scope.rows("launches.gap_histogram", per_decade=4) == []


def test_cpu_starved(scope):
    """A kernel with a launch row and an earlier kernel is starved when its call ended after the earlier end.

    A: (launch end 70, no earlier)  not considered   B: (140, earlier 160)  considered, not starved
       (240, 200)  starved                              (170, 160)           starved
       (none, 300) not considered
       (410, 400)  starved
       (300, 450)  considered, not starved
       (450, 450)  considered, not starved (ends as the GPU frees: not after)
    A: 4 considered, 2 starved;  B: 2, 1;  all: 6, 3
    """
    given(scope, "launches.kernel_gaps", ["device", "launch_end_ns", "earlier_end_ns"], [
        ("A", 70, None), ("A", 240, 200), ("A", None, 300), ("A", 410, 400), ("A", 300, 450), ("A", 450, 450),
        ("B", 140, 160), ("B", 170, 160),
    ])
    assert scope.rows("launches.cpu_starved") == [
        {"device": None, "kernels_considered": 6, "cpu_starved_kernels": 3},
        {"device": "A", "kernels_considered": 4, "cpu_starved_kernels": 2},
        {"device": "B", "kernels_considered": 2, "cpu_starved_kernels": 1},
    ]


def test_given_marks_the_requirements_built(scope):
    """The loader must not rebuild what a test gave: kernel_gaps and everything it requires are built."""
    given(scope, "launches.kernel_gaps", ["device", "gap_ns"], [("A", 5)])
    assert {"launches.kernel_gaps", "scope.kernels", "scope.launches", "scope.ops", "scope.names",
            "scope.inputs"} <= scope.built
    scope.build("launches.kernel_gaps")  # nothing to do: the given rows stay
    assert scope.con.execute("SELECT device, gap_ns FROM kernel_gaps").fetchall() == [("A", 5)]
