"""Where the kernel time goes: span, busy share, launch gaps, CPU-GPU launch overlap, time per component and per
kernel family, and the kernels with the most time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import communication, idle, inputs_block, integrity, nvtx_figures, percent, rule_set_block
from nsight_ingest.analysis.ncu import Thresholds
from nsight_ingest.errors import EmptyScope
from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console, title
from nsight_ingest.text import fixed, kernel_labels, ms, pct

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


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


def _share(time_ns: int, launches: int, kernel_time_ns: int) -> dict[str, Any]:
    return {"milliseconds": time_ns / 1e6, "percent_of_kernel_time": percent(time_ns, kernel_time_ns),
            "launches": launches}


def _families(rows: list[dict[str, Any]], order: list[str], kernel_time_ns: int) -> dict[str, Any]:
    """Per family in the family rules' order, zeros included (classify.families rows of one component or all)."""
    found = {r["family"]: r for r in rows}
    return {family: _share(int(found[family]["time_ns"]) if family in found else 0,
                           int(found[family]["launches"]) if family in found else 0, kernel_time_ns)
            for family in order}


def _components(rows: list[dict[str, Any]], order: list[tuple[str, str]], kernel_time_ns: int,
                families: list[dict[str, Any]], family_order: list[str]) -> dict[str, Any]:
    """Per component in rule order (zeros included), with its family split and, when the rules name any,
    sub-components that sum to it."""
    result = {}
    for component, _ in order:
        mine = [r for r in rows if r["component"] == component]
        time_ns = sum(int(r["time_ns"]) for r in mine)
        entry = _share(time_ns, sum(int(r["launches"]) for r in mine), kernel_time_ns)
        entry["families"] = _families([r for r in families if r["component"] == component], family_order, time_ns)
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


def top_kernels(rows: list[dict[str, Any]], kernel_time_ns: int) -> list[dict[str, Any]]:
    """The classify.top_kernels rows of one device (or the whole scope) as JSON entries, most time first."""
    return [{
        "name": r["name"],
        "short_name": r["short_name"],
        "kernel_key": r["kernel_key"],
        "component": r["component"],
        "components": {c["component"]: int(c["time_ns"]) for c in r["components"]},
        "family": r["family"],
        "launches": int(r["launches"]),
        "total_ns": int(r["total_ns"]),
        "mean_ns": float(r["mean_ns"]),
        "median_ns": float(r["median_ns"]),
        "min_ns": int(r["min_ns"]),
        "max_ns": int(r["max_ns"]),
        "percent_of_kernel_time": percent(r["total_ns"], kernel_time_ns),
        "devices": list(r["devices"]),
    } for r in rows]


