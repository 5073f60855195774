"""How much communication hides behind compute: per device, the time communication kernels run, the part of it
during which other kernels run (overlapped) and the rest (exposed), also per collective and per stream."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import percent
from nsight_ingest.text import ms, pct

FIGURES = ("time_ns", "overlapped_ns", "exposed_ns", "overlap_percent")  # of every breakdown


def _entry(time_ns: int, overlapped_ns: int) -> dict[str, Any]:
    """The four figures of one breakdown (FIGURES) from its time and overlapped time."""
    return {"time_ns": time_ns, "overlapped_ns": overlapped_ns, "exposed_ns": time_ns - overlapped_ns,
            "overlap_percent": percent(overlapped_ns, time_ns)}


def _summed(rows: list[dict[str, Any]], breakdown: str) -> dict[str, Any]:
    """Per label of `breakdown`, its rows' time and overlapped time summed (over devices), most time first."""
    sums: dict[str, list[int]] = {}
    for row in rows:
        if row["breakdown"] == breakdown:
            total = sums.setdefault(row["label"], [0, 0])
            total[0] += int(row["time_ns"])
            total[1] += int(row["overlapped_ns"])
    return {label: _entry(*sums[label]) for label in sorted(sums, key=lambda label: (-sums[label][0], str(label)))}


def no_communication() -> dict[str, Any]:
    """The block of a device (or capture) whose kernels do not communicate: zero time."""
    return {**_entry(0, 0), "kernels": 0, "by_collective": {}, "by_stream": {}}


def block(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The communication block of communication.overlap rows (one device's, or every device's summed); None when
    there is no communication kernel."""
    if not rows:
        return None
    (total,) = _summed(rows, "device").values()
    return {**total, "kernels": sum(int(r["kernels"]) for r in rows if r["breakdown"] == "device"),
            "by_collective": _summed(rows, "collective"), "by_stream": _summed(rows, "stream")}


def by_device(rows: list[dict[str, Any]], devices: list[str]) -> dict[str | None, dict[str, Any] | None]:
    """Per device (None: every device, summed) its communication block from rows of communication.overlap; every
    device gets one (zeros) when there are communication kernels, and every block is None when there are none."""
    if not rows:
        return dict.fromkeys([None, *devices])
    blocks: dict[str | None, dict[str, Any] | None] = {None: block(rows)}
    for device in devices:
        blocks[device] = block([r for r in rows if r["device"] == device]) or no_communication()
    return blocks


def communication_line(block: dict[str, Any]) -> str:
    """Communication time, overlapped and exposed, and the exposed time of each collective."""
    collectives = ", ".join(f"{name} {ms(c['exposed_ns'])}" for name, c in block["by_collective"].items())
    return (f"Communication: {ms(block['time_ns'])} ms, {ms(block['overlapped_ns'])} ms behind compute"
            f" ({pct(block['overlap_percent'])}), {ms(block['exposed_ns'])} ms exposed"
            + (f" (by collective: {collectives} ms)" if collectives else ""))
