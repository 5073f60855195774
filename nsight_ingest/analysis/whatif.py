"""What-if replays: the capture's dependency graph (sql/graph/) timed again with edits (sql/whatif/): faster
launches, faster or removed kernels, removed synchronizations, communication that overlaps. The predicted span,
the change, and the critical path of the replay."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import duckdb

from nsight_ingest.analysis import inputs_block, nvtx_figures, percent, rule_set_block
from nsight_ingest.analysis.critical_path import COMMUNICATION, graph_block, path_block, print_path
from nsight_ingest.errors import EmptyScope, InputError
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console, title
from nsight_ingest.text import ms, pct

if TYPE_CHECKING:
    from rich.console import Console

DURATION_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_DURATION = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(" + "|".join(DURATION_UNITS) + ")")
LONGEST_NS = 3_600_000_000_000  # a launch latency is at most an hour (max_duration_ns: longer ones are data errors)
FACTORS = (1e-3, 1e3)  # a kernel at most 1000 times slower or faster
_SPEEDUP = re.compile(r"(family|name)=(.+):([^:]+)")
# What each option edits (whatif_edits.edit), with how its value is written on the command line.
SPEEDUP_EDITS = {"family": "kernel_speedup_family", "name": "kernel_speedup_name"}
REMOVALS = ("remove_kernels", "remove_syncs")  # options whose regexes name what to remove (their edit's name)
# The replay that removes what a finding names (its gain ceiling then is the span the replay saves): a launch-bound
# device's kernels launched as from a CUDA graph, the host's synchronization calls gone, communication overlapped.
GRAPH_LAUNCH_LATENCY = "2us"  # a kernel's launch cost in a CUDA graph replay
FINDING_EDITS = {"cpu_launch_bound": {"launch_latency": GRAPH_LAUNCH_LATENCY},
                 "synchronization_stalls": {"remove_syncs": ["Synchronize"]},
                 "exposed_communication": {"overlap_communication": True}}


def duration_ns(text: str, flag: str) -> int:
    """A duration written with its unit (2us, 1.5 µs, 800ns, 0.002ms) in ns."""
    found = _DURATION.fullmatch(text.strip())
    if not found:
        raise InputError(f"{flag} {text!r}: give a duration with its unit, e.g. 2us, 800ns, 0.01ms")
    value = float(found[1]) * DURATION_UNITS[found[2]]
    if not value <= LONGEST_NS:
        raise InputError(f"{flag} {text!r}: at most an hour")
    return round(value)


def _factor(text: str, given: str) -> float:
    try:
        factor = float(text)
    except ValueError:
        factor = math.nan
    if not math.isfinite(factor) or factor <= 0:
        raise InputError(f"--kernel-speedup {given!r}: the factor {text!r} must be a positive, finite number")
    if not FACTORS[0] <= factor <= FACTORS[1]:
        raise InputError(f"--kernel-speedup {given!r}: the factor {text!r} must lie between {FACTORS[0]:g} and "
                         f"{FACTORS[1]:g}")
    return factor


def _regex_checked(pattern: str, flag: str) -> str:
    """The pattern, refused unless DuckDB's regular expressions (RE2) take it."""
    try:
        with duckdb.connect() as con:
            con.execute("SELECT regexp_matches('', $pattern)", {"pattern": pattern}).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"{flag} {pattern!r}: not a regular expression ({str(exc).splitlines()[0]})") from None
    return pattern


def edits(options: dict[str, Any]) -> dict[str, Any]:
    """The replay's parameters (whatif.edits' $edits, $launch_latency_ns, $overlap_communication) from the
    command's options; a malformed edit is refused."""
    listed = []
    for given in options.get("kernel_speedup") or ():
        found = _SPEEDUP.fullmatch(given)
        if not found:
            raise InputError(f"--kernel-speedup {given!r}: give family=FAMILY:FACTOR or name=REGEX:FACTOR")
        pattern = found[2] if found[1] == "family" else _regex_checked(found[2], "--kernel-speedup")
        listed.append({"edit": SPEEDUP_EDITS[found[1]], "pattern": pattern, "factor": _factor(found[3], given)})
    for edit in REMOVALS:
        listed += [{"edit": edit, "pattern": _regex_checked(pattern, _flag(edit)), "factor": None}
                   for pattern in options.get(edit) or ()]
    latency = options.get("launch_latency")
    return {"edits": listed,
            "launch_latency_ns": None if latency is None else duration_ns(latency, "--launch-latency"),
            "overlap_communication": bool(options.get("overlap_communication"))}


