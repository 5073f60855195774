"""The rows a timeline of one capture (or window) is drawn from: GPU operations with their classes, API calls and
launch flows, NVTX ranges, busy and family counters, the largest gaps with their idle cause. The slices stay in the
store, read a stretch of time at a time (millions of them as Python values would hold gigabytes). Drawing them is
nsight_ingest.report.timeline's work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import idle, inputs_block, rule_set_block
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import TIME_LIMIT_NS, Capture
from nsight_ingest.tables import escape, grid, new_console

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from rich.console import Console


NO_CUT_NS = 2**62  # a cut time after every slice (times lie within +-2^61 ns)


@dataclass(frozen=True)
class Slices:
    """The GPU operations, API calls and NVTX ranges of a timeline, in the store (sql/timeline)."""

    scope: Scope

    def tracks(self) -> list[dict[str, Any]]:
        """Each track's key, slices and lanes (timeline.track_keys)."""
        return self.scope.rows("timeline.track_keys")

    def earliest_cut_times(self, count: int) -> np.ndarray:
        """The `count` earliest times at which slices happen as a cut takes them, in order."""
        return self.scope.table("timeline.earliest_cuts", count=count).column("cut_ns").to_numpy()

    def edges(self, parts: int) -> list[int]:
        """Times that split the slices into `parts` parts of about as many starts each."""
        return [] if parts < 2 else [r["edge_ns"] for r in self.scope.rows("timeline.edges", parts=parts)]

    def begins(self, from_ns: int, to_ns: int, before_ns: int) -> pa.Table:
        """The slices beginning in [from_ns, to_ns) that happen before `before_ns` (timeline.begins)."""
        return self.scope.table("timeline.begins", from_ns=from_ns, to_ns=to_ns, before_ns=before_ns)

    def ends(self, from_ns: int, to_ns: int, before_ns: int) -> pa.Table:
        """The slices ending in [from_ns, to_ns) that happen before `before_ns` (timeline.ends)."""
        return self.scope.table("timeline.ends", from_ns=from_ns, to_ns=to_ns, before_ns=before_ns)

    def flows(self, before_ns: int) -> dict[str, Any]:
        """The launch flows written and left out by a cut at `before_ns` (timeline.flows)."""
        return self.scope.row("timeline.flows", before_ns=before_ns)


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The tracks' slices (left in the store), the counters as an Arrow table, the thread names and the `top`
    largest gaps with their cause, the critical path's segments, with the inputs and rule sets that made them;
    options: `bins` counter samples over the span, `top` gaps, `critical_path` (whether to walk it)."""
    window = scope.context.window
    slices = Slices(scope)
    if not any(track["kind"] == "gpu_slices" for track in slices.tracks()):
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    gaps = scope.rows("launches.largest_gaps", top=options["top"], calls=0)
    path = scope.table("graph.path_slices") if options["critical_path"] else None
    scope.release("graph")  # the slices are written next: the graph's tables have done their work
    return {
        "slices": slices,
        "counters": scope.table("timeline.counters", bins=options["bins"]),
        "threads": scope.rows("timeline.threads"),
        "gaps": [idle.gap_causes(gap, idle.unknown_causes(capture)) for gap in gaps],
        "critical_path": path,
        "window": window.label if window else None,
        # what the range that shows the rest of a cut timeline needs: the window's end (None: open), whether NVTX
        # ranges make the window (no --range shows the rest of those)
        "range_end_ns": window.ranges[0][1] if window and not window.nvtx and window.ranges[0][1] < TIME_LIMIT_NS
        else None,
        "nvtx_window": bool(window and window.nvtx),
        "inputs": inputs_block(capture.roles()),
        "rule_set": rule_set_block(scope.context),
    }


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """What a timeline file holds: its tracks and events, and where it was cut."""
    console = console or new_console(width=140)
    console.print(f"[bold]timeline[/bold] {escape(result['output'])} ({result['format']}, {result['bytes']:,} bytes"
                  f"{', ' + escape(result['window']) if result['window'] else ''})", highlight=False)
    table = grid()
    table.add_column("written")
    table.add_column("count", justify="right")
    table.add_row("processes (GPUs and CPU processes)", f"{result['processes']:,}")
    table.add_row("tracks", f"{result['tracks']:,}")
    for kind, count in result["events"].items():
        table.add_row(kind.replace("_", " "), f"{count:,}")
    console.print(table)
    if result["cut_at_ns"] is not None:
        console.print(f"cut at {result['cut_at_ns']:,} ns: later events are left out", highlight=False)
    if result["time_offset_ns"]:
        console.print(f"times shifted by {result['time_offset_ns']:,} ns (the file's time starts at 0)",
                      highlight=False)
