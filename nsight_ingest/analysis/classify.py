"""Where the kernel time goes: span, busy share, launch gaps, CPU-GPU launch overlap and time per component."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import inputs_block, integrity, percent, rule_set_block
from nsight_ingest.analysis.ncu import Thresholds
from nsight_ingest.errors import EmptyScope
from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture

OVERLAP_SCOPE = "CUDA kernel-launch API intervals intersected with GPU kernel intervals"
UNASSIGNED = "unassigned"


def launch_gaps(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Gap statistics of one device, or summed over devices (maximum of maxima)."""
    count = sum(int(p["positive_gap_count"]) for p in parts)
    total = sum(int(p["gap_total_ns"]) for p in parts)
    return {
        "positive_gap_count": count,
        "total_ns": total,
        "average_ns": total / count if count else None,
        "maximum_ns": max((int(p["gap_maximum_ns"]) for p in parts), default=0),
    }


def _overlap(row: dict[str, Any]) -> dict[str, Any]:
    union = int(row["api_union_ns"] or 0)
    overlap = union + int(row["kernel_union_ns"]) - int(row["either_union_ns"]) if union else 0
    return {
        "scope": OVERLAP_SCOPE,
        "launch_api_union_ns": union,
        "launch_api_gpu_overlap_ns": overlap,
        "launch_api_overlap_percent": percent(overlap, union),
    }


def _time_entry(time_ns: int, launches: int) -> dict[str, Any]:
    return {"milliseconds": time_ns / 1e6, "launches": launches}


def _components(rows: list[dict[str, Any]], order: list[tuple[str, str]], kernel_time_ns: int) -> dict[str, Any]:
    """Per component in rule order (zeros included), with sub-components that sum to it when the rules name any."""
    result = {}
    for component, _ in order:
        mine = [r for r in rows if r["component"] == component]
        time_ns = sum(int(r["time_ns"]) for r in mine)
        entry = {
            "milliseconds": time_ns / 1e6,
            "percent_of_kernel_time": percent(time_ns, kernel_time_ns),
            "launches": sum(int(r["launches"]) for r in mine),
        }
        if any(r["sub_component"] for r in mine):
            ordered = sorted(mine, key=lambda r: (r["sub_component"] is None, -int(r["time_ns"])))
            entry["sub_components"] = {
                r["sub_component"] or UNASSIGNED: _time_entry(int(r["time_ns"]), int(r["launches"])) for r in ordered
            }
        result[component] = entry
    return result


def launch_api_counts(rows: list[dict[str, Any]], coverage: dict[str, Any]) -> dict[str, Any]:
    """Launch calls of the scope (launches.launch_api rows): the flat `<api>_calls` keys, `launch_api_calls`,
    graph kernels, and the `coverage` of launch rows and kernels (scope.launch_coverage)."""
    return {
        "runtime_kernel_launches": sum(int(r["calls"]) for r in rows),
        **{f"{r['api_function']}_calls": int(r["calls"]) for r in rows},
        "launch_api_calls": {r["api_function"]: int(r["calls"]) for r in rows},
        "graph_kernels": sum(int(r["kernels"]) for r in rows if r["is_graph"]),
        "kernels_without_launch_row": int(coverage["kernels_without_launch_row"]),
        "launch_rows_without_kernel": int(coverage["launch_rows_without_kernel"]),
    }


def _summary(totals: dict[str, Any], gaps: dict[str, Any], overlap: dict[str, Any] | None,
             components: list[dict[str, Any]], rule_set: RuleSet) -> dict[str, Any]:
    span = int(totals["gpu_span_ns"] or 0)
    kernel_time = int(totals["kernel_time_ns"])
    devices = int(totals["device_count"])
    return {
        "gpu_span_ns": span,
        "gpu_operation_count": int(totals["gpu_operation_count"]),
        "kernel_count": int(totals["kernel_count"]),
        "kernel_time_ns": kernel_time,
        # Kernel time over span x devices, so a multi-GPU file never shows more than 100% busy.
        "kernel_busy_percent_of_span": percent(kernel_time, span * devices),
        "launch_gaps": gaps,
        "cpu_gpu_overlap": overlap,
        "components": _components(components, rule_set.components(), kernel_time),
    }


def ncu_by_component(scope: Scope, ncu_traces: list[int], thresholds: Thresholds) -> dict[str, dict[str, Any]]:
    """Per component: percent of its nsys kernel time in profiled, compute/memory/latency-bound and balanced
    kernels, and the time-weighted mean SM and memory throughput of the profiled part."""
    result = {}
    for row in scope.rows("ncu.by_component", ncu_traces=ncu_traces, **thresholds.params()):
        total = int(row["time_ns"])
        result[row["component"]] = {
            "profiled_percent": percent(row["profiled_ns"], total),
            **{f"{v}_percent": percent(row[f"{v}_ns"], total)
               for v in ("compute_bound", "memory_bound", "latency_bound", "balanced")},
            "sm_throughput_pct": row["sm_throughput_pct"],
            "memory_throughput_pct": row["memory_throughput_pct"],
        }
    return result


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The classify summary of one capture (or window): span, busy, gaps, overlap and components, with inputs,
    devices, launch API counts, integrity and (with ncu exports) bound verdicts per component."""
    rule_set: RuleSet = scope.context["rule_set"]
    window = scope.context["window"]
    totals = {row.pop("device"): row for row in scope.rows("scope.summary")}
    if not totals.get(None, {}).get("gpu_operation_count"):
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    devices = [device for device in totals if device is not None]
    # One timeline query per device; with several devices, one more over all of them for the launch overlap.
    scopes = devices if len(devices) == 1 else [None, *devices]
    timelines = {device: scope.row("classify.timeline", device=device) for device in scopes}
    timelines.setdefault(None, timelines[devices[0]])
    components: dict[str | None, list[dict[str, Any]]] = {}
    for row in scope.rows("classify.components"):
        components.setdefault(row.pop("device"), []).append(row)
    has_launches = capture.kern_exec is not None
    coverage = scope.row("scope.launch_coverage") if has_launches else None

    def part(device: str | None) -> dict[str, Any]:
        gap_parts = [timelines[device]] if device is not None else [timelines[d] for d in devices]
        overlap = _overlap(timelines[device]) if has_launches else None
        return _summary(totals[device], launch_gaps(gap_parts), overlap, components.get(device, []), rule_set)

    result = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        **part(None),
        "classification_policy": dict(rule_set.components()),
        "launch_api": launch_api_counts(scope.rows("launches.launch_api"), coverage) if has_launches else None,
        "inputs": inputs_block(capture.roles()),
        "devices": {device: part(device) for device in devices},
        "rule_set": rule_set_block(rule_set),
        "capture_id": capture.capture_id,
        "integrity": integrity.check(scope, capture, coverage),
    }
    if capture.ncu:
        thresholds = Thresholds.of(options)
        joined = ncu_by_component(scope, [i.trace_id for i in capture.ncu], thresholds)
        for component, entry in result["components"].items():
            entry["ncu"] = joined.get(component)
        result["ncu_thresholds"] = thresholds.params()
    return result
