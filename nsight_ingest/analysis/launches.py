"""Why the GPU waits: gap anatomy, launch-call latency, queueing and CPU starvation of one capture or window."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import (
    idle,
    inputs_block,
    integrity,
    nvtx_figures,
    percent,
    percentiles,
    queue_delay,
    rule_set_block,
)
from nsight_ingest.analysis.classify import launch_api_counts, top_kernels
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture


def _gaps(row: dict[str, Any] | None) -> dict[str, Any]:
    return {**percentiles(row), "positive_gap_count": int((row or {}).get("positive_gap_count") or 0),
            "total_ns": int((row or {}).get("total_ns") or 0)}


def _starved(row: dict[str, Any] | None) -> dict[str, Any]:
    considered = int((row or {}).get("kernels_considered") or 0)
    starved = int((row or {}).get("cpu_starved_kernels") or 0)
    return {
        "cpu_starved_kernel_percent": percent(starved, considered),
        "cpu_starved_kernels": starved,
        "kernels_considered": considered,
    }


def _by_family(rows: list[dict[str, Any]], order: list[str]) -> dict[str, Any]:
    """Launch-call duration and queue delay per family (launches.by_family rows), in family order."""
    found = {r["family"]: r for r in rows}
    return {family: {
        "launches": int(r["launches"]),
        "calls": int(r["calls"]),
        "api_duration_ns": {"total_ns": int(r["api_total_ns"]), **percentiles(r["api"])},
        "queue_delay_ns": {"queued_kernels": int(r["queued_kernels"]), "total_ns": int(r["queue_total_ns"]),
                           **percentiles(r["queue"])},
    } for family in order if (r := found.get(family))}


def _nvtx_group(scope: Scope, options: dict[str, Any]) -> dict[str, Any]:
    """An NVTX window's range figures, its kernels and kernel time, and its `top_kernels` kernels with the most
    time (a phase's launch anatomy next to what ran in it)."""
    kernels, time_ns = scope.con.execute("SELECT count(*), coalesce(sum(duration_ns), 0) FROM scope_kernels").fetchone()
    rows = scope.rows("classify.top_kernels", top=options["top_kernels"])
    return {**nvtx_figures(scope), "kernel_count": int(kernels), "kernel_time_ns": int(time_ns),
            "top_kernels": top_kernels([r for r in rows if r["device"] is None], int(time_ns))}


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The launch analysis of one capture or window, as a JSON-ready dict (options: `top` gaps to list)."""
    window = scope.context.window
    scope.build("scope.kernels")
    if not scope.con.execute("SELECT count(*) FROM scope_kernels").fetchone()[0]:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no kernels in this scope")
    gaps = {row.pop("device"): row for row in scope.rows("launches.gap_percentiles")}
    starved = {row.pop("device"): row for row in scope.rows("launches.cpu_starved")}
    has_launches = capture.kern_exec is not None
    devices = [d for (d,) in scope.con.execute("SELECT DISTINCT device FROM scope_kernels ORDER BY 1").fetchall()]
    streams = scope.rows("launches.stream_gaps")
    coverage = scope.row("scope.launch_coverage") if has_launches else None
    calls = scope.rows("launches.launch_api") if has_launches else []
    api = launch_api_counts(calls, coverage) if has_launches else {"launch_api_calls": None,
                                                                    "kernels_without_launch_row": None}
    idle_by_device = idle.by_device(scope, capture)
    unknown = idle.unknown_causes(capture)
    result: dict[str, Any] = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        **(_nvtx_group(scope, options) if window and window.nvtx else {}),
        **api,
        "gaps": _gaps(gaps.get(None)),
        "idle": idle_by_device[None],
        "idle_inputs": idle.relied_on(capture),
        "largest_gaps": [idle.gap_causes(gap, unknown) for gap in
                         scope.rows("launches.largest_gaps", top=options["top"], calls=options["gap_calls"])],
        "gaps_by_component_pair": scope.rows("launches.gaps_by_component_pair"),
        "gaps_by_family_pair": scope.rows("launches.gaps_by_family_pair"),
        "api_duration_ns": (
            {r["api_function"]: {"calls": r["calls"], **percentiles(r)} for r in calls} if has_launches else None
        ),
        "queue_delay_ns": queue_delay.delays(scope, capture),
        "by_family": (_by_family(scope.rows("launches.by_family"),
                                 [family for family, _ in scope.context.family_set.classes()])
                      if has_launches else None),
        **(_starved(starved.get(None)) if has_launches else {"cpu_starved_kernel_percent": None}),
    }
    if len(devices) > 1:
        result["devices"] = {
            d: {"gaps": _gaps(gaps.get(d)), "idle": idle_by_device[d],
                **(_starved(starved.get(d)) if has_launches else {})} for d in devices
        }
    if len(streams) > 1:
        result["streams"] = [
            {"device": s["device"], "stream_id": s["stream_id"], "kernel_count": s["kernel_count"],
             "kernel_time_ns": int(s["kernel_time_ns"]),
             "gaps": _gaps({**s, "total_ns": s["gap_total_ns"]})}
            for s in streams
        ]
    result["integrity"] = integrity.check(scope, capture, coverage)
    result["inputs"] = inputs_block(capture.roles())
    result["rule_set"] = rule_set_block(scope.context)
    return result
