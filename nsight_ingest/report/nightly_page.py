"""The nightly job's reports: markdown, a self-contained HTML page with plotly trends per capture, and an index of
every night's page."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from nsight_ingest.history import Baseline, Night
from nsight_ingest.report import html
from nsight_ingest.report.html import Column, count, number
from nsight_ingest.text import key_labels, metric_value

# The trends drawn for every capture, beside the judged metrics: (metric, split by its component column, title).
OVERVIEW = (("component_ms", True, "kernel time by component (ms)"),
            ("family_ms", True, "kernel time by kernel family (ms)"),
            ("idle_cause_ms", True, "GPU idle by cause (ms)"),
            ("gpu_span_ms", False, "GPU span (ms)"),
            ("kernel_union_percent", False, "union busy (%)"),
            ("launch_gap_p90_ns", False, "launch-gap p90 (ns)"))


def judged(check: dict[str, Any], baseline: Baseline) -> bool:
    """True when the check could judge the metric: a value tonight and enough baseline runs."""
    return check["value"] is not None and (check["baseline_runs"] or 0) >= baseline.min_runs


def verdict(check: dict[str, Any], baseline: Baseline) -> str:
    """What the check found: regressed, within its limit, or not judged (no value tonight, too few baseline runs)."""
    if check["regressed"]:
        return "regressed"
    if check["value"] is None:
        return "not judged (no value tonight)"
    runs = check["baseline_runs"] or 0
    return "within" if runs >= baseline.min_runs else f"not judged ({runs} of {baseline.min_runs} runs)"


def _all_zero(check: dict[str, Any]) -> bool:
    """A metric that is zero tonight and in its baseline, or has none yet (a component the workload lacks)."""
    return check["value"] == 0 and not check["baseline_median"]


ZERO_ROWS = "metric(s) zero tonight and in their baseline or without one (components or families this workload lacks)"


# The table of checked metrics, in both nightly reports.
_CHECK_COLUMNS = (Column("capture"), Column("metric"), Column("component or family"), Column("kernel", wraps=True),
                  Column("tonight", True), Column("baseline median", True),
                  Column("limit", True, "past it the metric regressed (a share's within 0-100)"),
                  Column("unit"), Column("baseline runs", True), Column("verdict"))


def _check_table(checks: list[dict[str, Any]], baseline: Baseline) -> tuple[list[Column], list[list[html.Cell]]]:
    """The checked metrics as the columns and rows of a table; the kernel column only when a per-kernel metric is
    judged (--direction kernel_ms=up), each kernel by its label (its key on hover)."""
    keys = sorted({c["kernel"] for c in checks if c["kernel"]})
    labels = dict(zip(keys, key_labels(keys), strict=True))
    columns = [c for c in _CHECK_COLUMNS if keys or c.heading != "kernel"]
    rows = []
    for check in checks:
        unit = check["unit"]
        kernel = [html.Cell(labels.get(check["kernel"], ""), title=check["kernel"] or "")] if keys else []
        rows.append([html.Cell(check["capture"]), html.Cell(check["metric"]), html.Cell(check["component"] or ""),
                     *kernel, number(check["value"], metric_value(check["value"], unit)),
                     number(check["baseline_median"], metric_value(check["baseline_median"], unit)),
                     number(check["limit"], metric_value(check["limit"], unit)), html.Cell(unit or ""),
                     count(check["baseline_runs"] or 0), html.Cell(verdict(check, baseline))])
    return columns, rows


def _run_sentences(summary: dict[str, Any], checks: list[dict[str, Any]], code: Callable[[str], str],
                   bold: Callable[[str], str]) -> tuple[str, str]:
    """What the run did and how many metrics regressed, marked up by `code` and `bold` of the report's format."""
    ran = (f"Run {code(summary['run_id'])}, rule set {code(summary['rule_set_version'])}, family set "
           f"{code(summary['family_set_version'])}: "
           f"{summary['traces_found']} trace sets found, {len(summary['written'])} summarized, "
           f"{len(summary['skipped'])} already in the history, {len(summary['failed'])} failed.")
    regressions = sum(c["regressed"] for c in checks)
    return ran, f"{bold(f'{regressions} regression(s)')} among {len(checks)} checked metrics."


