"""The one-capture report's own figures: how busy each GPU is over time, how long its idle gaps are, what its
critical path is made of. The rest of the page is the classify and launches answers of the same scope (the
pipeline's "one page")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import percent
from nsight_ingest.analysis.critical_path import path_block
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, new_console

if TYPE_CHECKING:
    from rich.console import Console


GAP_BINS_PER_DECADE = 4  # the gap-length histogram's logarithmic bins: 1, 1.8, 3.2, 5.6, 10 ... ns
PATH_NODES = 10  # the nodes that hold most of the critical path, listed under its chart


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """Per device: busy % (the time some kernel runs) in each of `bins` time bins over the span (which starts at
    span_start_ns, the origin of the page's times), and the positive launch gaps counted in logarithmic length bins
    (device None: all devices together, under `all`); the critical path's composition and top nodes unless
    `critical_path` is off."""
    utilization: dict[str, list[dict[str, Any]]] = {}
    for row in scope.rows("timeline.counters", bins=options["bins"]):
        if row["family"] is None:
            utilization.setdefault(row["device"], []).append(
                {"start_ns": int(row["bin_start_ns"]), "bin_ns": int(row["bin_ns"]),
                 "busy_percent": percent(row["time_ns"], row["bin_ns"])})
    histogram: dict[str, list[dict[str, Any]]] = {}
    for row in scope.rows("launches.gap_histogram", per_decade=GAP_BINS_PER_DECADE):
        histogram.setdefault(row["device"] or "all", []).append(
            {"low_ns": row["low_ns"], "high_ns": row["high_ns"], "gaps": int(row["gaps"]),
             "total_ns": int(row["total_ns"])})
    span_start = min((bins[0]["start_ns"] for bins in utilization.values()), default=None)
    return {"utilization": utilization, "span_start_ns": span_start, "gap_histogram": histogram,
            "gap_bins_per_decade": GAP_BINS_PER_DECADE,
            "critical_path": path_block(scope, "graph", PATH_NODES) if options["critical_path"] else None}


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """What a report page holds: where it is, its sections, and the inputs it was made from."""
    console = console or new_console(width=140)
    console.print(escape(f"report {result['output']}: {result['bytes']:,} bytes, {result['charts']} charts"),
                  highlight=False)
    console.print(escape(f"sections: {', '.join(result['sections'])}"), highlight=False)
    if result["window"]:
        console.print(escape(f"window: {result['window']}"), highlight=False)
    if result["nvtx_groups"]:
        console.print(escape(f"NVTX groups: {', '.join(result['nvtx_groups'])}"), highlight=False)
    for i in result["inputs"]:
        console.print(escape(f"{i['role']}: {i['path']} ({i['rows']:,} rows, sha256 {i['sha256'][:12]})"),
                      highlight=False)
