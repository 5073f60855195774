"""Did it get faster? Two captures side by side, and matched before/after (A/B/B/A) wall-clock timings."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import communication, percent
from nsight_ingest.analysis.idle import CAUSES
from nsight_ingest.errors import InputError
from nsight_ingest.history import METRICS
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.tables import escape, grid, new_console
from nsight_ingest.text import IDLE_CAUSE_LABELS, kernel_labels, ms, pct

if TYPE_CHECKING:
    from rich.console import Console


def _delta(a: float | None, b: float | None) -> dict[str, float | None]:
    if a is None or b is None:
        return {"a": a, "b": b, "delta": None, "delta_percent": None}
    return {"a": a, "b": b, "delta": b - a, "delta_percent": percent(b - a, a)}


def _class_deltas(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Time and launch deltas per class (component or family) of either side, a class missing on one side zero."""
    deltas = {}
    for name in dict.fromkeys([*a, *b]):
        ca = a.get(name, {"milliseconds": 0.0, "launches": 0})
        cb = b.get(name, {"milliseconds": 0.0, "launches": 0})
        deltas[name] = {"milliseconds": _delta(ca["milliseconds"], cb["milliseconds"]),
                        "launches": _delta(ca["launches"], cb["launches"])}
    return deltas


def _kernel_side(row: dict[str, Any]) -> dict[str, Any]:
    return {"launches": int(row["launches"]), "total_ns": int(row["total_ns"]),
            "mean_ns": int(row["total_ns"]) / int(row["launches"])}


def _kernel_entry(row: dict[str, Any]) -> dict[str, Any]:
    return {"kernel_key": row["kernel_key"], "name": row["name"], "short_name": row["short_name"],
            "family": row["family"]}


def kernel_deltas(before: list[dict[str, Any]], after: list[dict[str, Any]], top: int) -> dict[str, Any]:
    """Kernels of two captures (compare.kernels rows) matched by kernel_key: those only after (`added`), only before
    (`removed`), each by total time; the `top` largest changes in total time of the others (`changed`)."""
    a, b = ({r["kernel_key"]: r for r in rows} for rows in (before, after))

    def by_time(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**_kernel_entry(r), **_kernel_side(r)} for r in sorted(rows, key=lambda r: (-r["total_ns"],
                                                                                            r["kernel_key"]))]

    both = [key for key in b if key in a]
    moved = sorted((key for key in both if a[key]["total_ns"] != b[key]["total_ns"]),
                   key=lambda key: (-abs(int(b[key]["total_ns"]) - int(a[key]["total_ns"])), key))
    changed = []
    for key in moved[:top]:
        before_side, after_side = _kernel_side(a[key]), _kernel_side(b[key])
        changed.append({**_kernel_entry(b[key]),
                        **{k: _delta(before_side[k], after_side[k]) for k in ("launches", "total_ns", "mean_ns")}})
    return {"matched_by": "kernel_key", "added": by_time([r for key, r in b.items() if key not in a]),
            "removed": by_time([r for key, r in a.items() if key not in b]), "changed": changed,
            "changed_count": len(moved), "unchanged_count": len(both) - len(moved)}


