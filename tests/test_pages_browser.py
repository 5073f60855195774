"""The HTML pages in a real browser (headless Chromium): each loads without a script error, every chart has drawn
marks (bars, lines or points), the tables sort and filter, and a screenshot of each page is saved (under
$NSIGHT_INGEST_SCREENSHOTS when set: `make screenshots` writes docs/).

A probe script is added to a copy of each page (never to the page itself): it records script errors from the
start, and once the page has loaded writes what it found into the DOM, which Chromium's --dump-dom prints."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.test_idle_communication import capture as hand_built_capture
from tests.test_nightly_page import NIGHTS, four_nights
from tests.test_report_page import TWO_GPUS

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                 if (found := shutil.which(name))), None)
# .ci/run installs Chromium and sets this: there a missing browser fails the tests instead of skipping them
REQUIRED = os.environ.get("NSIGHT_INGEST_BROWSER_TESTS") == "required"
pytestmark = pytest.mark.skipif(CHROMIUM is None and not REQUIRED, reason="no Chromium here (.ci/run installs it)")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars")

ERRORS = """<script>window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });</script>"""

# After load: the marks of every chart, script errors, and the sort (a click on a heading, then another) and the
# filter box (when the table has one) of the table given.
PROBE = """<script>window.addEventListener('load', function () { setTimeout(function () {
  var result;
  try {
  var charts = Array.prototype.map.call(document.querySelectorAll('.chart .js-plotly-plot'), function (plot) {
    return {bars: plot.querySelectorAll('.barlayer .point').length,
            lines: plot.querySelectorAll('.scatterlayer path.js-line').length,
            points: plot.querySelectorAll('.scatterlayer path.point').length,
            fills: plot.querySelectorAll('.scatterlayer path.js-fill').length,
            heatmaps: plot.querySelectorAll('.heatmaplayer image').length,
            title: plot.closest('.chart').querySelector('h3').textContent};
  });
  result = {errors: window.__errors, charts: charts, chartDivs: document.querySelectorAll('.chart').length};
  var table = document.getElementById('%(table)s');
  if (table) {
    var heading = table.tHead.rows[0].cells[%(column)d];
    var column = heading.cellIndex, values = function () {
      return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[column].dataset.sort; });
    };
    heading.click(); result.descending = values();
    heading.click(); result.ascending = values();
    var box = document.querySelector('input.filter[data-table="%(table)s"]');
    if (box) { box.value = '%(filter)s'; box.dispatchEvent(new Event('input', {bubbles: true})); }
    result.shown = Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
      return r.style.display !== 'none'; }).length;
    result.rows = table.tBodies[0].rows.length;
  }
  } catch (e) { result = {probe_error: String(e)}; }
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
}, 500); });</script>"""


def _chromium(*args: str, profile: Path) -> str:
    done = subprocess.run([CHROMIUM or "chromium", *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180, check=True)
    return done.stdout


def probe(page: Path, tmp_path: Path, table: str, column: int, text: str) -> dict:
    """Load a copy of `page` with the probe in it; what the probe found (see PROBE)."""
    source = page.read_text(encoding="utf-8")
    probed = tmp_path / f"probed-{page.name}"
    head = source.index("<head>") + len("<head>")
    body_end = source.rindex("</body>")
    probed.write_text(source[:head] + ERRORS + source[head:body_end]
                      + PROBE % {"table": table, "column": column, "filter": text} + source[body_end:],
                      encoding="utf-8")
    dom = _chromium("--virtual-time-budget=20000", "--dump-dom", probed.as_uri(), profile=tmp_path / "profile")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: the page never finished loading"
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                        .replace("&amp;", "&"))
    assert "probe_error" not in result, result["probe_error"]
    return result


def screenshot(page: Path, tmp_path: Path, name: str, height: int) -> Path:
    """A screenshot of the page 1400 pixels wide, kept under $NSIGHT_INGEST_SCREENSHOTS too when set."""
    shot = tmp_path / name
    _chromium("--virtual-time-budget=20000", f"--window-size=1400,{height}", f"--screenshot={shot}", page.as_uri(),
              profile=tmp_path / "profile-shot")
    assert shot.stat().st_size > 50_000  # a blank page compresses to a few kB
    if os.environ.get("NSIGHT_INGEST_SCREENSHOTS"):
        folder = Path(os.environ["NSIGHT_INGEST_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, folder / name)
    return shot


def _every_chart_drew(found: dict) -> None:
    assert found["errors"] == []
    assert found["charts"] and len(found["charts"]) == found["chartDivs"]
    for chart in found["charts"]:
        assert chart["bars"] + chart["lines"] + chart["points"] + chart["heatmaps"] > 0, \
            f"chart {chart['title']!r} drew nothing"


def test_capture_report_in_a_browser(tmp_path, run_cli):
    page = tmp_path / "report.html"
    out = run_cli("report", str(SAMPLES / "h200_llm_serve.sqlite"), "-o", str(page), "--by-nvtx",
                  r"request \d+ (decode|prefill).*")
    assert out.code == 0, out.err
    found = probe(page, tmp_path, "top-kernels", 4, "nvjet")  # column 4: total ms
    _every_chart_drew(found)
    titles = [c["title"] for c in found["charts"]]
    assert titles[:2] == ["kernel time by component", "kernel time by kernel family"]
    by_title = dict(zip(titles, found["charts"], strict=True))
    assert by_title["kernel time by component"]["bars"] == 2  # other, norm_and_rope: the components with time
    assert by_title["idle gaps between kernels by length (logarithmic bins)"]["bars"] >= 2 * 8  # counts, time
    assert next(c for t, c in by_title.items() if t.startswith("busy % over time"))["lines"] == 1
    descending = [float(v) for v in found["descending"]]
    assert descending == sorted(descending, reverse=True) and found["ascending"] == found["descending"][::-1]
    assert 0 < found["shown"] < found["rows"] == 25  # the nvjet GEMMs among the top 25
    screenshot(page, tmp_path, "report.png", 3400)


def test_small_and_multi_gpu_reports_in_a_browser(tmp_path, run_cli):
    """A capture of one bin (--bins 1) and one gap draws its step and its bars; two GPUs draw a busy heatmap."""
    small = tmp_path / "small.html"
    assert run_cli("report", str(hand_built_capture(tmp_path / "hand")), "-o", str(small), "--bins", "1").code == 0
    found = probe(small, tmp_path, "top-kernels", 4, "")
    _every_chart_drew(found)
    busy = next(c for c in found["charts"] if c["title"].startswith("busy % over time"))
    assert busy["lines"] == 1
    gpus = tmp_path / "two.html"
    assert run_cli("report", str(TWO_GPUS), "-o", str(gpus)).code == 0
    found = probe(gpus, tmp_path, "devices", 1, "")
    _every_chart_drew(found)
    assert next(c for c in found["charts"] if c["title"].startswith("busy % over time"))["heatmaps"] == 1


def test_nightly_report_in_a_browser(tmp_path):
    store = four_nights(tmp_path / "nights")
    page = store / "reports" / f"2026-11-{NIGHTS:02d}.html"
    found = probe(page, tmp_path, "metrics", 4, "nvfp4_gemms")  # column 4: tonight
    _every_chart_drew(found)
    trends = [c for c in found["charts"] if "judged metrics" in c["title"]]
    assert len(trends) == 2 and all(c["fills"] > 0 for c in trends)  # each capture's baseline bands
    assert found["shown"] == 2  # component_ms nvfp4_gemms of both captures
    screenshot(page, tmp_path, "nightly.png", 5200)
    found = probe(store / "reports" / "index.html", tmp_path, "nights", 1, "")  # column 1: regressions
    assert found["errors"] == [] and found["charts"] == [] and found["rows"] == NIGHTS
    assert float(found["descending"][0]) > 0  # the night with regressions sorts first


def test_a_numeric_column_sorts_cells_without_a_number_last_either_way(tmp_path):
    from nsight_ingest.report import html

    rows = [[html.Cell("b"), html.number(3, "3")], [html.Cell("a"), html.number(None, "-")],
            [html.Cell("c"), html.number(-1, "-1")], [html.Cell("d"), html.number(None, "-")]]
    page = tmp_path / "sort.html"
    page.write_text(html.page("sort", html.table("t", [html.Column("name"), html.Column("value", True)], rows),
                              plots=False), encoding="utf-8")
    found = probe(page, tmp_path, "t", 1, "")
    assert found["descending"] == ["3.0", "-1.0", None, None]
    assert found["ascending"] == ["-1.0", "3.0", None, None]
