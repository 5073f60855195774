"""Why the GPU idles: the time no kernel runs on a device, split by cause (sql/idle/), for a whole scope and for
single launch gaps."""

from __future__ import annotations

from typing import Any

from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture

# The causes of idle time, in the order they are checked (the first that holds gets the nanosecond).
CAUSES = ("memory_transfer_ns", "synchronization_ns", "cpu_launch_ns", "other_ns")


# What a capture lacks when it cannot tell a cause.
LACKS = {"synchronization_ns": "no CUDA API trace (cuda_api_trace)",
         "cpu_launch_ns": "no launch rows (cuda_kern_exec_trace)"}


def unknown_causes(capture: Capture) -> dict[str, str]:
    """The causes the capture cannot tell (their time falls to the later causes), each with what it lacks."""
    missing = {"synchronization_ns": capture.api is None, "cpu_launch_ns": capture.kern_exec is None}
    return {cause: LACKS[cause] for cause, lacked in missing.items() if lacked}


def _causes(row: dict[str, Any], unknown: dict[str, str]) -> dict[str, int | None]:
    return {cause: None if cause in unknown else int(row[cause]) for cause in CAUSES}


def by_device(scope: Scope, capture: Capture) -> dict[str | None, dict[str, int | None]]:
    """Per device (None: summed over devices) its idle block: kernel_idle_ns and the causes (None for a cause the
    capture cannot tell)."""
    unknown = unknown_causes(capture)
    return {row["device"]: {"kernel_idle_ns": int(row["kernel_idle_ns"]), **_causes(row, unknown)}
            for row in scope.rows("idle.causes")}


def gap_causes(gap: dict[str, Any], unknown: dict[str, str]) -> dict[str, Any]:
    """A launches.largest_gaps row with its causes (None where unknown) and `idle_cause`, the cause that holds
    longest in it."""
    causes = _causes(gap, unknown)
    known = {cause: ns for cause, ns in causes.items() if ns}
    return {**gap, **causes, "idle_cause": max(known, key=known.get).removesuffix("_ns") if known else None}


def warnings(result: dict[str, Any], capture: Capture) -> list[str]:
    """What a result's idle causes could not tell, once per capture."""
    if "idle" not in result:
        return []
    return [f"{capture.gpu_trace.path}: idle cause {cause} is null, its time counted under the later causes: {why}"
            for cause, why in unknown_causes(capture).items()]
