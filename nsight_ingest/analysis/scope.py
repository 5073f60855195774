"""Select what an analysis looks at: a whole capture or time windows of it (NVTX ranges, explicit ranges)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from nsight_ingest.errors import InputError
from nsight_ingest.sqlfiles import read_sql
from nsight_ingest.store import Capture


@dataclass(frozen=True)
class Window:
    """Time ranges [start, end) in ns, each optionally tied to the thread that opened it (NVTX)."""

    label: str
    ranges: tuple[tuple[int, int, int | None], ...]


def select(con: duckdb.DuckDBPyConnection, capture: Capture, window: Window | None = None) -> None:
    """Create the scope_* temp relations that analyses and rules read, for the capture or one window of it."""
    ids = {
        "gpu_trace": capture.gpu_trace.trace_id,
        "kern_exec_trace": capture.kern_exec.trace_id if capture.kern_exec else "NULL",
    }
    if window is None:
        con.execute(read_sql("analysis/scope_capture.sql").format(**ids))
    else:
        con.execute("CREATE OR REPLACE TEMP TABLE window_ranges (start_ns BIGINT, end_ns BIGINT, tid BIGINT)")
        con.executemany("INSERT INTO window_ranges VALUES (?, ?, ?)", [list(r) for r in window.ranges])
        con.execute(read_sql("analysis/scope_window.sql").format(**ids))
    con.execute(read_sql("analysis/scope_kernels.sql"))


def time_range(spec: str) -> Window:
    """`START_NS:END_NS` as a window (either side may be empty: open-ended)."""
    start, sep, end = spec.partition(":")
    try:
        if not sep:
            raise ValueError
        low = int(start) if start.strip() else -(2**62)
        high = int(end) if end.strip() else 2**62
    except ValueError:
        raise InputError(f"--range {spec!r}: expected START_NS:END_NS in integer nanoseconds") from None
    if high <= low:
        raise InputError(f"--range {spec!r}: the end must come after the start")
    return Window(f"range {spec}", ((low, high, None),))


def _nvtx_rows(con: duckdb.DuckDBPyConnection, capture: Capture, name: str | None, pattern: str | None) -> list:
    if capture.nvtx is None:
        raise InputError(f"{capture.gpu_trace.path}: NVTX windows need an nvtx_pushpop_trace (--nvtx-trace FILE)")
    try:
        return con.execute(read_sql("analysis/nvtx_ranges.sql"),
                           {"nvtx_trace": capture.nvtx.trace_id, "name": name, "pattern": pattern}).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"--per-nvtx {pattern!r}: {str(exc).splitlines()[0]}") from None


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
    return Window(f"nvtx {name}", tuple((start, end, tid) for _, start, end, tid in rows))


def per_nvtx_windows(con: duckdb.DuckDBPyConnection, capture: Capture, pattern: str) -> list[Window]:
    """One window per NVTX range whose name fully matches `pattern`, in start order."""
    rows = _nvtx_rows(con, capture, None, pattern)
    if not rows:
        raise InputError(f"no NVTX range matches {pattern!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    return [Window(f"{name} @ {start}", ((start, end, tid),)) for name, start, end, tid in rows]
