"""The nightly report pages: four nights of two generated captures, the last with nvfp4 GEMMs 25% slower, read
back with an HTML parser: verdicts, capped limits, folded zero rows, skipped and failed captures with their reason,
the kernels that moved most (against the history's Parquet rows, by hand), and the index of nights."""

from __future__ import annotations

import datetime as dt
import json
import statistics
from pathlib import Path

import duckdb
import pytest

from nsight_ingest import history, nightly
from nsight_ingest.report import nightly_page
from tests import html_page
from tests.test_nightly import make_night

NIGHTS = 4


def four_nights(root: Path) -> Path:
    """Nightly runs over four nights of two captures (dit, dit_b); night 4's GEMMs are 25% slower and it holds a
    broken capture too. The history folder."""
    store = root / "history"
    for night in range(1, NIGHTS + 1):
        folder = make_night(root / f"n{night}", seed=night, gemm_factor=1.25 if night == NIGHTS else 1.0,
                            captures=("dit", "dit_b"))
        if night == NIGHTS:
            (folder / "broken_cuda_gpu_trace.csv").write_text("Start (ns),Duration (ns),Name\n1,abc,k\n")
        nightly.job(folder, store, dt.date(2026, 11, night), nightly.RuleFolders(), nightly.local_runner(2),
                    history.Baseline(), None)
    return store


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> Path:
    return four_nights(tmp_path_factory.mktemp("nightly_page"))


def page(store: Path, night: int) -> html_page.Page:
    return html_page.read(store / "reports" / f"2026-11-{night:02d}.html")


def test_a_night_without_enough_baseline_runs_is_not_judged(nights):
    """Night 3 has two earlier runs: every metric reads 'not judged (2 of 3 runs)', none regressed."""
    metrics = page(nights, 3).tables["metrics"].records()
    assert metrics and {m["verdict"] for m in metrics} == {"not judged (2 of 3 runs)"}
    markdown = (nights / "reports" / "2026-11-03.md").read_text()
    assert "| not judged (2 of 3 runs) |" in markdown and "regressed |" not in markdown


def test_regressions_first_limits_capped_zero_rows_folded(nights):
    night = page(nights, NIGHTS)
    summary = json.loads((nights / "reports" / "2026-11-04.json").read_text())
    metrics = night.tables["metrics"]
    regressed = [m for m in metrics.records() if m["verdict"] == "regressed"]
    assert len(regressed) == len(summary["regressions"]) >= 2
    assert metrics.records()[:len(regressed)] == regressed  # regressions first
    assert metrics.row_classes[:len(regressed)] == ["regressed"] * len(regressed)
    assert {(m["capture"], m["component or family"]) for m in regressed if m["metric"] == "component_ms"} == {
        ("dit", "nvfp4_gemms"), ("dit_b", "nvfp4_gemms")}
    assert night.cards["regressions"] == str(len(regressed))
    percentages = [m for m in metrics.records() if m["unit"] == "%"]
    assert percentages and all(0 <= float(m["limit"]) <= 100 for m in percentages)
    assert any(m["metric"] == "kernel_busy_percent" for m in percentages)
    zero = night.tables["zero-metrics"].records()  # in a folded <details>
    assert zero and all(float(m["tonight"]) == 0 and m["baseline median"] in ("0.000", "0.00", "0", "-")
                        for m in zero)
    assert not {(m["capture"], m["metric"], m["component or family"]) for m in zero} & {
        (m["capture"], m["metric"], m["component or family"]) for m in metrics.records()}


def test_failed_and_skipped_captures_are_listed_with_their_reason(nights, tmp_path):
    night = page(nights, NIGHTS)
    assert "failed-captures" in night.sections and "broken_cuda_gpu_trace.csv: not an nsys/ncu CSV export" in night.text
    assert night.cards["failed captures"] == "1"
    # the night again: both captures are in the history already
    nightly.job(nights.parent / f"n{NIGHTS}", nights, dt.date(2026, 11, NIGHTS), nightly.RuleFolders(),
                nightly.local_runner(2), history.Baseline(), tmp_path)
    again = html_page.read(tmp_path / "2026-11-04.html")
    assert "skipped-captures" in again.sections
    assert again.text.count("already summarized for this night under these rule sets") == 2
    # the rerun summarized nothing, and the night still holds both captures
    assert again.cards["captures tonight"] == "2"
    assert html_page.read(tmp_path / "index.html").tables["nights"].records()[0]["captures"] == "2"


