"""Why the GPU idles: the time no kernel runs on a device, split by cause (sql/idle/), for a whole scope and for
single launch gaps."""

from __future__ import annotations

from typing import Any

from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.text import IDLE_CAUSE_LABELS, ms

# The causes of a gap's idle time, in the order they are checked: a gap holding a CUDA graph replay the capture has
# no kernels of is the replay's; else the first cause that holds gets the nanosecond.
GAP_CAUSES = ("untraced_graph_ns", "memory_transfer_ns", "synchronization_ns", "cpu_launch_ns", "other_ns")
# The causes of a device's idle time: its gaps', and the capture's span before its first operation and after its last.
CAUSES = ("inactive_ns", *GAP_CAUSES)


# What a capture lacks when it cannot tell a cause.
LACKS = {"untraced_graph_ns": "no CUDA API trace (cuda_api_trace) to show CUDA graph replays",
         "synchronization_ns": "no CUDA API trace (cuda_api_trace)",
         "cpu_launch_ns": "no launch rows (cuda_kern_exec_trace)"}


# The inputs (the roles of `inputs`) each cause is told from; without them a cause is unknown (LACKS).
TOLD_FROM = {"inactive_ns": ("gpu_trace",), "untraced_graph_ns": ("gpu_trace", "api_trace"),
             "memory_transfer_ns": ("gpu_trace",), "synchronization_ns": ("gpu_trace", "api_trace"),
             "cpu_launch_ns": ("gpu_trace", "kernel_exec_trace"), "other_ns": ("gpu_trace",)}


def unknown_causes(capture: Capture) -> dict[str, str]:
    """The causes the capture cannot tell (their time falls to the later causes), each with what it lacks."""
    missing = {"untraced_graph_ns": capture.api is None, "synchronization_ns": capture.api is None,
               "cpu_launch_ns": capture.kern_exec is None}
    return {cause: LACKS[cause] for cause, lacked in missing.items() if lacked}


def relied_on(capture: Capture) -> dict[str, Any]:
    """What the idle causes were told from: per cause the inputs it relied on, or (unknown) what the capture lacks."""
    unknown = unknown_causes(capture)
    return {"relied_on": {cause: list(TOLD_FROM[cause]) for cause in CAUSES if cause not in unknown},
            "unknown": unknown}


def _causes(row: dict[str, Any], unknown: dict[str, str], causes: tuple[str, ...] = CAUSES) -> dict[str, int | None]:
    return {cause: None if cause in unknown else int(row[cause]) for cause in causes}


def by_device(scope: Scope, capture: Capture) -> dict[str | None, dict[str, int | None]]:
    """Per device (None: summed over devices) its idle block: kernel_idle_ns and the causes (None for a cause the
    capture cannot tell)."""
    unknown = unknown_causes(capture)
    return {row["device"]: {"kernel_idle_ns": int(row["kernel_idle_ns"]), **_causes(row, unknown)}
            for row in scope.rows("idle.causes")}


def gap_causes(gap: dict[str, Any], unknown: dict[str, str]) -> dict[str, Any]:
    """A launches.largest_gaps row with its causes (None where unknown) and `idle_cause`, the cause that holds
    longest in it."""
    causes = _causes(gap, unknown, GAP_CAUSES)
    known = {cause: ns for cause, ns in causes.items() if ns}
    return {**gap, **causes, "idle_cause": max(known, key=known.get).removesuffix("_ns") if known else None}


def warnings(result: dict[str, Any], capture: Capture) -> list[str]:
    """What a result's idle causes could not tell, once per capture."""
    if "idle" not in result:
        return []
    return [f"{capture.gpu_trace.path}: idle cause {cause} is null, its time counted under the later causes: {why}"
            for cause, why in unknown_causes(capture).items()]


def idle_line(idle: dict[str, Any], devices: int = 1) -> str:
    """No kernel running: the time and its causes ('-' for a cause the capture cannot tell)."""
    causes = ", ".join(f"{label} {ms(idle[key])}" for key, label in IDLE_CAUSE_LABELS.items())
    summed = f" (summed over {devices} devices)" if devices > 1 else ""
    return f"No kernel running{summed}: {ms(idle['kernel_idle_ns'])} ms = {causes} ms"
