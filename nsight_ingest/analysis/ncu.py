"""Nsight Compute: per-launch metrics in base units, bound verdicts, classes, and groups of repeated kernels."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import inputs_block, rule_set_block
from nsight_ingest.errors import InputError
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Ingested
from nsight_ingest.tables import escape, grid, new_console
from nsight_ingest.text import fixed, kernel_labels

if TYPE_CHECKING:
    from rich.console import Console


# The raw metrics the tables show: a kernel's time and SM / memory throughput (the verdict's inputs).
DURATION = "gpu__time_duration.sum"
SM_THROUGHPUT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY_THROUGHPUT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_THROUGHPUT = ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed")  # the name changed between ncu versions
L2_HIT_RATE = "lts__t_sector_hit_rate.pct"

# The metrics shown per kernel by default: null where the export lacks them.
COMMON_METRICS = [
    DURATION,
    SM_THROUGHPUT,
    MEMORY_THROUGHPUT,
    *DRAM_THROUGHPUT,
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    L2_HIT_RATE,
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
]


@dataclass(frozen=True)
class Thresholds:
    """Bound-verdict thresholds: both below `latency_below` -> latency bound; one at least `bound_at_least` and
    more than `dominance` times the other -> compute or memory bound; otherwise balanced."""

    latency_below: float = 60.0
    bound_at_least: float = 70.0
    dominance: float = 1.2

    def params(self) -> dict[str, float]:
        """As named SQL parameters (and analysis options)."""
        return {"latency_below": self.latency_below, "bound_at_least": self.bound_at_least,
                "dominance": self.dominance}

    @classmethod
    def of(cls, options: dict[str, Any]) -> Thresholds:
        """The thresholds among an analysis' options (defaults for those not given); each must be a number."""
        given = {k: options[k] for k in cls().params() if k in options}
        for name, value in given.items():
            if not math.isfinite(value):
                raise InputError(f"--{name.replace('_', '-')} {value}: not a number")
        return cls(**given)


def _value(row: dict[str, Any]) -> Any:
    """A metric's number, or its text as exported when it is not a number."""
    return row["value"] if row["value"] is not None else row["value_text"]


def _metric(row: dict[str, Any]) -> dict[str, Any]:
    return {"value": _value(row), "unit": row["unit"], "base_value": row["base_value"], "base_unit": row["base_unit"]}


def answer(scope: Scope, inputs: list[Ingested], options: dict[str, Any]) -> dict[str, Any]:
    """The `ncu` command's result for the ingested ncu exports of an ncu scope (options: thresholds,
    `all_metrics`)."""
    thresholds = Thresholds.of(options)
    all_metrics = bool(options.get("all_metrics"))
    traces = [i.trace_id for i in inputs]
    selection = {"traces": traces, "common": COMMON_METRICS}
    values: dict[tuple[int, int], dict[str, Any]] = {}
    for row in scope.rows("ncu.metric_values", **selection, all_metrics=all_metrics):
        values.setdefault((row["trace_id"], row["id"]), {})[row["metric"]] = _metric(row)
    path_of = {i.trace_id: i.path for i in inputs}
    kernels = []
    for launch in scope.rows("ncu.launches", **thresholds.params()):
        metrics = values.get((launch["trace_id"], launch["id"]), {})
        if not all_metrics:
            metrics = {name: metrics.get(name) for name in COMMON_METRICS}
        kernels.append({
            "id": launch["id"], "input": path_of[launch["trace_id"]], "name": launch["name"],
            "short_name": launch["short_name"],
            "device": launch["device"], "duration_ns": launch["duration_ns"], "component": launch["component"],
            "family": launch["family"], "verdict": launch["verdict"], "metrics": metrics,
        })
    groups: dict[str, dict[str, Any]] = {}
    for row in scope.rows("ncu.groups", **selection):
        group = groups.setdefault(row["name"], {"name": row["name"], "launches": row["launches"], "metrics": {}})
        group["launches"] = max(group["launches"], row["launches"])
        group["metrics"][row["metric"]] = {k: row[k] for k in ("min", "median", "max", "base_unit")}
    devices: dict[str, dict[str, Any]] = {}
    for row in scope.rows("ncu.device_attributes", traces=traces):
        devices.setdefault(row["device"], {"device": row["device"], "attributes": {}})["attributes"][
            row["attribute"]] = _value(row)
    return {
        "inputs": inputs_block([(i, i.report_type) for i in inputs]),
        "thresholds": thresholds.params(),
        "devices": list(devices.values()),
        "kernels": kernels,
        "groups": [g for g in groups.values() if g["launches"] > 1],
        "unknown_units": scope.rows("ncu.unknown_units", traces=traces),
        "rule_set": rule_set_block(scope.context),
    }


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The ncu analysis as a table: one row per profiled launch."""
    console = console or new_console(width=170)
    for device in result["devices"]:
        attributes = device["attributes"]
        console.print(escape(f"device {device['device']}: {attributes.get('display_name', '?')}, L2"
                             f" {attributes.get('l2_cache_size', '?')} B, {attributes.get('multiprocessor_count', '?')}"
                             " SMs"), highlight=False)
    table = grid()
    for column in ("id", "kernel", "component", "family", "us", "SM %", "mem %", "DRAM %", "L2 hit %", "verdict"):
        table.add_column(column, justify="left" if column in ("kernel", "component", "family", "verdict")
                         else "right", overflow="fold")

    def metric(kernel: dict[str, Any], *names: str) -> str:
        for name in names:
            value = (kernel["metrics"].get(name) or {}).get("base_value")
            if value is not None:
                return fixed(value)
        return "-"

    labels = kernel_labels([k["name"] for k in result["kernels"]], [k["short_name"] for k in result["kernels"]])
    for label, k in zip(labels, result["kernels"], strict=True):
        duration = fixed(None if k["duration_ns"] is None else k["duration_ns"] / 1e3)
        table.add_row(str(k["id"]), escape(label), k["component"], k["family"], duration,
                      metric(k, SM_THROUGHPUT), metric(k, MEMORY_THROUGHPUT), metric(k, *DRAM_THROUGHPUT),
                      metric(k, L2_HIT_RATE), k["verdict"] or "-")
    console.print(table)
    if result["unknown_units"]:
        units = ", ".join(sorted({u["unit"] for u in result["unknown_units"]}))
        console.print(escape(f"unknown units kept as exported: {units}"), highlight=False)
