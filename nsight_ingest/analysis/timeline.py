"""The rows a timeline of one capture (or window) is drawn from: GPU operations with their classes, API calls and
launch flows, NVTX ranges, busy and family counters, the largest gaps with their idle cause. Drawing them is
nsight_ingest.report.timeline's work."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import idle, inputs_block, rule_set_block
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope, fills
from nsight_ingest.store import TIME_LIMIT_NS, Capture


@fills("timeline.groups")
def fill_groups(scope: Scope) -> None:
    """Put the ranges of a --by-nvtx timeline's groups (context `nvtx_groups`: (group, start, end, tid) tuples)
    into timeline_groups."""
    groups = scope.context.get("nvtx_groups") or ()
    if groups:
        scope.con.executemany("INSERT INTO timeline_groups VALUES (?, ?, ?, ?)", [list(g) for g in groups])


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The tracks' rows as Arrow tables (GPU slices, CPU slices, NVTX slices, counters), the thread names and the
    `top` largest gaps with their cause, with the inputs and rule sets that made them; options: `bins` counter
    samples over the span, `top` gaps."""
    window = scope.context["window"]
    gpu = scope.table("timeline.gpu_slices")
    if gpu.num_rows == 0:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    gaps = scope.rows("launches.largest_gaps", top=options["top"], calls=0)
    return {
        "gpu_slices": gpu,
        "cpu_slices": scope.table("timeline.cpu_slices"),
        "nvtx_slices": scope.table("timeline.nvtx_slices",
                                   nvtx_trace=capture.nvtx.trace_id if capture.nvtx else None),
        "counters": scope.table("timeline.counters", bins=options["bins"]),
        "threads": scope.rows("timeline.threads"),
        "gaps": [idle.gap_causes(gap, idle.unknown_causes(capture)) for gap in gaps],
        "window": window.label if window else None,
        # what the range that shows the rest of a cut timeline needs: the window's end (None: open), whether NVTX
        # ranges make the window (no --range shows the rest of those)
        "range_end_ns": window.ranges[0][1] if window and not window.nvtx and window.ranges[0][1] < TIME_LIMIT_NS
        else None,
        "nvtx_window": bool(window and window.nvtx),
        "inputs": inputs_block(capture.roles()),
        "rule_set": rule_set_block(scope.context),
    }
