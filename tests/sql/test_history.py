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
        sqlmodules.ScopeContext(baseline=history.Baseline(directions={
            "cpu_starved_kernel_percent": "up", "kernel_union_percent": "down", "kernel_time_ms": "up",
            "kernel_busy_percent": "down", "launch_overlap_percent": "down", "communication_overlap_percent": "down",
            "gpu_span_ms": "up"})))
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
        # kE: median 0, +0.5 (no percentage of nothing)
        *metric("kernel_ms", "ms", [0, 0, 0, 0.5], kernel="kE"),
        # down, % of summed kernel time, not a share: median 155, MAD 5, allowed 3 x 1.4826 x 5 = 22.239: band
        # 132.761 to 177.239, not capped at 100; 130 tonight regressed
        *metric("kernel_busy_percent", "%", [150, 160, 155, 130]),
        # a baseline, and tonight's row without a value: not judged
        *metric("launch_overlap_percent", "%", [50, 50, 50, None]),
        ("r3", "c", "launch_overlap_percent", None, None, None, "%", "v", "f", str(TONIGHT)),
        # tonight only (the first night): no baseline, no band, no limit, a share or not
        *metric("communication_overlap_percent", "%", [None, None, None, 40]),
        *metric("gpu_span_ms", "ms", [None, None, None, 5]),
    ])
    return scope


def checks(night):
    return {r["metric"]: r for r in night.rows("history.regressions", mad_k=3.0, min_change=0.05, min_baseline=3,
                                               bounded_metrics=list(history.SHARES))}


def test_regressions_keep_a_share_within_0_to_100(night):
    rows = checks(night)
    starved, union, time = (rows[m] for m in ("cpu_starved_kernel_percent", "kernel_union_percent",
                                               "kernel_time_ms"))
    assert starved["baseline_median"] == 97 and starved["allowed_change"] == pytest.approx(4.85)
    assert starved["limit"] == 100 and not starved["regressed"]
    assert union["baseline_median"] == 0.5 and union["allowed_change"] == pytest.approx(3 * 1.4826 * 0.4)
    assert union["limit"] == 0 and not union["regressed"]
    assert time["baseline_runs"] == 1 and time["value"] == 50 and not time["regressed"]
    assert "kernel_ms" not in rows  # no direction: not checked
    assert (starved["band_low"], starved["band_high"]) == (pytest.approx(92.15), 100)
    assert (union["band_low"], union["band_high"]) == (0, pytest.approx(0.5 + 3 * 1.4826 * 0.4))
    assert starved["baseline_since"] == dt.date(2026, 11, 1) and time["baseline_since"] == dt.date(2026, 11, 3)


def test_regressions_leave_a_percentage_of_summed_time_unbounded(night):
    busy = checks(night)["kernel_busy_percent"]
    assert busy["baseline_median"] == 155 and busy["allowed_change"] == pytest.approx(3 * 1.4826 * 5)
    assert busy["band_low"] == pytest.approx(155 - 22.239) and busy["band_high"] == pytest.approx(155 + 22.239)
    assert busy["limit"] == busy["band_low"] and busy["regressed"]


def test_regressions_without_a_baseline_or_a_value_tonight_judge_nothing(night):
    rows = checks(night)
    for name in ("communication_overlap_percent", "gpu_span_ms"):  # first night: a share's limit is no 0 or 100
        row = rows[name]
        assert row["baseline_runs"] is None and not row["regressed"]
        assert (row["baseline_median"], row["band_low"], row["band_high"], row["limit"]) == (None,) * 4
    overlap = rows["launch_overlap_percent"]
    assert overlap["value"] is None and overlap["baseline_runs"] == 3 and overlap["limit"] == 47.5
    assert not overlap["regressed"]


def test_kernel_moves_largest_change_first_then_kernels_without_a_baseline(night):
    rows = [(r["kernel"], r["value"], r["baseline_median"], r["change_ms"], r["change_percent"])
            for r in night.rows("history.kernel_moves", top=5)]
    assert rows == [("kA", 15, 11, pytest.approx(4), pytest.approx(400 / 11)),
                    ("kB", 4, 5, -1, -20),
                    ("kE", 0.5, 0, 0.5, None),
                    ("kD", 2.1, 2, pytest.approx(0.1), pytest.approx(5)),
                    ("kC", 20, None, None, None)]
    assert [r["kernel"] for r in night.rows("history.kernel_moves", top=2)] == ["kA", "kB"]


def test_nights_are_every_night_of_the_history_up_to_tonight(night):
    """Every night holds a row of c; a row on a later night is not tonight's axis."""
    night.con.execute("INSERT INTO history_rows (run_id, capture, metric, value, unit, rule_set_version, date) "
                      "VALUES ('r9', 'c', 'gpu_span_ms', 1, 'ms', 'v', DATE '2026-11-09')")
    assert [r["date"] for r in night.rows("history.nights")] == [dt.date(2026, 11, d) for d in (1, 2, 3, 4)]


def test_missing_lists_the_captures_of_the_latest_night_before_that_tonight_lacks(night):
    """c is there every night; gone was there on the night before tonight (11-03) only; old only on 11-01, not the
    latest night before tonight: gone is missing, old is not."""
    night.con.execute("INSERT INTO history_rows (run_id, capture, metric, value, unit, rule_set_version, date) "
                      "VALUES ('r2', 'gone', 'gpu_span_ms', 1, 'ms', 'v', DATE '2026-11-03'), "
                      "('r0', 'old', 'gpu_span_ms', 1, 'ms', 'v', DATE '2026-11-01')")
    assert night.rows("history.missing") == [{"capture": "gone", "last_night": dt.date(2026, 11, 3)}]
