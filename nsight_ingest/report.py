"""Render analysis results: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def to_json(result: dict[str, Any]) -> str:
    """Stable, indented JSON."""
    return json.dumps(result, indent=2)


def _ms(ns: float | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:,.3f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}%"


def _summary_lines(title: str, s: dict[str, Any]) -> list[str]:
    gaps = s["launch_gaps"]
    lines = [
        f"[bold]{escape(title)}[/bold]",
        f"GPU span {_ms(s['gpu_span_ns'])} ms | {s['gpu_operation_count']} GPU ops | {s['kernel_count']} kernels"
        f" | kernel time {_ms(s['kernel_time_ns'])} ms ({_pct(s['kernel_busy_percent_of_span'])} busy)",
        f"Launch gaps: {gaps['positive_gap_count']} positive, total {_ms(gaps['total_ns'])} ms,"
        f" average {_ms(gaps['average_ns'])} ms, max {_ms(gaps['maximum_ns'])} ms",
    ]
    overlap = s["cpu_gpu_overlap"]
    if overlap is None:
        lines.append("CPU-GPU launch overlap: - (no kern_exec trace)")
    else:
        lines.append(
            f"CPU-GPU launch overlap: {_ms(overlap['launch_api_gpu_overlap_ns'])} ms of"
            f" {_ms(overlap['launch_api_union_ns'])} ms launch-API union"
            f" ({_pct(overlap['launch_api_overlap_percent'])})"
        )
    return lines


def _components_table(components: dict[str, Any], policy: dict[str, str] | None) -> Table:
    table = Table(show_edge=False)
    table.add_column("component")
    table.add_column("ms", justify="right")
    table.add_column("% kernel time", justify="right")
    table.add_column("launches", justify="right")
    if policy is not None:
        table.add_column("policy", overflow="fold")
    for name, c in components.items():
        cells = [escape(name), f"{c['milliseconds']:,.3f}", _pct(c["percent_of_kernel_time"]), str(c["launches"])]
        table.add_row(*cells, *([policy.get(name, "")] if policy is not None else []))
        for sub, s in c.get("sub_components", {}).items():
            share = 100.0 * s["milliseconds"] / c["milliseconds"] if c["milliseconds"] else None
            table.add_row(f"  {sub}", f"{s['milliseconds']:,.3f}", f"({_pct(share)})", str(s["launches"]),
                          *([""] if policy is not None else []))
    return table


def _title(command: str, result: dict[str, Any]) -> str:
    window = f" [{result['window']}]" if "window" in result else ""
    return f"{command} {result['source_gpu_trace']}{window}"


def print_classify(result: dict[str, Any], console: Console | None = None) -> None:
    """The classify summary as text tables, one block per device when there are several."""
    console = console or Console(width=140)
    title = _title("classify", result)
    for line in _summary_lines(title, result):
        console.print(line, highlight=False)
    console.print(_components_table(result["components"], result["classification_policy"]))
    if len(result["devices"]) > 1:
        for device, summary in result["devices"].items():
            console.print()
            for line in _summary_lines(device, summary):
                console.print(line, highlight=False)
            console.print(_components_table(summary["components"], None))
    inputs = ", ".join(
        f"{i['role']}={i['path']} ({i['rows']} rows, sha256 {i['sha256'][:12]})" for i in result["inputs"]
    )
    console.print(escape(f"inputs: {inputs}; rules {result['rule_set']['version']}"), highlight=False,
                  soft_wrap=True)


def print_rows(columns: list[str], rows: list[tuple], console: Console | None = None) -> None:
    """A query result as a text table."""
    console = console or Console(width=200)
    table = Table(show_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    console.print(table)


def _percentile_cells(block: dict[str, Any] | None) -> list[str]:
    block = block or {}
    return [_ms(block.get(k)) for k in ("p50_ns", "p90_ns", "p99_ns", "max_ns")]


def print_launches(result: dict[str, Any], console: Console | None = None) -> None:
    """The launch analysis as text tables."""
    console = console or Console(width=160)
    console.print(f"[bold]{escape(_title('launches', result))}[/bold]", highlight=False)
    gaps = result["gaps"]
    console.print(f"GPU idle gaps between kernels: {gaps['positive_gap_count']} positive, total {_ms(gaps['total_ns'])}"
                  f" ms; p50/p90/p99/max {' / '.join(_percentile_cells(gaps))} ms", highlight=False)
    if result.get("launch_api_calls") is not None:
        calls = ", ".join(f"{api} {n}" for api, n in result["launch_api_calls"].items())
        console.print(f"Launch calls: {result['runtime_kernel_launches']} ({calls}); graph kernels"
                      f" {result['graph_kernels']}; kernels without launch row {result['kernels_without_launch_row']}",
                      highlight=False)
        console.print(f"CPU-starved kernels (launch call ended after the GPU went idle): "
                      f"{_pct(result['cpu_starved_kernel_percent'])} of {result['kernels_considered']}",
                      highlight=False)
        latency = Table(title="launch call duration (ms)", show_edge=False)
        for column in ("api", "calls", "p50", "p90", "p99", "max"):
            latency.add_column(column, justify="left" if column == "api" else "right")
        for api, block in result["api_duration_ns"].items():
            latency.add_row(api, str(block["calls"]), *_percentile_cells(block))
        queue = result["queue_delay_ns"]
        latency.add_row("queue delay", f"{queue['queued_kernels']} queued", *_percentile_cells(queue))
        console.print(latency)
    largest = Table(title="largest gaps", show_edge=False)
    for column in ("gap ms", "before", "after"):
        largest.add_column(column, overflow="fold", justify="right" if column == "gap ms" else "left")
    for gap in result["largest_gaps"]:
        largest.add_row(_ms(gap["gap_ns"]), escape(f"[{gap['before_component']}] {gap['before'][:70]}"),
                        escape(f"[{gap['after_component']}] {gap['after'][:70]}"))
    console.print(largest)
    pairs = Table(title="idle time by component pair", show_edge=False)
    for column in ("before -> after", "gaps", "total ms"):
        pairs.add_column(column, justify="left" if column.startswith("before") else "right")
    for pair in result["gaps_by_component_pair"][:15]:
        pairs.add_row(f"{pair['before_component']} -> {pair['after_component']}", str(pair["gaps"]),
                      _ms(pair["total_ns"]))
    console.print(pairs)


def print_ncu(result: dict[str, Any], console: Console | None = None) -> None:
    """The ncu analysis as a table: one row per profiled launch."""
    console = console or Console(width=170)
    for device in result["devices"]:
        attributes = device["attributes"]
        console.print(escape(f"device {device['device']}: {attributes.get('display_name', '?')}, L2"
                             f" {attributes.get('l2_cache_size', '?')} B, {attributes.get('multiprocessor_count', '?')}"
                             " SMs"), highlight=False)
    table = Table(show_edge=False)
    for column in ("id", "kernel", "component", "us", "SM %", "mem %", "DRAM %", "L2 hit %", "verdict"):
        table.add_column(column, justify="left" if column in ("kernel", "component", "verdict") else "right",
                         overflow="fold")

    def metric(kernel: dict[str, Any], *names: str) -> str:
        for name in names:
            value = (kernel["metrics"].get(name) or {}).get("base_value")
            if value is not None:
                return f"{value:,.2f}"
        return "-"

    for k in result["kernels"]:
        duration = "-" if k["duration_ns"] is None else f"{k['duration_ns'] / 1e3:,.2f}"
        table.add_row(str(k["id"]), escape(k["name"][:60]), k["component"], duration,
                      metric(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                      metric(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
                      metric(k, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                             "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                      metric(k, "lts__t_sector_hit_rate.pct"), k["verdict"] or "-")
    console.print(table)
    if result["unknown_units"]:
        units = ", ".join(sorted({u["unit"] for u in result["unknown_units"]}))
        console.print(escape(f"unknown units kept as exported: {units}"), highlight=False)
