"""The Python that fills SQL modules: the rows SQL alone cannot give (the user's rule SQL run in a sandbox, a window's
ranges, the ranks' sources and clocks, a timings CSV), added after a module's SQL ran. One table, FILLERS, names
the filler of every module whose header says `-- filled by:`; the scope reads what a filler needs from its context
(sqlmodules.ScopeContext)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import duckdb

from nsight_ingest import rules
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.readers import timings

if TYPE_CHECKING:
    from nsight_ingest.sqlmodules import Scope


def fill_window_ranges(scope: Scope) -> None:
    """Put the scope's window (context `window`, None for a whole capture) into scope_window_ranges."""
    window = scope.context.window
    if window is not None:
        scope.con.executemany("INSERT INTO scope_window_ranges VALUES (?, ?, ?)", [list(r) for r in window.ranges])


def fill_directions(scope: Scope) -> None:
    """Put the baseline's metric directions (context `baseline`) into metric_directions."""
    scope.con.executemany("INSERT INTO metric_directions VALUES (?, ?)",
                          list(scope.context.baseline.directions.items()))


def fill_timings(scope: Scope) -> None:
    """Read the timings CSV (context `timings_path`) into the timings table."""
    path = scope.context.timings_path
    try:
        scope.con.execute(f"INSERT INTO timings {timings.select(path)}")
    except duckdb.Error as exc:
        raise InputError(f"{path}: {first_line(exc)}") from None
    bad, repeated = scope.con.execute(
        "SELECT count(*) FILTER (WHERE NOT coalesce(isfinite(seconds) AND seconds > 0, false)), "
        "count(*) - count(DISTINCT (trial, variant, \"update\")) FROM timings").fetchone()
    if bad:
        raise InputError(f"{path}: {bad} timing(s) are not a finite number of seconds above 0 (NaN, inf, zero, "
                         f"negative or empty)")
    if repeated:
        raise InputError(f"{path}: {repeated} row(s) repeat a (trial, variant, update) given before")


def fill_gathered(scope: Scope) -> None:
    """Put every rank's collective kernels (context `nccl_kernels`, one table per rank) into rank_kernels."""
    import numpy as np
    import pyarrow as pa

    for rank, table in scope.context.nccl_kernels.items():
        ranked = table.set_column(table.schema.get_field_index("rank"), "rank",
                                  pa.array(np.full(len(table), rank, dtype=np.int32)))
        scope.con.register("gathered_rank", ranked)
        scope.con.execute("INSERT INTO rank_kernels BY NAME "
                          "SELECT *, end_ns - start_ns AS duration_ns FROM gathered_rank")
        scope.con.unregister("gathered_rank")


def fill_sources(scope: Scope) -> None:
    """Put the ranks' sources (context `sources`) into rank_sources."""
    scope.con.executemany("INSERT INTO rank_sources VALUES (?, ?, ?, ?, ?)",
                          [[s.rank, s.trace_id, s.device, *(s.window or (None, None))]
                           for s in scope.context.sources])


def fill_offsets(scope: Scope) -> None:
    """Put the chosen clock offsets (context `clocks`) into rank_offsets."""
    scope.con.executemany("INSERT INTO rank_offsets VALUES (?, ?)",
                          [[rank, clock["offset_ns"]] for rank, clock in scope.context.clocks.items()])


def fill_groups(scope: Scope) -> None:
    """Put the ranges of a --by-nvtx timeline's groups (context `nvtx_groups`: (group, start, end, tid) tuples)
    into timeline_groups."""
    groups = scope.context.nvtx_groups or ()
    if groups:
        scope.con.executemany("INSERT INTO timeline_groups VALUES (?, ?, ?, ?)", [list(g) for g in groups])


FILLERS: dict[str, Callable[[Scope], None]] = {
    "classify.name_matches": rules.fill_name_matches,
    "classify.context_matches": rules.fill_context_matches,
    "classify.kernel_classes": rules.check_and_record,
    "classify.family_matches": rules.fill_family_matches,
    "classify.kernel_families": rules.check_and_record_families,
    "scope.window_ranges": fill_window_ranges,
    "history.metric_directions": fill_directions,
    "compare.timings": fill_timings,
    "ranks.gathered_nccl_kernels": fill_gathered,
    "ranks.sources": fill_sources,
    "ranks.clock_offsets": fill_offsets,
    "timeline.groups": fill_groups,
}