def test_kernels_that_moved_most_against_the_parquet_history(nights):
    """Per capture, tonight's top kernels ranked by |tonight - median of the earlier nights|, those without a
    baseline after them: worked out here from the history's Parquet rows."""
    rows = duckdb.sql(f"SELECT capture, date, kernel, value FROM read_parquet('{nights}/date=*/*.parquet', "
                      "hive_partitioning = true) WHERE metric = 'kernel_ms'").fetchall()
    night = page(nights, NIGHTS)
    for index, capture in enumerate(("dit", "dit_b")):
        tonight = {k: v for c, d, k, v in rows if c == capture and d == dt.date(2026, 11, NIGHTS)}
        before = {k: [v for c, d, kk, v in rows if c == capture and kk == k and d < dt.date(2026, 11, NIGHTS)]
                  for k in tonight}
        ranked = sorted(tonight, key=lambda k: (not before[k], -abs(tonight[k] - statistics.median(before[k]))
                                                if before[k] else -tonight[k], k))[:history.KERNELS_MOVED]
        table = night.tables[f"moves-{index}"]
        keys = table.hover("kernel")  # the key on hover; the label shown: short name, told apart
        assert keys == ranked
        labels = [m["kernel"] for m in table.records()]
        assert len(set(labels)) == len(labels)
        for label, key in zip(labels, keys, strict=True):  # the key's name, then what tells it apart
            name = label.split(" #")[0].split("<")[0]
            assert name and key.removeprefix("void").startswith(name)
        for key, m in zip(keys, table.records(), strict=True):
            if before[key]:
                change = tonight[key] - statistics.median(before[key])
                assert m["change ms"] == f"{change:+,.3f}" and m["baseline runs"] == str(len(before[key]))


def test_index_links_every_night(nights):
    index = html_page.read(nights / "reports" / "index.html")
    table = index.tables["nights"]
    assert [r["night"] for r in table.records()] == [f"2026-11-{n:02d}" for n in range(NIGHTS, 0, -1)]
    assert table.links == [f"2026-11-{n:02d}.html" for n in range(NIGHTS, 0, -1)]
    summary = json.loads((nights / "reports" / "2026-11-04.json").read_text())
    assert table.records()[0]["regressions"] == str(len(summary["regressions"])) and table.row_classes[0] == "regressed"
    assert index.scripts == 1  # the table script; no plotting library on a page without charts


def _summary(day: str, **given) -> dict:
    """A nightly summary as the job writes it, with `given` keys replaced."""
    return {"run_id": "r1", "date": day, "rule_set_version": "v", "family_set_version": "f", "traces_found": 0,
            "written": [], "skipped": [], "failed": [], "captures_checked": 0, **given}


def test_a_night_without_checks_says_so():
    """No capture in the history for the night (every capture failed): no empty table, a sentence instead."""
    text = nightly_page.nightly_html(_summary("2026-11-05", failed=["a.csv: not an nsys/ncu CSV export"]),
                                             history.Night([], [], [], [], []), history.Baseline())
    assert "No metric was checked: the history holds no capture of this night." in text
    assert 'id="metrics"' not in text and "a.csv: not an nsys/ncu CSV export" in text


def test_a_metric_without_a_value_tonight_is_not_judged():
    check = {"capture": "c", "metric": "launch_overlap_percent", "component": None, "kernel": None, "unit": "%",
             "value": None, "baseline_runs": 5, "baseline_median": 50.0, "limit": 47.5, "regressed": False}
    assert nightly_page.verdict(check, history.Baseline()) == "not judged (no value tonight)"
    assert not nightly_page.judged(check, history.Baseline())


def test_index_flags_failed_nights_and_lists_pages_without_a_summary(tmp_path):
    for day, summary in (("2026-11-01", None), ("2026-11-02", _summary("2026-11-02", failed=["x: broken"])),
                         ("2026-11-03", _summary("2026-11-03", regressions=[{}], failed=["x: broken"]))):
        (tmp_path / f"{day}.html").write_text("<html></html>")
        if summary is not None:
            (tmp_path / f"{day}.json").write_text(json.dumps(summary))
    (tmp_path / "2026-11-04.json").write_text(json.dumps(_summary("2026-11-04")))  # its page is gone: not listed
    (tmp_path / "index.html").write_text(nightly_page.index_html(tmp_path))
    table = html_page.read(tmp_path / "index.html").tables["nights"]
    assert [r["night"] for r in table.records()] == ["2026-11-03", "2026-11-02", "2026-11-01"]
    assert table.row_classes == ["regressed", "failed", ""]
    assert table.records()[2] == {"night": "2026-11-01", "regressions": "-", "checked metrics": "-", "captures": "-",
                                  "failed": "-", "missing": "-", "run": ""}


def test_a_capture_gone_since_the_night_before_is_listed(tmp_path):
    """Night 1 holds dit and dit_b, night 2 only dit: night 2's page, markdown, JSON and index name dit_b."""
    store = tmp_path / "history"
    for night, captures in ((1, ("dit", "dit_b")), (2, ("dit",))):
        folder = make_night(tmp_path / f"n{night}", seed=night, gemm_factor=1.0, captures=captures)
        outcome = nightly.job(folder, store, dt.date(2026, 11, night), nightly.RuleFolders(),
                              nightly.local_runner(2), history.Baseline(), None)
    assert outcome.exit_code == 2  # nothing regressed, and a capture went missing: CI must not read it as green
    reports = store / "reports"
    line = "dit_b: in the history on 2026-11-01, not tonight"
    assert line in html_page.read(reports / "2026-11-02.html").text and line in (reports / "2026-11-02.md").read_text()
    assert json.loads((reports / "2026-11-02.json").read_text())["missing_captures"] == [
        {"capture": "dit_b", "last_night": "2026-11-01"}]
    index = html_page.read(reports / "index.html").tables["nights"]
    assert [(r["night"], r["missing"]) for r in index.records()] == [("2026-11-02", "1"), ("2026-11-01", "0")]
    assert index.row_classes == ["failed", ""]
