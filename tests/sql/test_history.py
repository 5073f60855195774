"""history.baselines, history.regressions and history.kernel_moves, each alone on history rows given here."""

from __future__ import annotations

import datetime as dt

import pytest

from nsight_ingest import history, sqlmodules, store
from tests.sql.conftest import given

ROWS = ["run_id", "capture", "metric", "component VARCHAR", "kernel VARCHAR", "value DOUBLE", "unit",
        "rule_set_version", "family_set_version", "date DATE"]
NIGHTS = ["2026-11-01", "2026-11-02", "2026-11-03"]  # the baseline nights; 2026-11-04 is tonight
TONIGHT = dt.date(2026, 11, 4)


def metric(name, unit, values, component=None, kernel=None):
    """History rows of one metric: one value per night, None where the night lacks it (tonight last)."""
    return [(f"r{n}", "c", name, component, kernel, v, unit, "v", "f", day)
            for n, (day, v) in enumerate(zip([*NIGHTS, str(TONIGHT)], values, strict=True)) if v is not None]


@pytest.fixture
def night():
    scope = sqlmodules.Scope(store.connect(), {
        "day": TONIGHT, "rule_set_version": "v", "family_set_version": "f",
        "family_metrics": list(history.FAMILY_METRICS), "baseline_runs": 7},
        {"baseline": history.Baseline(directions={"cpu_starved_kernel_percent": "up", "kernel_union_percent": "down",
                                                  "kernel_time_ms": "up"})})
    given(scope, "history.rows", ROWS, [
        # up, %: median 97, MAD 1, allowed max(3 x 1.4826 x 1 = 4.45, 5% x 97 = 4.85) = 4.85: 101.85, capped 100
        *metric("cpu_starved_kernel_percent", "%", [96, 98, 97, 99]),
        # down, %: median 0.5, deviations 0.4, 0.5, 0: MAD 0.4, allowed 3 x 1.4826 x 0.4 = 1.779: -1.279, capped 0
        *metric("kernel_union_percent", "%", [0.1, 1.0, 0.5, 0.2]),
        # one baseline run (night 3): not judged however far it moved
        *metric("kernel_time_ms", "ms", [None, None, 10, 50]),
        # kA: median 11, +4 (+36.36%); kB: median 5, -1 (-20%); kD: median 2, +0.1 (+5%); kC: no baseline
        *metric("kernel_ms", "ms", [10, 12, 11, 15], kernel="kA"),
        *metric("kernel_ms", "ms", [5, 5, 5, 4], kernel="kB"),
        *metric("kernel_ms", "ms", [None, None, None, 20], kernel="kC"),
        *metric("kernel_ms", "ms", [2, 2, 2, 2.1], kernel="kD"),
    ])
    return scope


def test_regressions_keep_a_percentage_limit_within_0_to_100(night):
    rows = {r["metric"]: r for r in night.rows("history.regressions", mad_k=3.0, min_change=0.05, min_baseline=3)}
    starved, union, time = (rows[m] for m in ("cpu_starved_kernel_percent", "kernel_union_percent",
                                               "kernel_time_ms"))
    assert starved["baseline_median"] == 97 and starved["allowed_change"] == pytest.approx(4.85)
    assert starved["limit"] == 100 and not starved["regressed"]
    assert union["baseline_median"] == 0.5 and union["allowed_change"] == pytest.approx(3 * 1.4826 * 0.4)
    assert union["limit"] == 0 and not union["regressed"]
    assert time["baseline_runs"] == 1 and time["value"] == 50 and not time["regressed"]
    assert "kernel_ms" not in rows  # no direction: not checked


def test_kernel_moves_largest_change_first_then_kernels_without_a_baseline(night):
    rows = [(r["kernel"], r["value"], r["baseline_median"], r["change_ms"], r["change_percent"])
            for r in night.rows("history.kernel_moves", top=4)]
    assert rows == [("kA", 15, 11, pytest.approx(4), pytest.approx(400 / 11)),
                    ("kB", 4, 5, -1, -20),
                    ("kD", 2.1, 2, pytest.approx(0.1), pytest.approx(5)),
                    ("kC", 20, None, None, None)]
    assert [r["kernel"] for r in night.rows("history.kernel_moves", top=2)] == ["kA", "kB"]