def _communication(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Deltas of the communication figures; a side without communication kernels has none (zero time)."""
    if a is None and b is None:
        return None
    a, b = a or communication.no_communication(), b or communication.no_communication()
    return {key: _delta(a[key], b[key]) for key in communication.FIGURES}


# The compared figures a CI gate can judge, by their names in the nightly metric table (history.METRICS says which
# way is worse), each as its path in the compare result and the factor to the metric's unit.
GATE_METRICS = {
    "kernel_time_ms": (("kernel_time_ms",), 1.0),
    "gpu_span_ms": (("gpu_span_ms",), 1.0),
    "kernel_busy_percent": (("kernel_busy_percent",), 1.0),
    "kernel_union_percent": (("kernel_union_percent",), 1.0),
    "exposed_communication_ms": (("communication", "exposed_ns"), 1e-6),
    "communication_overlap_percent": (("communication", "overlap_percent"), 1.0),
    "launch_gap_total_ms": (("launch_gaps", "total_ns"), 1e-6),
    "launch_gap_p90_ns": (("launch_gaps", "p90_ns"), 1.0),
    "launch_overlap_percent": (("launch_overlap_percent",), 1.0),
    "cpu_starved_kernel_percent": (("cpu_starved_kernel_percent",), 1.0),
}


def check_gate(options: dict[str, Any]) -> None:
    """Refuse a gate that cannot be judged, before any input is read."""
    if options["gate_metric"] not in GATE_METRICS:
        raise InputError(f"--gate-metric {options['gate_metric']!r}: expected one of {', '.join(GATE_METRICS)}")
    if options.get("fail_above") is not None and not math.isfinite(options["fail_above"]):
        raise InputError(f"--fail-above {options['fail_above']}: not a finite number")


def gate(result: dict[str, Any], metric: str, fail_above: float) -> dict[str, Any]:
    """The gate's judgement of `metric` in a compare result: `worse` when it changed by more than `fail_above`
    percent in the direction that is worse (any change from zero is more), `better` when by more than that the other
    way, else `unchanged`. A metric a capture has no value of (no kern_exec trace) cannot be judged."""
    path, factor = GATE_METRICS[metric]
    delta = result
    for step in path:
        delta = (delta or {}).get(step)
    if delta is None:
        raise InputError(f"--gate-metric {metric}: neither capture has a value of it (no communication kernels?)")
    if delta["a"] is None or delta["b"] is None:
        side = "before" if delta["a"] is None else "after"
        raise InputError(f"--gate-metric {metric}: the {side} capture has no value of it (a launch metric needs a "
                         f"kern_exec trace; a communication metric, communication kernels)")
    direction = METRICS[metric].direction
    change = delta["delta_percent"]
    # from zero (no percent change), any change is past every limit
    change_worse = (math.copysign(math.inf, delta["b"]) if delta["b"] else 0.0) if change is None else change
    worse_by = change_worse if direction == "up" else -change_worse
    verdict = "unchanged" if abs(worse_by) <= fail_above else "worse" if worse_by > 0 else "better"
    return {"metric": metric, "worse_when": direction, "before": delta["a"] * factor, "after": delta["b"] * factor,
            "change_percent": change, "fail_above_percent": fail_above, "verdict": verdict}


def captures(a: dict[str, Any], b: dict[str, Any], launches_a: dict[str, Any], launches_b: dict[str, Any],
             kernels_a: list[dict[str, Any]], kernels_b: list[dict[str, Any]], options: dict[str, Any]
             ) -> dict[str, Any]:
    """Deltas from classify and launches results of capture A (before) to capture B (after), their kernels matched
    by kernel_key (compare.kernels rows), and with `fail_above` in the options the gate's verdict."""
    components, families = (_class_deltas(a[axis], b[axis]) for axis in ("components", "families"))
    ms_a, ms_b = a["kernel_time_ns"] / 1e6, b["kernel_time_ns"] / 1e6
    overlap_a, overlap_b = (x["cpu_gpu_overlap"] or {} for x in (a, b))
    result = {
        "a": a["source_gpu_trace"],
        "b": b["source_gpu_trace"],
        **({"window": a["window"]} if "window" in a else {}),
        "kernel_time_ms": _delta(ms_a, ms_b),
        "speedup": ms_a / ms_b if ms_b else None,
        "gpu_span_ms": _delta(a["gpu_span_ns"] / 1e6, b["gpu_span_ns"] / 1e6),
        "kernel_busy_percent": _delta(a["kernel_busy_percent_of_span"], b["kernel_busy_percent_of_span"]),
        "kernel_union_percent": _delta(a["kernel_union_percent_of_span"], b["kernel_union_percent_of_span"]),
        "idle": {key: _delta(a["idle"][key], b["idle"][key]) for key in ("kernel_idle_ns", *CAUSES)},
        "communication": _communication(a["communication"], b["communication"]),
        "components": components,
        "families": families,
        "appeared": [n for n, c in components.items() if c["launches"]["a"] == 0 and c["launches"]["b"] > 0],
        "vanished": [n for n, c in components.items() if c["launches"]["a"] > 0 and c["launches"]["b"] == 0],
        "launch_gaps": {
            "total_ns": _delta(a["launch_gaps"]["total_ns"], b["launch_gaps"]["total_ns"]),
            "positive_gap_count": _delta(a["launch_gaps"]["positive_gap_count"],
                                         b["launch_gaps"]["positive_gap_count"]),
            "p90_ns": _delta(launches_a["gaps"]["p90_ns"], launches_b["gaps"]["p90_ns"]),
        },
        "launch_overlap_percent": _delta(overlap_a.get("launch_api_overlap_percent"),
                                         overlap_b.get("launch_api_overlap_percent")),
        "cpu_starved_kernel_percent": _delta(launches_a["cpu_starved_kernel_percent"],
                                             launches_b["cpu_starved_kernel_percent"]),
        "kernels": kernel_deltas(kernels_a, kernels_b, options["top"]),
    }
    if options.get("fail_above") is not None:
        result["gate"] = gate(result, options["gate_metric"], options["fail_above"])
        result["verdict"] = result["gate"]["verdict"]
    return result


def abba(scope: Scope, options: dict[str, Any]) -> dict[str, Any]:
    """The matched unprofiled comparison (design, per-update seconds of each variant, speedup) from per-update
    timings of before/after trials (the CSV is the scope's context `timings_path`; options `warmup`, `final`)."""
    warmup, final = options["warmup"], options["final"]
    path = scope.context.timings_path
    variants = {r["variant"]: r for r in scope.rows("compare.abba", warmup=warmup, final=final)}
    if set(variants) != {"before", "after"}:
        raise InputError(f"{path}: need kept updates of variants 'before' and 'after', found {sorted(variants)}")
    before, after = variants["before"], variants["after"]
    sequence = scope.row("compare.abba_design")["sequence"].split(",")
    letters = "".join("A" if v == sequence[0] else "B" for v in sequence)
    design = "ABBA" if letters == "ABBA" * (len(letters) // 4) and letters else letters
    counts = {before["observations"], after["observations"]}
    return {
        "design": design,
        "observations_per_variant": counts.pop() if len(counts) == 1 else
        {"before": before["observations"], "after": after["observations"]},
        "before_seconds_per_update": before["mean_seconds"],
        "after_seconds_per_update": after["mean_seconds"],
        "time_reduction_percent_rounded": round(
            percent(before["mean_seconds"] - after["mean_seconds"], before["mean_seconds"]), 2),
        "before_update_seconds_range": [before["min_seconds"], before["max_seconds"]],
        "after_update_seconds_range": [after["min_seconds"], after["max_seconds"]],
        "speedup": before["mean_seconds"] / after["mean_seconds"],
        "warmup_updates_excluded_per_trial": warmup,
        "final_updates_excluded_per_trial": final,
    }


def _scaled(delta: dict[str, Any], factor: float = 1e-6) -> dict[str, Any]:
    """A delta of nanoseconds in milliseconds (its percent unchanged)."""
    return {**delta, **{k: None if delta[k] is None else delta[k] * factor for k in ("a", "b", "delta")}}


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """Before/after deltas as a table (captures) or a short summary (--abba)."""
    console = console or new_console(width=140)
    if "design" in result:
        console.print(f"{result['design']}: {result['observations_per_variant']} updates per variant; before"
                      f" {result['before_seconds_per_update']:.5f} s, after {result['after_seconds_per_update']:.5f}"
                      f" s per update; {result['time_reduction_percent_rounded']}% less time, speedup"
                      f" {result['speedup']:.4f}", highlight=False)
        return
    if "groups" in result:  # --by-nvtx: each group compared on its own
        for part in result["groups"].values():  # each one's title names its window
            console.print()
            print_table(part, console)
        if "verdict" in result:
            console.print(f"gate over every group: [bold]{result['verdict']}[/bold]", highlight=False)
        return
    console.print(escape(f"compare {result['a']} -> {result['b']}" + (f" [{result['window']}]"
                                                                      if result.get("window") else "")),
                  highlight=False)
    table = grid()
    for column in ("", "before", "after", "delta", "delta %"):
        table.add_column(column, justify="left" if not column else "right")

    def row(label: str, d: dict[str, Any], fmt: str = "{:,.3f}") -> None:
        cells = [fmt.format(d[k]) if d[k] is not None else "-" for k in ("a", "b", "delta")]
        table.add_row(label, *cells, pct(d["delta_percent"]))

    row("kernel time (ms)", result["kernel_time_ms"])
    row("GPU span (ms)", result["gpu_span_ms"])
    row("busy % (summed)", result["kernel_busy_percent"], "{:.2f}")
    row("busy % (a kernel running)", result["kernel_union_percent"], "{:.2f}")
    row("no kernel running (ms)", _scaled(result["idle"]["kernel_idle_ns"]))
    for key, label in IDLE_CAUSE_LABELS.items():
        row(f"  idle: {label} (ms)", _scaled(result["idle"][key]))
    if result["communication"] is not None:
        row("communication exposed (ms)", _scaled(result["communication"]["exposed_ns"]))
        row("communication overlap %", result["communication"]["overlap_percent"], "{:.2f}")
    for name, c in result["components"].items():
        row(f"component {name} (ms)", c["milliseconds"])
    for name, f in result["families"].items():
        if f["launches"]["a"] or f["launches"]["b"]:
            row(f"family {name} (ms)", f["milliseconds"])
    row("launch gaps total (ns)", result["launch_gaps"]["total_ns"], "{:,.0f}")
    row("launch gap p90 (ns)", result["launch_gaps"]["p90_ns"], "{:,.0f}")
    row("launch overlap %", result["launch_overlap_percent"], "{:.2f}")
    console.print(table)
    speedup = "-" if result["speedup"] is None else f"{result['speedup']:.4f}"
    console.print(f"speedup {speedup}; appeared: {', '.join(result['appeared']) or '-'};"
                  f" vanished: {', '.join(result['vanished']) or '-'}", highlight=False)
    kernels = result["kernels"]
    changes = grid(title=f"kernels changed most (of {kernels['changed_count']} changed, "
                           f"{kernels['unchanged_count']} unchanged; matched by {kernels['matched_by']})")
    for column in ("kernel", "family", "ms before", "ms after", "delta ms", "delta %", "launches", "mean us"):
        changes.add_column(column, justify="left" if column in ("kernel", "family") else "right", overflow="fold")
    listed = [*kernels["changed"], *kernels["added"], *kernels["removed"]]
    labels = dict(zip((k["kernel_key"] for k in listed),
                      kernel_labels([k["name"] for k in listed], [k["short_name"] for k in listed]), strict=True))
    for k in kernels["changed"]:
        total, launches, mean = k["total_ns"], k["launches"], k["mean_ns"]
        changes.add_row(escape(labels[k["kernel_key"]]), k["family"], ms(total["a"]), ms(total["b"]),
                        ms(total["delta"]), pct(total["delta_percent"]), f"{launches['a']} -> {launches['b']}",
                        f"{mean['a'] / 1e3:,.2f} -> {mean['b'] / 1e3:,.2f}")
    if kernels["changed"]:
        console.print(changes)
    else:
        console.print(f"kernels: none changed ({kernels['unchanged_count']} unchanged)", highlight=False)
    for title, entries in (("added", kernels["added"]), ("removed", kernels["removed"])):
        if entries:
            shown = ", ".join(f"{labels[k['kernel_key']]} ({ms(k['total_ns'])} ms)" for k in entries[:10])
            more = f" and {len(entries) - 10} more" if len(entries) > 10 else ""
            console.print(escape(f"kernels {title}: {shown}{more}"), highlight=False)
    if "gate" in result:
        g = result["gate"]
        console.print(f"gate: {g['metric']} changed {pct(g['change_percent'])} (worse when {g['worse_when']}), "
                      f"limit {g['fail_above_percent']:g}%: [bold]{g['verdict']}[/bold]", highlight=False)
