"""Did it get faster? Two captures side by side, and matched before/after (A/B/B/A) wall-clock timings."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.analysis import percent
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.readers import timings
from nsight_ingest.sqlmodules import Scope, fills


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


def captures(a: dict[str, Any], b: dict[str, Any], launches_a: dict[str, Any],
             launches_b: dict[str, Any]) -> dict[str, Any]:
    """Deltas from classify and launches results of capture A (before) to capture B (after)."""
    components, families = (_class_deltas(a[axis], b[axis]) for axis in ("components", "families"))
    ms_a, ms_b = a["kernel_time_ns"] / 1e6, b["kernel_time_ns"] / 1e6
    overlap_a, overlap_b = (x["cpu_gpu_overlap"] or {} for x in (a, b))
    return {
        "a": a["source_gpu_trace"],
        "b": b["source_gpu_trace"],
        "kernel_time_ms": _delta(ms_a, ms_b),
        "speedup": ms_a / ms_b if ms_b else None,
        "gpu_span_ms": _delta(a["gpu_span_ns"] / 1e6, b["gpu_span_ns"] / 1e6),
        "kernel_busy_percent": _delta(a["kernel_busy_percent_of_span"], b["kernel_busy_percent_of_span"]),
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
    }


@fills("compare.timings")
def fill_timings(scope: Scope) -> None:
    """Read the timings CSV (context `timings_path`) into the timings table."""
    path = scope.context["timings_path"]
    try:
        scope.con.execute(f"INSERT INTO timings {timings.select(path)}")
    except duckdb.Error as exc:
        raise InputError(f"{path}: {first_line(exc)}") from None
    bad, repeated = scope.con.execute(
        "SELECT count(*) FILTER (WHERE NOT coalesce(isfinite(seconds) AND seconds > 0, false)), "
        "count(*) - count(DISTINCT (trial, variant, \"update\")) FROM timings").fetchone()
    if bad:
        raise InputError(f"{path}: {bad} timing(s) are not a finite number of seconds above 0 (NaN, inf, zero, "
                         f"negative or empty)")
    if repeated:
        raise InputError(f"{path}: {repeated} row(s) repeat a (trial, variant, update) given before")


def abba(scope: Scope, options: dict[str, Any]) -> dict[str, Any]:
    """The matched unprofiled comparison (design, per-update seconds of each variant, speedup) from per-update
    timings of before/after trials (the CSV is the scope's context `timings_path`; options `warmup`, `final`)."""
    warmup, final = options["warmup"], options["final"]
    path = scope.context["timings_path"]
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
