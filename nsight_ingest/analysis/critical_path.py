"""The critical path of a capture or window: the chain of waits through its dependency graph (sql/graph/) that ends
at the GPU span's end, what it is made of, and the nodes that hold most of it."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import inputs_block, nvtx_figures, percent, rule_set_block
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console, title
from nsight_ingest.text import kernel_labels, ms, pct

if TYPE_CHECKING:
    from rich.console import Console

COMMUNICATION = "communication"  # the kernel family, and the part of the path its kernels are
# The parts of the path, each the time of the path's segments of these categories (graph.critical_path); they add
# up to the path's length. Kernels of the communication family are apart from the others.
COMPOSITION = {
    "gpu_kernels": ("kernel",),
    COMMUNICATION: (),  # kernels of the communication family
    "memory_transfer": ("memcpy", "memset", "other"),
    "launch_calls": ("launch_call",),
    "launch_latency": ("launch_latency",),
    "cpu_api": ("api_call",),
    "cpu_work": ("cpu_work",),
    "synchronization": ("sync_call", "synchronization"),
    "communication_wait": ("communication_wait",),
    "event_wait": ("event_wait",),
    "gpu_gap": ("gpu_gap",),
    "idle": ("idle",),
}


def _part(category: str, family: str | None) -> str:
    if category == "kernel" and family == COMMUNICATION:
        return COMMUNICATION
    return next(part for part, categories in COMPOSITION.items() if category in categories)


def missing_edges(capture: Capture, synchronization_records: int) -> list[str]:
    """What the capture's graph lacks, and why (its inputs, or what the graph does not model yet)."""
    missing = []
    if capture.api is None:
        missing.append("no cuda_api_trace: the CPU calls are the kern_exec trace's launch calls (no synchronization "
                       "or other API calls, no sync edges)" if capture.kern_exec else
                       "no cuda_api_trace or kern_exec trace: no CPU calls; the graph is the streams' order alone")
    elif not synchronization_records:
        missing.append("no CUDA synchronization records (an nsys export database has them, a CSV report not): a "
                       "wait on another stream's event reads as gpu_gap, a stream synchronization waits for its "
                       "whole device")
    missing.append("collectives across rank files are not edges: a rank waiting for another reads as its "
                   "communication kernel's own time")
    if capture.api is None:
        missing.append("memcpy and memset operations have no launch edge without a cuda_api_trace: a wait before "
                       "one on its stream reads as gpu_gap")
    return missing


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The critical path of one capture or window: its length (the GPU span), its composition, its top nodes."""
    window = scope.context.window
    summary = next(row for row in scope.rows("scope.summary") if row["device"] is None)
    if not summary["gpu_operation_count"]:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    return {
        "source_gpu_trace": capture.gpu_trace.path,
        **({"window": window.label} if window else {}),
        **(nvtx_figures(scope) if window and window.nvtx else {}),
        "span_ns": int(summary["gpu_span_ns"]),
        **path_block(scope, "graph", options["top"]),
        "graph": graph_block(scope, capture),
        "inputs": inputs_block(capture.roles()),
        "rule_set": rule_set_block(scope.context),
    }


def path_block(scope: Scope, modules: str, top: int) -> dict[str, Any]:
    """A critical path's length, composition and top nodes, from the modules under `modules` (graph: the
    capture's path; whatif: a replay's), and whether its walk stopped at the step limit."""
    composition = dict.fromkeys(COMPOSITION, 0)
    by_family: Counter[str] = Counter()
    by_component: Counter[str] = Counter()
    for row in scope.rows(f"{modules}.composition"):
        time_ns = int(row["time_ns"])
        composition[_part(row["category"], row["family"])] += time_ns
        if row["category"] == "kernel":
            by_family[row["family"] or "other"] += time_ns
            by_component[row["component"] or "other"] += time_ns
    length = sum(composition.values())
    return {
        "critical_path_ns": length,
        "composition": composition,
        "composition_percent": {part: percent(ns, length) for part, ns in composition.items()},
        "gpu_by_family": dict(by_family.most_common()),
        "gpu_by_component": dict(by_component.most_common()),
        "nodes": [{"category": row["category"], "name": row["name"], "short_name": row["short_name"],
                   "time_ns": int(row["time_ns"]), "percent_of_path": percent(row["time_ns"], length),
                   "segments": row["segments"]}
                  for row in scope.rows(f"{modules}.path_nodes", top=top)],
        "stopped": bool(scope.con.execute(f"SELECT bool_or(stopped) FROM {modules}_critical_path").fetchone()[0]),
    }


def graph_block(scope: Scope, capture: Capture) -> dict[str, Any]:
    """How big the scope's dependency graph is, and what it lacks."""
    size = scope.rows("graph.size")
    return {"nodes": {r["kind"]: r["count"] for r in size if r["part"] == "nodes"},
            "edges": {r["kind"]: r["count"] for r in size if r["part"] == "edges"},
            "missing": missing_edges(capture, sum(r["count"] for r in size if r["part"] == "records"))}


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The path's length and composition, and its top nodes."""
    console = console or new_console(width=150)
    console.print(f"[bold]{escape(title('critical-path', result))}[/bold]", highlight=False)
    console.print(f"GPU span {ms(result['span_ns'])} ms; critical path {ms(result['critical_path_ns'])} ms",
                  highlight=False)
    print_path(result, console)
    for line in result["graph"]["missing"]:
        console.print(escape(f"graph: {line}"), highlight=False)


def print_path(result: dict[str, Any], console: Console, heading: str = "the critical path") -> None:
    """A critical path's composition and the nodes that hold most of it, as tables."""
    parts = grid(title=f"composition of {heading}")
    for column in ("part", "ms", "% of path"):
        parts.add_column(column, justify="left" if column == "part" else "right")
    for part, time_ns in result["composition"].items():
        if time_ns:
            parts.add_row(part.replace("_", " "), ms(time_ns), pct(result["composition_percent"][part]))
    console.print(parts)
    nodes = grid(title="what holds the path (a wait counts for the node that waited)")
    for column in ("category", "name", "ms", "% of path", "segments"):
        nodes.add_column(column, justify="left" if column in ("category", "name") else "right", overflow="fold")
    labels = kernel_labels([n["name"] or "" for n in result["nodes"]], [n["short_name"] or "" for n in result["nodes"]])
    for label, node in zip(labels, result["nodes"], strict=True):
        nodes.add_row(node["category"], escape(label), ms(node["time_ns"]), pct(node["percent_of_path"]),
                      f"{node['segments']:,}")
    console.print(nodes)
