"""Render analysis results: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
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
        f"[bold]{title}[/bold]",
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
        cells = [name, f"{c['milliseconds']:,.3f}", _pct(c["percent_of_kernel_time"]), str(c["launches"])]
        table.add_row(*cells, *([policy.get(name, "")] if policy is not None else []))
    return table


def print_classify(result: dict[str, Any], console: Console | None = None) -> None:
    """The classify summary as text tables, one block per device when there are several."""
    console = console or Console(width=140)
    title = f"classify {result['source_gpu_trace']}"
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
    console.print(f"inputs: {inputs}; rules {result['rule_set']['version']}", highlight=False, soft_wrap=True)


def print_rows(columns: list[str], rows: list[tuple], console: Console | None = None) -> None:
    """A query result as a text table."""
    console = console or Console(width=200)
    table = Table(show_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("NULL" if v is None else str(v) for v in row))
    console.print(table)
