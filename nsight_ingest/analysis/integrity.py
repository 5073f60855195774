"""Data problems of a capture: what was left out, what looks wrong, whether the files belong together."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import percent
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture

MIN_LAUNCH_MATCH_PERCENT = 90.0


def check(scope: Scope, capture: Capture, coverage: dict[str, Any] | None) -> dict[str, Any]:
    """The `integrity` block of the scope; `coverage` is scope.launch_coverage's row (None: no kern_exec)."""
    row = scope.row("scope.integrity")
    block: dict[str, Any] = {key: int(value) for key, value in row.items()}
    block |= {key: None if value is None else int(value) for key, value in scope.row("scope.graph_launches").items()}
    counted = scope.row("scope.summary_kernels")
    block |= {"summary_kernels": None if counted["summary_kernels"] is None else int(counted["summary_kernels"]),
              "traced_kernels": int(counted["traced_kernels"])}
    if coverage is not None:
        rows, matched = int(coverage["launch_rows"]), int(coverage["launch_rows_matched"])
        block |= {"launch_rows": rows, "launch_rows_matched": matched,
                  "launch_match_percent": percent(matched, rows) or 0.0}
    return block


def graph_warnings(block: dict[str, Any]) -> list[str]:
    """The cycles a replay of the dependency graph broke (a what-if answer's integrity block). Edges that disagree
    with the measured times are counted there, not warned of: most are kernels that overlap the one before them on
    their stream, as programmatic dependent launch lets them."""
    found = []
    if block.get("cycles_broken"):
        edge = block["cycle_broken_at"]
        found.append(f"{block['cycles_broken']:,} cycles in the dependency graph were broken, the first at the "
                     f"{edge['kind']} edge from node {edge['src']} to node {edge['dst']} (not followed)")
    return found


def warnings(block: dict[str, Any], capture: Capture) -> list[str]:
    """The warnings an integrity block calls for."""
    if "cycles_broken" in block:
        return graph_warnings(block)
    found = []
    path = capture.gpu_trace.path
    for key, what in (("negative_duration_operations", "negative durations"),
                      ("absurd_duration_operations", "durations over an hour")):
        if block[key]:
            found.append(f"{path}: {block[key]} GPU operation(s) with {what} left out of the analysis")
    if block["untraced_graph_launches"]:
        found.append(f"{capture.api.path}: {block['untraced_graph_launches']} of its {block['graph_launches']} CUDA "
                     f"graph launches have no GPU operations in {path}: it was captured without "
                     f"--cuda-graph-trace=node, so the graphs' kernels and their time are not in it (they read as "
                     f"idle); capture again with --cuda-graph-trace=node")
    if block["summary_kernels"] is not None and block["summary_kernels"] != block["traced_kernels"]:
        found.append(f"{capture.kernel_summary.path}: counts {block['summary_kernels']} kernels, {path} holds "
                     f"{block['traced_kernels']}: are they from the same capture?")
    rate = block.get("launch_match_percent")
    if rate is not None and rate < MIN_LAUNCH_MATCH_PERCENT:
        found.append(f"{capture.kern_exec.path}: only {rate:.1f}% of its rows match a kernel of {path}"
                     " on (device, start): is it from another capture?")
    return found