def _summary(totals: dict[str, Any], gaps: dict[str, Any], overlap: dict[str, Any] | None,
             classes: dict[str, list[dict[str, Any]]], activity: dict[str, Any], rule_set: RuleSet,
             family_set: RuleSet) -> dict[str, Any]:
    """The summary of one device (or the whole scope); `classes` holds its rows of classify.components,
    classify.families (`family_rows`: per component, and over all of them with component None) and
    classify.top_kernels; `activity` its kernel union and idle causes (idle.by_device) and its communication
    block."""
    span = int(totals["gpu_span_ns"] or 0)
    kernel_time = int(totals["kernel_time_ns"])
    devices = int(totals["device_count"])
    family_order = [family for family, _ in family_set.classes()]
    family_rows = classes["families"]
    return {
        "gpu_span_ns": span,
        "gpu_operation_count": int(totals["gpu_operation_count"]),
        "kernel_count": int(totals["kernel_count"]),
        "kernel_time_ns": kernel_time,
        # Kernel time over span x devices, so a multi-GPU file never shows more than 100% busy.
        "kernel_busy_percent_of_span": percent(kernel_time, span * devices),
        # The time any kernel runs, likewise: concurrent kernels count once.
        "kernel_union_percent_of_span": percent(activity["kernel_union_ns"], span * devices),
        "launch_gaps": gaps,
        "idle": activity["idle"],
        "cpu_gpu_overlap": overlap,
        "communication": activity["communication"],
        "components": _components(classes["components"], rule_set.classes(), kernel_time,
                                  [r for r in family_rows if r["component"] is not None], family_order),
        "families": _families([r for r in family_rows if r["component"] is None], family_order, kernel_time),
        "top_kernels": top_kernels(classes["top_kernels"], kernel_time),
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


def _outside(device: dict[str, Any], whole: dict[str, Any]) -> dict[str, int]:
    """How much later than the scope a device starts and how much earlier it ends (ns): idle time of the scope's span
    that is outside the device's own."""
    return {"starts_late_ns": int(device["first_start_ns"] - whole["first_start_ns"]),
            "ends_early_ns": int(whole["last_end_ns"] - device["last_end_ns"])}


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The classify summary of one capture (or window): span, busy, gaps, overlap and components, with inputs,
    devices, launch API counts, integrity and (with ncu exports) bound verdicts per component."""
    rule_set: RuleSet = scope.context.rule_set
    family_set: RuleSet = scope.context.family_set
    window = scope.context.window
    totals = {row.pop("device"): row for row in scope.rows("scope.summary")}
    if not totals.get(None, {}).get("gpu_operation_count"):
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    devices = [device for device in totals if device is not None]
    # One timeline query per device; with several devices, one more over all of them for the launch overlap.
    scopes = devices if len(devices) == 1 else [None, *devices]
    timelines = {device: scope.row("classify.timeline", device=device) for device in scopes}
    timelines.setdefault(None, timelines[devices[0]])
    gaps = timelines
    if window is not None:  # a window's gaps leave out the time between its ranges (launches.kernel_gaps)
        gaps = {row["device"]: {"positive_gap_count": row["positive_gap_count"], "gap_total_ns": row["total_ns"],
                                "gap_maximum_ns": row["max_ns"] or 0}
                for row in scope.rows("launches.gap_percentiles") if row["device"] is not None}
        gaps = {device: gaps.get(device, {"positive_gap_count": 0, "gap_total_ns": 0, "gap_maximum_ns": 0})
                for device in devices}
    # per device (None: the whole scope) the rows of each module; a device with memory operations alone has none
    classes = {device: {"components": [], "families": [], "top_kernels": []} for device in totals}
    for module, key, params in (("classify.components", "components", {}), ("classify.families", "families", {}),
                                ("classify.top_kernels", "top_kernels", {"top": options["top"]})):
        for row in scope.rows(module, **params):
            classes[row.pop("device")][key].append(row)
    has_launches = capture.kern_exec is not None
    coverage = scope.row("scope.launch_coverage") if has_launches else None
    idle_by_device = idle.by_device(scope, capture)
    communication_by_device = communication.by_device(scope.rows("communication.overlap"), devices)
    unions = {device: int(timelines[device]["kernel_union_ns"]) for device in devices}
    unions[None] = sum(unions.values())  # per device: kernels of two devices at once are two devices busy
    activity = {device: {"kernel_union_ns": unions[device], "idle": idle_by_device[device],
                         "communication": communication_by_device[device]} for device in totals}

    def part(device: str | None) -> dict[str, Any]:
        gap_parts = [gaps[device]] if device is not None else [gaps[d] for d in devices]
        overlap = _overlap(timelines[device]) if has_launches else None
        return _summary(totals[device], launch_gaps(gap_parts), overlap, classes[device], activity[device],
                        rule_set, family_set)

    result = {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        **(nvtx_figures(scope) if window and window.nvtx else {}),
        **part(None),
        "classification_policy": dict(rule_set.classes()),
        "family_policy": dict(family_set.classes()),
        "launch_api": launch_api_counts(scope.rows("launches.launch_api"), coverage) if has_launches else None,
        "inputs": inputs_block(capture.roles()),
        "idle_inputs": idle.relied_on(capture),
        "devices": {device: {**part(device), **_outside(totals[device], totals[None])} for device in devices},
        "rule_set": rule_set_block(scope.context),
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


# The share of kernel time in `other` above which the component rules say little of a capture: they name few of its
# kernels (the bundled ones name those of DiT blocks: SageAttention, NVFP4 GEMMs, norms).
MOSTLY_OTHER_PERCENT = 90.0


def rules_hint(parts: list[dict[str, Any]]) -> list[str]:
    """A hint when the component rules leave most of the kernel time of these classify results (a capture, or its
    windows together) in `other`."""
    other = sum(part["components"].get("other", {}).get("milliseconds", 0.0) for part in parts)
    total = sum(part["kernel_time_ns"] for part in parts) / 1e6
    share = percent(other, total)
    if share is None or share < MOSTLY_OTHER_PERCENT:
        return []
    first = parts[0]
    return [f"{first['source_gpu_trace']}: the component rules ({first['rule_set']['path']}) leave {share:.1f}% of "
            f"the kernel time in 'other': they name few of its kernels. The kernel families split the time on any "
            f"workload (`families` in the JSON, the families table); --rules FOLDER takes components of your own "
            f"(docs: Writing rules)"]


def _summary_lines(title: str, s: dict[str, Any]) -> list[str]:
    gaps = s["launch_gaps"]
    lines = [
        f"[bold]{escape(title)}[/bold]",
        f"GPU span {ms(s['gpu_span_ns'])} ms | {s['gpu_operation_count']} GPU ops | {s['kernel_count']} kernels"
        f" | kernel time {ms(s['kernel_time_ns'])} ms ({pct(s['kernel_busy_percent_of_span'])} busy summed,"
        f" {pct(s['kernel_union_percent_of_span'])} with a kernel running)",
        f"Launch gaps: {gaps['positive_gap_count']} positive, total {ms(gaps['total_ns'])} ms,"
        f" average {ms(gaps['average_ns'])} ms, max {ms(gaps['maximum_ns'])} ms",
        idle.idle_line(s["idle"], len(s.get("devices") or {})),
    ]
    if s["communication"] is not None:
        lines.append(communication.communication_line(s["communication"]))
    overlap = s["cpu_gpu_overlap"]
    if overlap is None:
        lines.append("CPU-GPU launch overlap: - (no kern_exec trace)")
    else:
        lines.append(
            f"CPU-GPU launch overlap: {ms(overlap['launch_api_gpu_overlap_ns'])} ms of"
            f" {ms(overlap['launch_api_union_ns'])} ms launch-API union"
            f" ({pct(overlap['launch_api_overlap_percent'])})"
        )
    return lines


def _components_table(components: dict[str, Any], policy: dict[str, str] | None) -> Table:
    table = grid()
    table.add_column("component")
    table.add_column("ms", justify="right")
    table.add_column("% kernel time", justify="right")
    table.add_column("launches", justify="right")
    if policy is not None:
        table.add_column("policy", overflow="fold")
    for name, c in components.items():
        cells = [escape(name), f"{c['milliseconds']:,.3f}", pct(c["percent_of_kernel_time"]), str(c["launches"])]
        table.add_row(*cells, *([policy.get(name, "")] if policy is not None else []))
        for sub, s in c.get("sub_components", {}).items():
            share = percent(s["milliseconds"], c["milliseconds"])
            table.add_row(f"  {sub}", f"{s['milliseconds']:,.3f}", f"({pct(share)})", str(s["launches"]),
                          *([""] if policy is not None else []))
    return table


def _ncu_table(components: dict[str, Any]) -> Table:
    """Per component with ncu data: how much of its kernel time ncu profiled, split by bound verdict, and the
    time-weighted mean throughputs of the profiled part."""
    table = grid(title="ncu verdicts by component (% of the component's kernel time)")
    for column in ("component", "profiled", "compute-bound", "memory-bound", "latency-bound", "balanced",
                   "SM throughput %", "memory throughput %"):
        table.add_column(column, justify="left" if column == "component" else "right")
    for name, c in components.items():
        if c.get("ncu"):
            n = c["ncu"]
            table.add_row(escape(name), *(pct(n[f"{key}_percent"]) for key in (
                "profiled", "compute_bound", "memory_bound", "latency_bound", "balanced")),
                *(fixed(n[key]) for key in ("sm_throughput_pct", "memory_throughput_pct")))
    return table


def _families_table(families: dict[str, Any]) -> Table:
    """The family split, families without kernels left out."""
    table = grid(title="kernel families")
    for column in ("family", "ms", "% kernel time", "launches"):
        table.add_column(column, justify="left" if column == "family" else "right")
    for name, f in families.items():
        if f["launches"]:
            table.add_row(name, f"{f['milliseconds']:,.3f}", pct(f["percent_of_kernel_time"]), str(f["launches"]))
    return table


def top_kernels_table(kernels: list[dict[str, Any]]) -> Table:
    table = grid(title="top kernels")
    for column in ("#", "kernel", "family", "component", "ms", "%", "launches", "mean us", "median us", "max us"):
        table.add_column(column, justify="left" if column in ("kernel", "family", "component") else "right",
                         overflow="fold", min_width=40 if column == "kernel" else None)
    labels = kernel_labels([k["name"] for k in kernels], [k["short_name"] for k in kernels])
    for rank, (label, k) in enumerate(zip(labels, kernels, strict=True), start=1):
        split = "" if len(k["components"]) == 1 else f" (+{len(k['components']) - 1})"
        table.add_row(str(rank), escape(label), k["family"], escape(k["component"] + split), ms(k["total_ns"]),
                      pct(k["percent_of_kernel_time"]), str(k["launches"]), f"{k['mean_ns'] / 1e3:,.2f}",
                      f"{k['median_ns'] / 1e3:,.2f}", f"{k['max_ns'] / 1e3:,.2f}")
    return table


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The classify summary as text tables, one block per device when there are several."""
    console = console or new_console(width=140)
    for line in _summary_lines(title("classify", result), result):
        console.print(line, highlight=False)
    console.print(_components_table(result["components"], result["classification_policy"]))
    if any(c.get("ncu") for c in result["components"].values()):
        console.print(_ncu_table(result["components"]))
    console.print(_families_table(result["families"]))
    console.print(top_kernels_table(result["top_kernels"]))
    if len(result["devices"]) > 1:
        for device, summary in result["devices"].items():
            console.print()
            for line in _summary_lines(device, summary):
                console.print(line, highlight=False)
            console.print(_components_table(summary["components"], None))
            console.print(_families_table(summary["families"]))
            console.print(top_kernels_table(summary["top_kernels"]))
    inputs = ", ".join(
        f"{i['role']}={i['path']} ({i['rows']} rows, sha256 {i['sha256'][:12]})" for i in result["inputs"]
    )
    console.print(escape(f"inputs: {inputs}; rules {result['rule_set']['version']}"), highlight=False,
                  soft_wrap=True)
