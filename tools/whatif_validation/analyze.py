"""The what-if replay against captures of the validation model (capture.sh): the eager capture replayed with the
graph capture's per-kernel launch cost against the graph capture's span, and each capture replayed with the probe
kernel as much slower as it measured against the capture of the slower probe. Prints JSON.

Usage: python tools/whatif_validation/analyze.py CAPTURES_FOLDER
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

CLI = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "nsight-ingest")
LONGEST_GAP_NS = 50_000  # gaps between a graph's kernels longer than this are waits, not launch cost


def whatif(path: Path, *edits: str) -> dict:
    done = subprocess.run([CLI, "whatif", str(path), *edits, "--no-cache"], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout)


def kernels(path: Path) -> list[tuple[int, int, str, int | None]]:
    """(start, end, short name, graph id) of each kernel of an nsys .sqlite export, by start."""
    with sqlite3.connect(path) as con:
        names = dict(con.execute("SELECT id, value FROM StringIds"))
        rows = con.execute("SELECT start, end, shortName, graphId FROM CUPTI_ACTIVITY_KIND_KERNEL "
                           "ORDER BY start").fetchall()
    return [(start, end, names.get(name, ""), graph) for start, end, name, graph in rows]


def graph_launch_cost(path: Path) -> float:
    """The median gap between consecutive kernels of the capture's CUDA graph replays: what a kernel costs to
    launch from a graph."""
    found = kernels(path)
    return statistics.median(b[0] - a[1] for a, b in pairwise(found)
                             if a[3] and b[3] and 0 <= b[0] - a[1] < LONGEST_GAP_NS)


def probe_ns(path: Path) -> float:
    return statistics.mean(end - start for start, end, name, _ in kernels(path) if "probe" in name)


def main() -> None:
    folder = Path(sys.argv[1])
    eager, graph = folder / "val_eager.sqlite", folder / "val_graph.sqlite"
    cost = graph_launch_cost(graph)
    predicted = whatif(eager, "--launch-latency", f"{round(cost)}ns")["predicted_span_ns"]
    measured = whatif(graph)["measured_span_ns"]
    result = {"graph_launch_cost_ns": cost, "eager_span_ns": whatif(eager)["measured_span_ns"],
              "graph_span_ns": measured, "eager_as_graph_predicted_ns": predicted,
              "eager_as_graph_error_percent": 100 * (predicted - measured) / measured}
    for mode in ("eager", "graph"):
        base, slower = folder / f"val_{mode}.sqlite", folder / f"val_{mode}_probe2x.sqlite"
        factor = probe_ns(base) / probe_ns(slower)  # under 1: slower
        measured = whatif(slower)["measured_span_ns"]
        predicted = whatif(base, "--kernel-speedup", f"name=probe_kernel:{factor:.6f}")["predicted_span_ns"]
        result[f"{mode}_probe_2x"] = {"factor": factor, "measured_span_ns": measured, "predicted_span_ns": predicted,
                                      "error_percent": 100 * (predicted - measured) / measured}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
