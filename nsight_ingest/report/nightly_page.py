"""The nightly job's report: markdown and a self-contained HTML page with inline SVG plots."""

from __future__ import annotations

from typing import Any


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:,.4g}"


# The table of checked metrics, in both nightly reports: (heading, right-aligned) per column.
_CHECK_COLUMNS = (("capture", False), ("metric", False), ("component or family", False), ("kernel", False),
                  ("tonight", True),
                  ("baseline median", True), ("limit", True), ("baseline runs", True), ("regressed", False))


def _check_cells(check: dict[str, Any]) -> list[str]:
    """One checked metric as the cells of _CHECK_COLUMNS."""
    return [check["capture"], check["metric"], check["component"] or "", check["kernel"] or "",
            _fmt(check["value"]),
            _fmt(check["baseline_median"]), _fmt(check["limit"]), str(check["baseline_runs"] or 0),
            "yes" if check["regressed"] else "no"]


def _run_sentences(summary: dict[str, Any], checks: list[dict[str, Any]], code, bold) -> tuple[str, str]:
    """What the run did and how many metrics regressed, marked up by `code` and `bold` of the report's format."""
    ran = (f"Run {code(summary['run_id'])}, rule set {code(summary['rule_set_version'])}, family set "
           f"{code(summary['family_set_version'])}: "
           f"{summary['traces_found']} trace sets found, {len(summary['written'])} summarized, "
           f"{len(summary['skipped'])} already in the history, {len(summary['failed'])} failed.")
    regressions = sum(c["regressed"] for c in checks)
    return ran, f"{bold(f'{regressions} regression(s)')} among {len(checks)} checked metrics."


def nightly_markdown(summary: dict[str, Any], checks: list[dict[str, Any]]) -> str:
    """The nightly summary as markdown: what ran, then every checked metric, regressions first."""
    ran, regressed = _run_sentences(summary, checks, lambda text: f"`{text}`", lambda text: f"**{text}**")
    lines = [
        f"# nsight-ingest nightly summary, {summary['date']}", "", ran, "", regressed, "",
        "| " + " | ".join(heading for heading, _ in _CHECK_COLUMNS) + " |",
        "|" + "|".join("---:" if right else "---" for _, right in _CHECK_COLUMNS) + "|",
    ]
    for c in checks:
        cells = _check_cells(c)
        cells[-1] = "**yes**" if c["regressed"] else "no"
        lines.append("| " + " | ".join(cells) + " |")
    for heading, items in _problems(summary):
        lines += ["", f"## {heading}", "", *[f"- {item}" for item in items]]
    return "\n".join(lines) + "\n"


def _problems(summary: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The lists a reader must see: failed captures and history files that could not be read."""
    return [(heading, summary[key]) for heading, key in (("Failed", "failed"),
                                                         ("Damaged history files (skipped)", "damaged_history_files"))
            if summary.get(key)]


def _svg(figure) -> str:
    import io

    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    return buffer.getvalue()[buffer.getvalue().index("<svg"):]


def nightly_plots(series: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Per capture: component time per night (stacked bars) and launch-gap p90 over time, as inline SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plots = []
    for capture in sorted({row["capture"] for row in series}):
        rows = [r for r in series if r["capture"] == capture]
        nights = sorted({r["date"] for r in rows})
        components = sorted({r["component"] for r in rows if r["metric"] == "component_ms"})
        figure, (bars, gaps) = plt.subplots(1, 2, figsize=(11, 3.4))
        bottom = [0.0] * len(nights)
        for component in components:
            heights = [next((r["value"] or 0.0 for r in rows if r["metric"] == "component_ms"
                             and r["component"] == component and r["date"] == night), 0.0) for night in nights]
            bars.bar([str(n) for n in nights], heights, bottom=bottom, label=component)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        bars.set_title(f"{capture}: kernel time by component (ms)")
        bars.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        bars.tick_params(axis="x", labelrotation=45)
        p90 = [(str(r["date"]), r["value"]) for r in rows if r["metric"] == "launch_gap_p90_ns"]
        gaps.plot([d for d, _ in p90], [v for _, v in p90], marker="o")
        gaps.set_title(f"{capture}: launch-gap p90 (ns)")
        gaps.tick_params(axis="x", labelrotation=45)
        plots.append((capture, _svg(figure)))
        plt.close(figure)
    return plots


def nightly_html(summary: dict[str, Any], checks: list[dict[str, Any]], series: list[dict[str, Any]]) -> str:
    """A self-contained HTML report: the summary, the table of checked metrics and inline SVG plots."""
    import html

    ran, regressed = _run_sentences(summary, checks, lambda text: f"<code>{html.escape(text)}</code>",
                                    lambda text: f"<b>{text}</b>")
    header = "".join(f"<th>{heading}</th>" for heading, _ in _CHECK_COLUMNS)
    rows = "".join(f"<tr class={'bad' if c['regressed'] else 'ok'}>"
                   + "".join(f"<td>{html.escape(cell)}</td>" for cell in _check_cells(c)) + "</tr>" for c in checks)
    plots = "".join(f"<h2>{html.escape(capture)}</h2>{svg}" for capture, svg in nightly_plots(series))
    problems = "".join(f"<h2>{heading}</h2><ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"
                       for heading, items in _problems(summary))
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>nsight-ingest nightly {summary['date']}</title>
<style>body{{font-family:sans-serif;margin:2em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}} td:nth-child(-n+3){{text-align:left}}
tr.bad{{background:#fdd}}</style></head><body>
<h1>nsight-ingest nightly summary, {summary['date']}</h1>
<p>{ran}
{regressed}</p>
<table><tr>{header}</tr>{rows}</table>{problems}{plots}</body></html>
"""
