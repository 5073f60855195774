"""Text tables for people, the primitives every analysis's table renderer shares (rich is imported only when a
table is printed: JSON output starts faster): a table, a console, markup escaping, a title, and the tables that
belong to no one analysis (a row per window or NVTX group; a query's rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.text import ms, pct

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def escape(text: str) -> str:
    """`text` with rich markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def grid(**options: Any) -> Table:
    """A table without edge lines."""
    from rich.table import Table

    return Table(show_edge=False, **options)


def new_console(**options: Any) -> Console:
    """A console to print tables on."""
    from rich.console import Console

    return Console(**options)


def title(command: str, result: dict[str, Any]) -> str:
    """A command's heading: the capture it read, and its window if any."""
    window = f" [{result['window']}]" if "window" in result else ""
    return f"{command} {result['source_gpu_trace']}{window}"


def print_windows(result: dict[str, Any], console: Console | None = None) -> None:
    """One row per window (--per-nvtx) or group (--by-nvtx): where it starts, its span, kernels, kernel time, how
    busy the GPU was in its ranges and its largest gap."""
    console = console or new_console(width=150)
    grouped = "groups" in result
    parts = result["groups"] if grouped else {p.get("window"): p for p in result["windows"]}
    chosen = f"--by-nvtx {result['by_nvtx']}" if grouped else f"--per-nvtx {result['per_nvtx']}"
    table = grid(title=escape(f"{chosen}: {len(parts)} {'groups' if grouped else 'windows'}"))
    replayed = any("predicted_span_ns" in p for p in parts.values())  # whatif: each window's replay
    for column in ("group" if grouped else "window", "ranges", "start ms", "range ms", "span ms", "kernels",
                   "kernel ms", "busy %", "largest gap ms", *(("predicted ms", "change") if replayed else ())):
        table.add_column(column, justify="left" if column in ("group", "window") else "right", overflow="fold")
    for label, p in parts.items():
        gap = (p.get("launch_gaps") or {}).get("maximum_ns", (p.get("gaps") or {}).get("max_ns"))
        table.add_row(escape(str(label)), str(p.get("ranges", "-")), ms(p.get("range_start_ns")),
                      ms(p.get("range_time_ns")), ms(p.get("gpu_span_ns", p.get("span_ns", p.get("measured_span_ns")))),
                      str(p.get("kernel_count", "-")),
                      ms(p.get("kernel_time_ns")), pct(p.get("busy_percent")), ms(gap),
                      *((ms(p.get("predicted_span_ns")), pct(p.get("change_percent"))) if replayed else ()))
    console.print(table)


def print_rows(columns: list[str], rows: list[tuple], console: Console | None = None) -> None:
    """A query result as a text table."""
    console = console or new_console(width=200)
    table = grid()
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    console.print(table)
