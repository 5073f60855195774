"""Why the GPU waits: gap anatomy, launch-call latency, queueing and CPU starvation of one capture or window."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import (
    idle,
    inputs_block,
    integrity,
    nvtx_figures,
    percent,
    percentile_cells,
    percentiles,
    queue_delay,
    rule_set_block,
)
from nsight_ingest.analysis.classify import launch_api_counts, top_kernels, top_kernels_table
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console, title
from nsight_ingest.text import IDLE_CAUSE_LABELS, kernel_labels, ms, pct, us

if TYPE_CHECKING:
    from rich.console import Console


def _gaps(row: dict[str, Any] | None) -> dict[str, Any]:
    return {**percentiles(row), "positive_gap_count": int((row or {}).get("positive_gap_count") or 0),
            "total_ns": int((row or {}).get("total_ns") or 0)}


def _starved(row: dict[str, Any] | None) -> dict[str, Any]:
    considered = int((row or {}).get("kernels_considered") or 0)
    starved = int((row or {}).get("cpu_starved_kernels") or 0)
    return {
        "cpu_starved_kernel_percent": percent(starved, considered),
        "cpu_starved_kernels": starved,
        "kernels_considered": considered,
    }


def _by_family(rows: list[dict[str, Any]], order: list[str]) -> dict[str, Any]:
    """Launch-call duration and queue delay per family (launches.by_family rows), in family order."""
    found = {r["family"]: r for r in rows}
    return {family: {
        "launches": int(r["launches"]),
        "calls": int(r["calls"]),
        "api_duration_ns": {"total_ns": int(r["api_total_ns"]), **percentiles(r["api"])},
        "queue_delay_ns": {"queued_kernels": int(r["queued_kernels"]), "total_ns": int(r["queue_total_ns"]),
                           **percentiles(r["queue"])},
    } for family in order if (r := found.get(family))}


def _nvtx_group(scope: Scope, options: dict[str, Any]) -> dict[str, Any]:
    """An NVTX window's range figures, its kernels and kernel time, and its `top_kernels` kernels with the most
    time (a phase's launch anatomy next to what ran in it)."""
    kernels, time_ns = scope.con.execute("SELECT count(*), coalesce(sum(duration_ns), 0) FROM scope_kernels").fetchone()
    rows = scope.rows("classify.top_kernels", top=options["top_kernels"])
    return {**nvtx_figures(scope), "kernel_count": int(kernels), "kernel_time_ns": int(time_ns),
            "top_kernels": top_kernels([r for r in rows if r["device"] is None], int(time_ns))}


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The launch analysis of one capture or window, as a JSON-ready dict (options: `top` gaps to list)."""
    window = scope.context.window
    scope.build("scope.kernels")
    if not scope.con.execute("SELECT count(*) FROM scope_kernels").fetchone()[0]:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no kernels in this scope")
    gaps = {row.pop("device"): row for row in scope.rows("launches.gap_percentiles")}
    starved = {row.pop("device"): row for row in scope.rows("launches.cpu_starved")}
    has_launches = capture.kern_exec is not None
    devices = [d for (d,) in scope.con.execute("SELECT DISTINCT device FROM scope_kernels ORDER BY 1").fetchall()]
    streams = scope.rows("launches.stream_gaps")
    coverage = scope.row("scope.launch_coverage") if has_launches else None
    calls = scope.rows("launches.launch_api") if has_launches else []
    api = launch_api_counts(calls, coverage) if has_launches else {"launch_api_calls": None,
                                                                    "kernels_without_launch_row": None}
    idle_by_device = idle.by_device(scope, capture)
    unknown = idle.unknown_causes(capture)
    result: dict[str, Any] = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        **(_nvtx_group(scope, options) if window and window.nvtx else {}),
        **api,
        "gaps": _gaps(gaps.get(None)),
        "idle": idle_by_device[None],
        "idle_inputs": idle.relied_on(capture),
        "largest_gaps": [idle.gap_causes(gap, unknown) for gap in
                         scope.rows("launches.largest_gaps", top=options["top"], calls=options["gap_calls"])],
        "gaps_by_component_pair": scope.rows("launches.gaps_by_component_pair"),
        "gaps_by_family_pair": scope.rows("launches.gaps_by_family_pair"),
        "api_duration_ns": (
            {r["api_function"]: {"calls": r["calls"], **percentiles(r)} for r in calls} if has_launches else None
        ),
        "queue_delay_ns": queue_delay.delays(scope, capture),
        "by_family": (_by_family(scope.rows("launches.by_family"),
                                 [family for family, _ in scope.context.family_set.classes()])
                      if has_launches else None),
        **(_starved(starved.get(None)) if has_launches else {"cpu_starved_kernel_percent": None}),
    }
    if len(devices) > 1:
        result["devices"] = {
            d: {"gaps": _gaps(gaps.get(d)), "idle": idle_by_device[d],
                **(_starved(starved.get(d)) if has_launches else {})} for d in devices
        }
    if len(streams) > 1:
        result["streams"] = [
            {"device": s["device"], "stream_id": s["stream_id"], "kernel_count": s["kernel_count"],
             "kernel_time_ns": int(s["kernel_time_ns"]),
             "gaps": _gaps({**s, "total_ns": s["gap_total_ns"]})}
            for s in streams
        ]
    result["integrity"] = integrity.check(scope, capture, coverage)
    result["inputs"] = inputs_block(capture.roles())
    result["rule_set"] = rule_set_block(scope.context)
    return result


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The launch analysis as text tables."""
    console = console or new_console(width=160)
    console.print(f"[bold]{escape(title('launches', result))}[/bold]", highlight=False)
    gaps = result["gaps"]
    console.print(f"GPU idle gaps between kernels: {gaps['positive_gap_count']} positive, total {ms(gaps['total_ns'])}"
                  f" ms; p50/p90/p99/max {' / '.join(percentile_cells(gaps))} ms", highlight=False)
    console.print(idle.idle_line(result["idle"], len(result.get("devices") or {})), highlight=False)
    if result.get("launch_api_calls") is not None:
        calls = ", ".join(f"{api} {n}" for api, n in result["launch_api_calls"].items())
        console.print(f"Launch calls: {result['runtime_kernel_launches']} ({calls}); graph kernels"
                      f" {result['graph_kernels']}; kernels without launch row {result['kernels_without_launch_row']}",
                      highlight=False)
        console.print(f"CPU-starved kernels (launch call ended after the GPU went idle): "
                      f"{pct(result['cpu_starved_kernel_percent'])} of {result['kernels_considered']}",
                      highlight=False)
        latency = grid(title="launch call duration (ms)")
        for column in ("api", "calls", "p50", "p90", "p99", "max"):
            latency.add_column(column, justify="left" if column == "api" else "right")
        for api, block in result["api_duration_ns"].items():
            latency.add_row(api, str(block["calls"]), *percentile_cells(block))
        queue = result["queue_delay_ns"]
        latency.add_row("queue delay", f"{queue['queued_kernels']} queued", *percentile_cells(queue))
        console.print(latency)
    largest = grid(title="largest gaps")
    for column in ("gap ms", "device", "stream", "cause", "before", "after", "CPU calls in progress (ms in the gap)"):
        largest.add_column(column, overflow="fold", justify="right" if column in ("gap ms", "stream") else "left")
    gaps = result["largest_gaps"]
    labels = kernel_labels([g[side] for g in gaps for side in ("before", "after")],
                           [g[f"{side}_short_name"] for g in gaps for side in ("before", "after")])
    for number, gap in enumerate(gaps):
        calls = ", ".join(f"{c['name']} {ms(c['overlap_ns'])}" for c in gap["api_calls"])
        more = gap["api_call_count"] - len(gap["api_calls"])
        largest.add_row(ms(gap["gap_ns"]), escape(gap["device"]), str(gap["stream_id"]),
                        IDLE_CAUSE_LABELS.get(f"{gap['idle_cause']}_ns", "-"),
                        escape(f"[{gap['before_component']}] {labels[2 * number]}"),
                        escape(f"[{gap['after_component']}] {labels[2 * number + 1]}"),
                        escape(calls + (f" (+{more} more)" if more > 0 else "")) or "-")
    console.print(largest)
    if result.get("top_kernels"):  # an NVTX window's kernels
        console.print(top_kernels_table(result["top_kernels"]))
    for axis in ("component", "family"):
        pairs = grid(title=f"idle time by {axis} pair")
        for column in ("before -> after", "gaps", "total ms"):
            pairs.add_column(column, justify="left" if column.startswith("before") else "right")
        for pair in result[f"gaps_by_{axis}_pair"][:15]:
            pairs.add_row(f"{pair[f'before_{axis}']} -> {pair[f'after_{axis}']}", str(pair["gaps"]),
                          ms(pair["total_ns"]))
        console.print(pairs)
    if result["by_family"]:
        families = grid(title="launch calls and queue delay by family (us)")
        for column in ("family", "launches", "calls", "call total", "call p50", "call p90", "call max", "queued",
                       "queue total", "queue p50", "queue p90", "queue max"):
            families.add_column(column, justify="left" if column == "family" else "right")
        for name, f in result["by_family"].items():
            call, queue = f["api_duration_ns"], f["queue_delay_ns"]
            families.add_row(name, str(f["launches"]), str(f["calls"]), us(call["total_ns"]),
                             *(us(call[k]) for k in ("p50_ns", "p90_ns", "max_ns")), str(queue["queued_kernels"]),
                             us(queue["total_ns"]), *(us(queue[k]) for k in ("p50_ns", "p90_ns", "max_ns")))
        console.print(families)
