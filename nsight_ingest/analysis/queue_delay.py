"""How long launched kernels waited in the launch queue before they ran (kern_exec Queue Dur)."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import inputs_block, percentiles
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture


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