def _edits_block(scope: Scope, parameters: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """Each edit as the JSON lists it, refused when it applies to nothing in the scope."""
    block: list[dict[str, Any]] = []
    targets = scope.row("whatif.targets")
    if parameters["launch_latency_ns"] is not None:
        launches = targets["launch_calls"]
        if not launches:
            raise InputError(f"--launch-latency: {where} has no kernel launch calls (it needs a cuda_api_trace or "
                             "kern_exec trace)")
        block.append({"edit": "launch_latency", "latency_ns": parameters["launch_latency_ns"],
                      "launch_calls": launches})
    for row in scope.rows("whatif.edit_matches"):
        if not row["nodes"]:
            what = "CPU call that waited for the GPU" if row["edit"] == "remove_syncs" else \
                "kernel of this family" if row["edit"] == "kernel_speedup_family" else "kernel"
            given = next((f"{key}=" for key, edit in SPEEDUP_EDITS.items() if edit == row["edit"]), "")
            raise InputError(f"{_flag(row['edit'])} {given}{row['pattern']}: no {what} in {where} matches")
        block.append({"edit": row["edit"], "pattern": row["pattern"],
                      **({"factor": row["factor"]} if row["factor"] is not None else {}),
                      "nodes": row["nodes"], "measured_ns": int(row["time_ns"])})
    if parameters["overlap_communication"]:
        kernels = targets["communication_kernels"]
        if not kernels:
            raise InputError(f"--overlap-communication: {where} has no {COMMUNICATION} kernels")
        block.append({"edit": "overlap_communication", "communication_kernels": kernels})
    return block


def _flag(edit: str) -> str:
    """The command-line flag of an edit (whatif_edits.edit)."""
    return "--kernel-speedup" if edit in SPEEDUP_EDITS.values() else "--" + edit.replace("_", "-")


def _replayed(scope: Scope, parameters: dict[str, Any], where: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The edits as the JSON lists them and the replay's summary (whatif.summary) with these parameters."""
    scope.values.update(parameters)  # the replay modules' parameters
    scope.forget("whatif")
    return _edits_block(scope, parameters, where), scope.row("whatif.summary")


def finding_gain(scope: Scope, finding: str) -> int | None:
    """The span a replay without what the finding names saves (FINDING_EDITS); None where no edit removes it or
    the edit applies to nothing in the scope."""
    if finding not in FINDING_EDITS:
        return None
    try:
        _, replay = _replayed(scope, edits(FINDING_EDITS[finding]), "the scope")
    except InputError:
        return None
    return max(0, int(replay["measured_span_ns"]) - int(replay["predicted_span_ns"]))


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The replay of one capture or window with the options' edits: predicted span, change, its critical path."""
    parameters = edits(options)
    window = scope.context.window
    where = window.label if window else capture.gpu_trace.path
    summary = next(row for row in scope.rows("scope.summary") if row["device"] is None)
    if not summary["gpu_operation_count"]:
        raise EmptyScope(f"{where}: no GPU operations in this scope")
    edit_list, replay = _replayed(scope, parameters, where)
    measured, predicted = int(replay["measured_span_ns"]), int(replay["predicted_span_ns"])
    return {
        "source_gpu_trace": capture.gpu_trace.path,
        **({"window": window.label} if window else {}),
        **(nvtx_figures(scope) if window and window.nvtx else {}),
        "measured_span_ns": measured,
        "predicted_span_ns": predicted,
        "change_percent": percent(predicted - measured, measured),
        "speedup": round(measured / predicted, 4) if predicted else None,
        "edits": edit_list,
        "critical_path": path_block(scope, "whatif", options["top"]),
        "replay": {key: int(replay[key]) for key in ("edges_followed", "edges_overlapped")},
        "integrity": {"edges_disagreeing": int(replay["edges_disagreeing"]),
                      "cycles_broken": int(replay["cycles_broken"]),
                      "cycle_broken_at": None if replay["cycle_broken_src"] is None else {
                          "src": int(replay["cycle_broken_src"]), "dst": int(replay["cycle_broken_dst"]),
                          "kind": replay["cycle_broken_kind"]}},
        "graph": graph_block(scope, capture),
        "inputs": inputs_block(capture.roles()),
        "rule_set": rule_set_block(scope.context),
    }


def _edit_line(edit: dict[str, Any]) -> str:
    if edit["edit"] == "launch_latency":
        return f"launch latency {edit['latency_ns']:,} ns ({edit['launch_calls']:,} launch calls)"
    if edit["edit"] == "overlap_communication":
        return f"communication overlaps ({edit['communication_kernels']:,} {COMMUNICATION} kernels)"
    factor = f" x{edit['factor']:g}" if "factor" in edit else ""
    return (f"{edit['edit'].replace('_', ' ')} {edit['pattern']}{factor}: {edit['nodes']:,} nodes, "
            f"{ms(edit['measured_ns'])} ms measured")


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The measured and predicted span, the edits, and the replay's critical path."""
    console = console or new_console(width=150)
    console.print(f"[bold]{escape(title('whatif', result))}[/bold]", highlight=False)
    spans = grid(title="the replay")
    for column in ("measured ms", "predicted ms", "change", "speedup"):
        spans.add_column(column, justify="right")
    spans.add_row(ms(result["measured_span_ns"]), ms(result["predicted_span_ns"]), pct(result["change_percent"]),
                  f"{result['speedup']:.3f}x" if result["speedup"] else "-")
    console.print(spans)
    for edit in result["edits"] or [{"edit": "none"}]:
        console.print(escape("edit: " + ("none (the replay reproduces the capture)" if edit["edit"] == "none"
                                         else _edit_line(edit))), highlight=False)
    print_path(result["critical_path"], console, "the replay's critical path")
    for line in result["graph"]["missing"]:
        console.print(escape(f"graph: {line}"), highlight=False)
