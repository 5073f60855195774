"""Where the kernel time goes: the seed-003 summary (span, busy, launch gaps, launch overlap, components)."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.analysis import run_sql
from nsight_ingest.rules import RuleSet, classify_names
from nsight_ingest.store import Capture

OVERLAP_SCOPE = "CUDA kernel-launch API intervals intersected with GPU kernel intervals"


def _by_device(rows: list[dict[str, Any]]) -> dict[str | None, dict[str, Any]]:
    return {row.pop("device"): row for row in rows}


def _launch_gaps(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Gap statistics of one device, or summed over devices (maximum of maxima)."""
    count = sum(int(p["positive_gap_count"]) for p in parts)
    total = sum(int(p["gap_total_ns"]) for p in parts)
    return {
        "positive_gap_count": count,
        "total_ns": total,
        "average_ns": total / count if count else None,
        "maximum_ns": max((int(p["gap_maximum_ns"]) for p in parts), default=0),
    }


def _overlap(row: dict[str, Any], has_launch_trace: bool) -> dict[str, Any] | None:
    if not has_launch_trace:
        return None
    union = int(row["api_union_ns"] or 0)
    overlap = union + int(row["kernel_union_ns"]) - int(row["either_union_ns"]) if union else 0
    return {
        "scope": OVERLAP_SCOPE,
        "launch_api_union_ns": union,
        "launch_api_gpu_overlap_ns": overlap,
        "launch_api_overlap_percent": 100.0 * overlap / union if union else None,
    }


def _components(
    rows: list[dict[str, Any]], order: list[tuple[str, str]], kernel_time_ns: int
) -> dict[str, dict[str, Any]]:
    found = {row["component"]: row for row in rows}
    result = {}
    for component, _ in order:
        row = found.get(component, {"launches": 0, "time_ns": 0})
        time_ns = int(row["time_ns"])
        result[component] = {
            "milliseconds": time_ns / 1e6,
            "percent_of_kernel_time": 100.0 * time_ns / kernel_time_ns if kernel_time_ns else None,
            "launches": int(row["launches"]),
        }
    return result


def _summary(
    totals: dict[str, Any],
    gaps: dict[str, Any],
    overlap: dict[str, Any] | None,
    components: list[dict[str, Any]],
    rule_set: RuleSet,
) -> dict[str, Any]:
    span = int(totals["gpu_span_ns"])
    kernel_time = int(totals["kernel_time_ns"])
    devices = int(totals["device_count"])
    return {
        "gpu_span_ns": span,
        "gpu_operation_count": int(totals["gpu_operation_count"]),
        "kernel_count": int(totals["kernel_count"]),
        "kernel_time_ns": kernel_time,
        # Kernel time over span x devices, so a multi-GPU file never shows more than 100% busy.
        "kernel_busy_percent_of_span": 100.0 * kernel_time / (span * devices) if span else None,
        "launch_gaps": gaps,
        "cpu_gpu_overlap": overlap,
        "components": _components(components, rule_set.components(), kernel_time),
    }


def summarize(con: duckdb.DuckDBPyConnection, capture: Capture, rule_set: RuleSet) -> dict[str, Any]:
    """The classify summary of one capture, with seed-003 keys plus `inputs`, `devices` and `rule_set`."""
    gpu_id = capture.gpu_trace.trace_id
    kern_id = capture.kern_exec.trace_id if capture.kern_exec else None
    classify_names(con, rule_set, f"SELECT name FROM kernels WHERE trace_id = {gpu_id}")
    totals = _by_device(run_sql(con, "trace_summary", gpu_trace=gpu_id))
    devices = [device for device in totals if device is not None]
    # One timeline query per device; with several devices, one more over all of them for the launch overlap.
    scopes = devices if len(devices) == 1 else [None, *devices]
    timelines = {
        scope: run_sql(con, "timeline", gpu_trace=gpu_id, kern_exec_trace=kern_id, device=scope)[0]
        for scope in scopes
    }
    timelines.setdefault(None, timelines[devices[0]])
    components: dict[str | None, list[dict[str, Any]]] = {}
    for row in run_sql(con, "components", gpu_trace=gpu_id):
        components.setdefault(row.pop("device"), []).append(row)
    has_launches = kern_id is not None

    def part(device: str | None) -> dict[str, Any]:
        gap_parts = [timelines[device]] if device is not None else [timelines[d] for d in devices]
        return _summary(totals[device], _launch_gaps(gap_parts), _overlap(timelines[device], has_launches),
                        components.get(device, []), rule_set)

    result: dict[str, Any] = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **part(None),
        "classification_policy": dict(rule_set.components()),
        "inputs": [
            {"path": i.path, "role": role, "sha256": i.sha256, "rows": i.rows}
            | ({"content_sha256": i.content_sha256} if i.content_sha256 else {})
            for i, role in ((capture.gpu_trace, "gpu_trace"), (capture.kern_exec, "kernel_exec_trace"))
            if i is not None
        ],
        "devices": {device: part(device) for device in devices},
        "rule_set": {"path": str(rule_set.directory), "version": rule_set.version,
                     "files": [rule.path.name for rule in rule_set.files]},
        "capture_id": capture.capture_id,
    }
    return result
