"""Data problems of a capture: what was left out, what looks wrong, whether the files belong together."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.analysis import run_sql
from nsight_ingest.store import Capture

MIN_LAUNCH_MATCH_PERCENT = 90.0


def check(con: duckdb.DuckDBPyConnection, capture: Capture) -> dict[str, Any]:
    """The `integrity` block of a capture."""
    row = run_sql(con, "integrity", gpu_trace=capture.gpu_trace.trace_id,
                  kern_exec_trace=capture.kern_exec.trace_id if capture.kern_exec else None)[0]
    block: dict[str, Any] = {key: int(value) for key, value in row.items()}
    if capture.kern_exec is not None:
        matched, rows = block["launch_rows_matched"], block["launch_rows"]
        block["launch_match_percent"] = 100.0 * matched / rows if rows else 0.0
    return block


def warnings(block: dict[str, Any], capture: Capture) -> list[str]:
    """The warnings an integrity block calls for."""
    found = []
    path = capture.gpu_trace.path
    for key, what in (("negative_duration_operations", "negative durations"),
                      ("absurd_duration_operations", "durations over an hour")):
        if block[key]:
            found.append(f"{path}: {block[key]} GPU operation(s) with {what} left out of the analysis")
    rate = block.get("launch_match_percent")
    if capture.kern_exec is not None and rate < MIN_LAUNCH_MATCH_PERCENT:
        found.append(f"{capture.kern_exec.path}: only {rate:.1f}% of its rows match a kernel of {path}"
                     " on (device, start): is it from another capture?")
    return found
