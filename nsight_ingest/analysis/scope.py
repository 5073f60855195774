"""Select what an analysis looks at: a whole capture or time windows of it (NVTX ranges, explicit ranges)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

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
