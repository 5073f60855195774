"""Time windows of a capture an analysis can be limited to: NVTX ranges by name or pattern, explicit ranges."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from nsight_ingest.errors import InputError, first_line
from nsight_ingest.sqlmodules import Scope, fills, query
from nsight_ingest.store import TIME_LIMIT_NS, Capture


@dataclass(frozen=True)
class Window:
    """Time ranges [start, end) in ns, each optionally tied to the thread that opened it (NVTX)."""

    label: str
    ranges: tuple[tuple[int, int, int | None], ...]
    nvtx: bool = False  # NVTX ranges (their time and how busy the GPU was in them are part of the answer)


@fills("scope.window_ranges")
def fill_window_ranges(scope: Scope) -> None:
    """Put the scope's window (context `window`, None for a whole capture) into scope_window_ranges."""
    window = scope.context.get("window")
    if window is not None:
        scope.con.executemany("INSERT INTO scope_window_ranges VALUES (?, ?, ?)", [list(r) for r in window.ranges])


def time_range(spec: str) -> Window:
    """`START_NS:END_NS` as a window (either side may be empty: open-ended)."""
    start, sep, end = spec.partition(":")
    try:
        if not sep:
            raise ValueError
        low = int(start) if start.strip() else -TIME_LIMIT_NS
        high = int(end) if end.strip() else TIME_LIMIT_NS
    except ValueError:
        raise InputError(f"--range {spec!r}: expected START_NS:END_NS in integer nanoseconds") from None
    if abs(low) > TIME_LIMIT_NS or abs(high) > TIME_LIMIT_NS:
        raise InputError(f"--range {spec!r}: times lie within +-{TIME_LIMIT_NS} ns")
    if high <= low:
        raise InputError(f"--range {spec!r}: the end must come after the start")
    return Window(f"range {spec}", ((low, high, None),))


def _nvtx_rows(con: duckdb.DuckDBPyConnection, capture: Capture, name: str | None, pattern: str | None,
               flag: str = "--per-nvtx") -> list:
    if capture.nvtx is None:
        raise InputError(f"{capture.gpu_trace.path}: NVTX windows need NVTX push/pop ranges and the capture has none "
                         f"(an export captured without nsys --trace=nvtx, or a CSV set without --nvtx-trace FILE)")
    try:
        rows = query(con, "scope.nvtx_ranges", nvtx_trace=capture.nvtx.trace_id, name=name, pattern=pattern)
    except duckdb.Error as exc:
        raise InputError(f"{flag} {pattern!r}: {first_line(exc)}") from None
    return [(r["range_name"], r["start_ns"], r["end_ns"], r["tid"], r["group_name"]) for r in rows]


def _available(con: duckdb.DuckDBPyConnection, capture: Capture) -> str:
    names = con.execute(
        "SELECT DISTINCT range_name FROM nvtx_ranges WHERE trace_id = ? ORDER BY 1 LIMIT 8", [capture.nvtx.trace_id]
    ).fetchall()
    return ", ".join(repr(n) for (n,) in names) or "none"


def nvtx_window(con: duckdb.DuckDBPyConnection, capture: Capture, name: str) -> Window:
    """Every NVTX range called `name` (domain prefix ignored), together, as one window."""
    rows = _nvtx_rows(con, capture, name.lstrip(":"), None)
    if not rows:
        raise InputError(f"no NVTX range named {name!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    return Window(f"nvtx {name}", tuple((start, end, tid) for _, start, end, tid, _ in rows), nvtx=True)


def per_nvtx_windows(con: duckdb.DuckDBPyConnection, capture: Capture, pattern: str) -> list[Window]:
    """One window per NVTX range whose name fully matches `pattern`, in start order."""
    rows = _nvtx_rows(con, capture, None, pattern)
    if not rows:
        raise InputError(f"no NVTX range matches {pattern!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    return [Window(f"{name} @ {start}", ((start, end, tid),), nvtx=True) for name, start, end, tid, _ in rows]


def by_nvtx_windows(con: duckdb.DuckDBPyConnection, capture: Capture, pattern: str) -> list[Window]:
    """The NVTX ranges whose name fully matches `pattern`, grouped by what the pattern's first capture group matched
    (DuckDB's regular expressions, as they selected the ranges); a pattern whose group matched nothing in any range,
    or that has none, makes one group named by the pattern. One window per group, in the order they first occur."""
    rows = _nvtx_rows(con, capture, None, pattern, "--by-nvtx")
    if not rows:
        raise InputError(f"no NVTX range matches {pattern!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    grouped = any(group for *_, group in rows)
    groups: dict[str, list[tuple[int, int, int | None]]] = {}
    for _, start, end, tid, group in rows:
        groups.setdefault(group if grouped else pattern, []).append((start, end, tid))
    return [Window(label, tuple(ranges), nvtx=True) for label, ranges in groups.items()]
