"""How long launched kernels waited in the launch queue before they ran (kern_exec Queue Dur)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import inputs_block, percentile_cells, percentiles
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, new_console, title
from nsight_ingest.text import ms

if TYPE_CHECKING:
    from rich.console import Console


def delays(scope: Scope, capture: Capture) -> dict[str, Any] | None:
    """Queued and not-queued kernels, the total queue time and its percentiles; None without a kern_exec trace."""
    if capture.kern_exec is None:
        return None
    row = scope.row("launches.queue_delay")
    return {"queued_kernels": row["queued_kernels"], "not_queued_kernels": row["not_queued_kernels"],
            "total_ns": int(row["total_ns"]), **percentiles(row)}


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The queue-delay statistics of one capture or window, with the files they come from."""
    window = scope.context.window
    return {
        "source_gpu_trace": capture.gpu_trace.path,
        "source_kernel_exec_trace": capture.kern_exec.path if capture.kern_exec else None,
        **({"window": window.label} if window else {}),
        "queue_delay_ns": delays(scope, capture),
        "inputs": inputs_block(capture.roles()),
    }


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The queue-delay statistics as one line."""
    console = console or new_console(width=140)
    console.print(f"[bold]{escape(title('queue-delay', result))}[/bold]", highlight=False)
    queue = result["queue_delay_ns"]
    if queue is None:
        console.print("queue delay: - (no kern_exec trace)", highlight=False)
        return
    console.print(f"{queue['queued_kernels']} kernels queued ({queue['not_queued_kernels']} not), total"
                  f" {ms(queue['total_ns'])} ms; p50/p90/p99/max {' / '.join(percentile_cells(queue))} ms",
                  highlight=False)