def _problems(summary: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The lists a reader must see, each item with its reason: failed captures, captures of the night before
    missing tonight, skipped captures, history files that could not be read."""
    skipped = [f"{path}: already summarized for this night under these rule sets" for path in summary["skipped"]]
    damaged = [f"{path}: not a readable history file (cut short, another schema or no night); skipped"
               for path in summary.get("damaged_history_files") or []]
    missing = [f"{m['capture']}: in the history on {m['last_night']}, not tonight"
               for m in summary.get("missing_captures") or []]
    return [(heading, items) for heading, items in (("Failed captures", summary["failed"]),
                                                    ("Missing captures", missing),
                                                    ("Skipped captures", skipped),
                                                    ("Damaged history files", damaged)) if items]


def nightly_markdown(summary: dict[str, Any], night: Night, baseline: Baseline) -> str:
    """The nightly summary as markdown: what ran, then every checked metric, regressions first, all-zero rows
    left out."""
    checks = night.checks
    ran, regressed = _run_sentences(summary, checks, lambda text: f"`{text}`", lambda text: f"**{text}**")
    shown = [c for c in checks if not _all_zero(c)]
    columns, rows = _check_table(shown, baseline)
    lines = [f"# nsight-ingest nightly summary, {summary['date']}", "", ran, "", regressed, "",
             "| " + " | ".join(c.heading for c in columns) + " |",
             "|" + "|".join("---:" if c.numeric else "---" for c in columns) + "|"]
    for check, row in zip(shown, rows, strict=True):
        cells = [cell.text for cell in row]
        cells[-1] = f"**{cells[-1]}**" if check["regressed"] else cells[-1]
        lines.append("| " + " | ".join(cells) + " |")
    if len(shown) < len(checks):
        lines += ["", f"{len(checks) - len(shown)} {ZERO_ROWS} are not listed."]
    for heading, items in _problems(summary):
        lines += ["", f"## {heading}", "", *[f"- {item}" for item in items]]
    return "\n".join(lines) + "\n"


def _label(check: dict[str, Any]) -> str:
    return " ".join(part for part in (check["metric"], check["component"], check["kernel"]) if part)


def _key(row: dict[str, Any]) -> tuple[str, str, str, str]:
    return row["capture"], row["metric"], row["component"] or "", row["kernel"] or ""


def _part_colors(series: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """A colour per (metric, component) of the split trends, the same in every capture's chart."""
    from plotly.colors import qualitative

    palette = qualitative.Plotly + qualitative.D3
    colors = {}
    for metric, split, _ in OVERVIEW:
        parts = sorted({r["component"] for r in series if split and r["metric"] == metric and r["component"]})
        colors.update({(metric, part): palette[i % len(palette)] for i, part in enumerate(parts)})
    return colors


def _on_nights(rows: list[dict[str, Any]], nights: list[str]) -> list[float | None]:
    """The values of `rows` night by night, None where a night has none (a line breaks there)."""
    values = {str(r["date"]): r["value"] for r in rows}
    return [values.get(night) for night in nights]


def _overview(series: list[dict[str, Any]], nights: list[str], colors: dict[tuple[str, str], str]) -> str:
    """A capture's night-by-night trends: time by component, family and idle cause, span, busy, gap p90; every
    night of the page on the axis, so a night without the capture shows as a hole."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=3, subplot_titles=[title for _, _, title in OVERVIEW],
                        horizontal_spacing=0.07, vertical_spacing=0.16)
    for index, (metric, split, _) in enumerate(OVERVIEW):
        rows = [r for r in series if r["metric"] == metric and r["value"] is not None]
        parts = sorted({r["component"] for r in rows if split and r["value"]}) if split else [None]
        for part in parts:
            y = _on_nights([r for r in rows if r["component"] == part], nights)
            trace = (go.Bar(x=nights, y=y, name=part, legendgroup=metric, legendgrouptitle_text=metric,
                            marker_color=colors[(metric, part)]) if split else
                     go.Scatter(x=nights, y=y, mode="lines+markers", name=metric, showlegend=False,
                                line_color=html.COLORS["first"]))
            fig.add_trace(trace, row=index // 3 + 1, col=index % 3 + 1)
    fig.update_layout(barmode="stack", legend={"groupclick": "toggleitem"}, margin={"t": 70})
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=nights)
    fig.update_yaxes(rangemode="tozero")
    return html.figure(fig, "trends, night by night", height=720)


def _judged_trends(checks: list[dict[str, Any]], series: list[dict[str, Any]], nights: list[str],
                   baseline: Baseline) -> str:
    """One small chart per judged metric: its value per night, the band its baseline allows (median ± allowed
    change, a share's within 0-100) over the baseline's nights and tonight, and tonight's point, red when it
    regressed."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    shown = [c for c in checks if judged(c, baseline) and not _all_zero(c)]
    if not shown:
        return '<p class="note">No metric of this capture has enough baseline runs to be judged yet.</p>'
    columns = 3
    fig = make_subplots(rows=math.ceil(len(shown) / columns), cols=columns,
                        subplot_titles=[_label(c) for c in shown], horizontal_spacing=0.08,
                        vertical_spacing=min(0.12, 0.5 / math.ceil(len(shown) / columns)))
    values: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for row in series:
        values.setdefault(_key(row), []).append(row)
    for index, check in enumerate(shown):
        where = {"row": index // columns + 1, "col": index % columns + 1}
        mine = [r for r in values.get(_key(check), []) if r["value"] is not None]
        banded = [str(r["date"]) for r in mine if r["date"] >= check["baseline_since"]]
        low, high = check["band_low"], check["band_high"]
        fig.add_trace(go.Scatter(x=banded, y=[high] * len(banded), mode="lines", line_width=0, showlegend=False,
                                 hoverinfo="skip"), **where)
        fig.add_trace(go.Scatter(x=banded, y=[low] * len(banded), mode="lines", line_width=0, fill="tonexty",
                                 fillcolor=html.COLORS["band"], name="baseline band (median ± allowed change)",
                                 showlegend=index == 0, legendgroup="band", hoverinfo="skip"), **where)
        fig.add_trace(go.Scatter(x=nights, y=_on_nights(mine, nights), mode="lines+markers", showlegend=False,
                                 line_color=html.COLORS["first"], name=_label(check)), **where)
        bad = check["regressed"]
        fig.add_trace(go.Scatter(
            x=[str(check["date"])], y=[check["value"]], mode="markers", name="tonight",
            marker={"size": 11, "color": html.COLORS["regressed" if bad else "within"], "symbol": "diamond"},
            showlegend=False), **where)
        # room above and below the band and the values: a flat series must not fill its chart with the band
        reach = [low, high, *(r["value"] for r in mine)]
        margin = 0.25 * (max(reach) - min(reach)) or 0.05 * abs(max(reach)) or 1.0
        fig.update_yaxes(range=[min(reach) - margin, max(reach) + margin], **where)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=nights, showticklabels=True)
    fig.update_layout(margin={"t": 70})  # the first row's titles clear plotly's toolbar
    return html.figure(fig, "judged metrics: value per night, the baseline band (median ± allowed change) over the "
                            "baseline's nights, tonight's diamond (red: regressed, green: within)",
                       height=100 + 240 * math.ceil(len(shown) / columns))


def _moves(moves: list[dict[str, Any]], table_id: str) -> str:
    columns = [Column("kernel", wraps=True, title="short name with its functor, or a hash where two read alike; "
                                                  "hover for the kernel's key"),
               Column("tonight ms", True), Column("baseline median ms", True), Column("change ms", True),
               Column("change %", True), Column("baseline runs", True)]
    labels = key_labels([m["kernel"] for m in moves])
    rows = [[html.Cell(label, title=m["kernel"]), number(m["value"], metric_value(m["value"], "ms")),
             number(m["baseline_median"], metric_value(m["baseline_median"], "ms")),
             number(m["change_ms"], "-" if m["change_ms"] is None else f"{m['change_ms']:+,.3f}"),
             number(m["change_percent"], "-" if m["change_percent"] is None else f"{m['change_percent']:+.2f}%"),
             count(m["baseline_runs"] or 0)] for label, m in zip(labels, moves, strict=True)]
    return html.table(table_id, columns, rows,
                      caption="kernels whose time moved most against their baseline (then top kernels without one)")


def _checks_tables(checks: list[dict[str, Any]], baseline: Baseline) -> str:
    if not checks:
        return '<p class="note">No metric was checked: the history holds no capture of this night.</p>'
    shown = [c for c in checks if not _all_zero(c)]
    zero = [c for c in checks if _all_zero(c)]
    classes = ["regressed" if c["regressed"] else "" if judged(c, baseline) else "unjudged" for c in shown]
    text = html.table("metrics", *_check_table(shown, baseline), classes, filterable=True)
    if zero:
        text += (f"<details><summary>{len(zero)} {html.escape(ZERO_ROWS)}</summary>"
                 + html.table("zero-metrics", *_check_table(zero, baseline)) + "</details>")
    return text


def nightly_html(summary: dict[str, Any], night: Night, baseline: Baseline) -> str:
    """The nightly report page: what ran, the problems, the checked metrics (regressions first) and per capture its
    trends, judged metrics with their baseline band, and the kernels that moved most."""
    checks = night.checks
    ran, regressed = _run_sentences(summary, checks, lambda text: f"<code>{html.escape(text)}</code>",
                                    lambda text: f"<b>{text}</b>")
    regressions = sum(c["regressed"] for c in checks)
    judged_count = sum(judged(c, baseline) for c in checks)
    cards = html.cards([
        ("regressions", str(regressions), "checked metrics past their limit"),
        ("checked metrics", str(len(checks)), f"{judged_count} judged, {len(checks) - judged_count} without a value "
                                              f"tonight or {baseline.min_runs} baseline runs"),
        ("captures tonight", str(summary["captures_checked"]),
         f"in the history for this night: {len(summary['written'])} summarized by this run, "
         f"{len(summary['skipped'])} already there"),
        ("failed captures", str(len(summary["failed"])), "listed below with the reason"),
    ])
    problems = "".join(html.section(heading.lower().replace(" ", "-"), heading,
                                    "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
                       for heading, items in _problems(summary))
    captures = sorted({row["capture"] for row in night.series} | {c["capture"] for c in checks})
    nights, colors = [str(day) for day in night.nights], _part_colors(night.series)
    per_capture = []
    for capture in captures:
        series = [r for r in night.series if r["capture"] == capture]
        mine = [{**c, "date": date.fromisoformat(summary["date"])} for c in checks if c["capture"] == capture]
        moves = [m for m in night.kernel_moves if m["capture"] == capture]
        per_capture.append(html.section(
            f"capture-{len(per_capture)}", f"Capture {capture}", _overview(series, nights, colors),
            _judged_trends(mine, series, nights, baseline),
            _moves(moves, f"moves-{len(per_capture)}") if moves else ""))
    rule = (f"Judged against the median of the last {baseline.runs} runs, allowing max({baseline.mad_k:g} x 1.4826 "
            f"x MAD, {baseline.min_change:.0%} of the median), once {baseline.min_runs} runs exist.")
    body = (f"<h1>nsight-ingest nightly summary, {html.escape(summary['date'])}</h1>"
            f'<p class="meta"><a href="index.html">all nights</a></p><p>{ran} {regressed}</p>{cards}{problems}'
            + html.section("checked-metrics", "Checked metrics", _checks_tables(checks, baseline),
                           note=f"{rule} Click a heading to sort; type to filter.")
            + "".join(per_capture))
    return html.page(f"nsight-ingest nightly {summary['date']}", body)


def index_html(folder: Path) -> str:
    """The index of every night's page in the report folder, newest first, from each night's JSON summary (a page
    written before the summaries were kept is listed without its figures)."""
    nights: dict[str, dict[str, Any] | None] = {path.stem: None for path in folder.glob("????-??-??.html")}
    for path in folder.glob("????-??-??.json"):
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a summary cut short or removed since: its night is listed without its figures
        if isinstance(summary, dict) and path.with_suffix(".html").exists():  # another program's JSON is none of ours
            nights[path.stem] = summary
    columns = [Column("night"), Column("regressions", True), Column("checked metrics", True),
               Column("captures", True, "captures in the history for that night"),
               Column("failed", True, "captures that could not be summarized"),
               Column("missing", True, "captures of the night before that the night lacks"), Column("run")]
    rows, classes = [], []
    for day in sorted(nights, reverse=True):
        summary = nights[day]
        if summary is None:
            rows.append([html.Cell(day, link=f"{day}.html"), *(count(None) for _ in range(5)), ""])
            classes.append("")
            continue
        regressions, failed = len(summary.get("regressions", [])), len(summary.get("failed", []))
        # summaries of older versions lack the captures and the missing ones
        captures, missing = summary.get("captures_checked"), summary.get("missing_captures")
        rows.append([html.Cell(day, link=f"{day}.html"), count(regressions), count(summary.get("checked_metrics", 0)),
                     count(captures), count(failed), count(None if missing is None else len(missing)),
                     summary.get("run_id", "")])
        classes.append("regressed" if regressions else "failed" if failed or missing else "")
    table = html.table("nights", columns, rows, classes)
    return html.page("nsight-ingest nightly reports", "<h1>nsight-ingest nightly reports</h1>"
                     '<p class="meta">Red: a metric regressed that night; yellow: a capture failed or went missing.</p>'
                     + table,
                     plots=False)
