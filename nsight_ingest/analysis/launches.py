"""Why the GPU waits: gap anatomy, launch-call latency, queueing and CPU starvation of one capture or window."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.analysis import inputs_block, integrity, percentiles, rule_set_block, run_script, run_sql, scope
from nsight_ingest.analysis.classify import launch_api_counts, summarize
from nsight_ingest.errors import EmptyScope
from nsight_ingest.rules import RuleSet, classify_scope
from nsight_ingest.store import Capture


def _gaps(row: dict[str, Any] | None) -> dict[str, Any]:
    return {**percentiles(row), "positive_gap_count": int((row or {}).get("positive_gap_count") or 0),
            "total_ns": int((row or {}).get("total_ns") or 0)}


def _starved(row: dict[str, Any] | None) -> dict[str, Any]:
    considered = int((row or {}).get("kernels_considered") or 0)
    starved = int((row or {}).get("cpu_starved_kernels") or 0)
    return {
        "cpu_starved_kernel_percent": 100.0 * starved / considered if considered else None,
        "cpu_starved_kernels": starved,
        "kernels_considered": considered,
    }


def analyse(con: duckdb.DuckDBPyConnection, capture: Capture, rule_set: RuleSet,
            window: scope.Window | None = None, top: int = 10, *, scope_ready: bool = False) -> dict[str, Any]:
    """The launch analysis of one capture or window, as a JSON-ready dict.

    `scope_ready`: the scope of this capture and window is already selected and classified with `rule_set`."""
    if not scope_ready:
        scope.select(con, capture, window)
    if not con.execute("SELECT count(*) FROM scope_kernels").fetchone()[0]:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no kernels in this scope")
    if not scope_ready:
        classify_scope(con, rule_set)
    run_script(con, "kernel_gaps")
    gaps = {row.pop("device"): row for row in run_sql(con, "gap_percentiles")}
    starved = {row.pop("device"): row for row in run_sql(con, "cpu_starved")}
    has_launches = capture.kern_exec is not None
    devices = [d for (d,) in con.execute("SELECT DISTINCT device FROM scope_kernels ORDER BY 1").fetchall()]
    streams = run_sql(con, "stream_gaps")
    coverage = run_sql(con, "launch_coverage")[0] if has_launches else None
    calls = run_sql(con, "launch_api") if has_launches else []
    api = launch_api_counts(calls, coverage) if has_launches else {"launch_api_calls": None,
                                                                    "kernels_without_launch_row": None}
    queue = run_sql(con, "queue_delay")[0] if has_launches else None
    result: dict[str, Any] = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        **api,
        "gaps": _gaps(gaps.get(None)),
        "largest_gaps": run_sql(con, "largest_gaps", top=top),
        "gaps_by_component_pair": run_sql(con, "gaps_by_component_pair"),
        "api_duration_ns": (
            {r["api_function"]: {"calls": r["calls"], **percentiles(r)} for r in calls} if has_launches else None
        ),
        "queue_delay_ns": (
            {"queued_kernels": queue["queued_kernels"], "not_queued_kernels": queue["not_queued_kernels"],
             "total_ns": int(queue["total_ns"]), **percentiles(queue)}
            if queue else None
        ),
        **(_starved(starved.get(None)) if has_launches else {"cpu_starved_kernel_percent": None}),
    }
    if len(devices) > 1:
        result["devices"] = {
            d: {"gaps": _gaps(gaps.get(d)), **(_starved(starved.get(d)) if has_launches else {})} for d in devices
        }
    if len(streams) > 1:
        result["streams"] = [
            {"device": s["device"], "stream_id": s["stream_id"], "kernel_count": s["kernel_count"],
             "kernel_time_ns": int(s["kernel_time_ns"]),
             "gaps": _gaps({**s, "total_ns": s["gap_total_ns"]})}
            for s in streams
        ]
    result["integrity"] = integrity.check(con, capture, coverage)
    result["inputs"] = inputs_block(capture.roles())
    result["rule_set"] = rule_set_block(rule_set)
    return result


def with_summary(con: duckdb.DuckDBPyConnection, capture: Capture, rule_set: RuleSet
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """classify's summary and the launch analysis of a whole capture, selecting and classifying it once."""
    summary = summarize(con, capture, rule_set)
    return summary, analyse(con, capture, rule_set, scope_ready=True)
