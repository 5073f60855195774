"""The nightly history: the metrics kept per capture, their Parquet layout, and the rolling-baseline check.

One Parquet file per capture and run under `date=YYYY-MM-DD/`, written to a temporary name and renamed, so a crash
leaves only whole files. Queries read it through the history.rows module.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import duckdb

from nsight_ingest.analysis.idle import CAUSES
from nsight_ingest.errors import InputError
from nsight_ingest.sqlmodules import Scope, ScopeContext

if TYPE_CHECKING:
    import pyarrow as pa


class Metric(NamedTuple):
    """How a history metric reads: its unit, the direction in which a change is worse (None: not judged), and
    whether it is a share within 0-100 (its baseline band and limit stay there)."""

    unit: str
    direction: str | None
    share: bool = False


# Metrics written per capture. kernel_busy_percent is no share: it sums the time of concurrent kernels, which can
# pass the span.
METRICS: dict[str, Metric] = {
    "component_ms": Metric("ms", "up"),
    "component_launches": Metric("count", None),
    # Per family (in the `component` column) and per top kernel (`kernel` column): kept for the reports, not judged
    # by default (--direction family_ms=up judges them): the small families' night-to-night noise would raise
    # alarms the component and kernel-time totals do not.
    "family_ms": Metric("ms", None),
    "family_launches": Metric("count", None),
    "kernel_ms": Metric("ms", None),
    "kernel_time_ms": Metric("ms", "up"),
    "gpu_span_ms": Metric("ms", "up"),
    "kernel_busy_percent": Metric("%", "down"),
    "kernel_union_percent": Metric("%", "down", share=True),
    # Idle time (no kernel running) and its share by cause (`component` column: the idle causes without _ns,
    # analysis.idle.CAUSES): recorded; the span and gap totals already judge how much the GPU waits.
    "kernel_idle_ms": Metric("ms", None),
    "idle_cause_ms": Metric("ms", None),
    "exposed_communication_ms": Metric("ms", "up"),
    "communication_overlap_percent": Metric("%", "down", share=True),
    "launch_gap_total_ms": Metric("ms", "up"),
    "launch_gap_p90_ns": Metric("ns", "up"),
    "launch_gap_max_ns": Metric("ns", None),  # an extreme value: reported, too noisy to judge
    "launch_overlap_percent": Metric("%", "down", share=True),
    "cpu_starved_kernel_percent": Metric("%", "up", share=True),
    # Per finding (its id in the `component` column): the gain ceilings of its findings, summed over their scopes
    # (findings of one id lie in different devices, families or kernels, so their ceilings do not overlap). Recorded,
    # not judged: the metrics a finding rests on are judged themselves.
    "finding_gain_ceiling_ms": Metric("ms", None),
}

SHARES = tuple(name for name, metric in METRICS.items() if metric.share)  # the band of each stays in 0-100

TOP_KERNELS = 20  # kernels with a kernel_ms row per capture

HISTORY_FILES = "date=*/*.parquet"
HISTORY_COLUMNS = {"run_id": "string", "capture": "string", "trace_sha256": "string", "metric": "string",
                   "component": "string", "value": "float64", "unit": "string", "rule_set_version": "string",
                   "kernel": "string", "family_set_version": "string", "finding_set_version": "string"}
# Files written before kernel families, top kernels and findings were kept lack some of these columns; they read as
# NULL.
_ADDED_LATER = ("kernel", "family_set_version", "finding_set_version")
_EARLIER = sorted(name for name in HISTORY_COLUMNS if name not in _ADDED_LATER)
FAMILY_METRICS = ("family_ms", "family_launches")  # rows that depend on the family rule set


@dataclass(frozen=True)
class RuleVersions:
    """The rule sets a night is classified with: the component rules' and the family rules' versions (a metric is
    judged only against rows of the same versions, so a rule change starts a new baseline for what it changes), and
    the finding rules' (a capture summarized under other finding rules is summarized again)."""

    rule_set: str
    family_set: str
    finding_set: str | None = None


def metric_rows(summary: dict[str, Any], launch: dict[str, Any],
                findings: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The history rows (metric, component, value, unit) of one capture's classify and launches results and its
    findings."""
    values: list[tuple[str, str | None, float | None]] = []
    for component, entry in summary["components"].items():
        values += [("component_ms", component, entry["milliseconds"]),
                   ("component_launches", component, entry["launches"])]
    for family, entry in summary["families"].items():
        values += [("family_ms", family, entry["milliseconds"]), ("family_launches", family, entry["launches"])]
    overlap = summary["cpu_gpu_overlap"] or {}
    values += [("idle_cause_ms", cause.removesuffix("_ns"), ns / 1e6) for cause in CAUSES
               if (ns := summary["idle"][cause]) is not None]
    communication = summary["communication"] or {}
    values += [
        ("kernel_time_ms", None, summary["kernel_time_ns"] / 1e6),
        ("gpu_span_ms", None, summary["gpu_span_ns"] / 1e6),
        ("kernel_busy_percent", None, summary["kernel_busy_percent_of_span"]),
        ("kernel_union_percent", None, summary["kernel_union_percent_of_span"]),
        ("kernel_idle_ms", None, summary["idle"]["kernel_idle_ns"] / 1e6),
        ("launch_gap_total_ms", None, summary["launch_gaps"]["total_ns"] / 1e6),
        ("launch_gap_p90_ns", None, launch["gaps"]["p90_ns"]),
        ("launch_gap_max_ns", None, launch["gaps"]["max_ns"]),
        ("launch_overlap_percent", None, overlap.get("launch_api_overlap_percent")),
        ("cpu_starved_kernel_percent", None, launch["cpu_starved_kernel_percent"]),
    ]
    ceilings: dict[str, int] = {}
    for finding in (findings or {}).get("findings", []):
        ceilings[finding["id"]] = ceilings.get(finding["id"], 0) + finding["gain_ceiling_ns"]
    values += [("finding_gain_ceiling_ms", finding, ns / 1e6) for finding, ns in ceilings.items()]
    if communication:  # a capture without communication kernels has no communication metrics
        values += [("exposed_communication_ms", None, communication["exposed_ns"] / 1e6),
                   ("communication_overlap_percent", None, communication["overlap_percent"])]
    rows = [{"metric": m, "component": c, "kernel": None, "value": None if v is None else float(v),
             "unit": METRICS[m].unit} for m, c, v in values]
    return rows + _kernel_rows(summary["top_kernels"])


def _kernel_rows(top_kernels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """kernel_ms per top kernel, keyed by its kernel_key (the same kernel whatever the dialect of the export); names
    that share a key are summed."""
    milliseconds: dict[str, float] = {}
    for kernel in top_kernels:
        milliseconds[kernel["kernel_key"]] = milliseconds.get(kernel["kernel_key"], 0.0) + kernel["total_ns"] / 1e6
    return [{"metric": "kernel_ms", "component": None, "kernel": key, "value": value, "unit": METRICS["kernel_ms"].unit}
            for key, value in milliseconds.items()]


def files(history: Path) -> tuple[list[str], list[str]]:
    """The history's Parquet files that can be read as history, and those that cannot (cut short, overwritten,
    another schema, a folder that names no night), by path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    readable, damaged = [], []
    for path in sorted(history.glob(HISTORY_FILES)):
        key = (str(path), *_stat(path))
        if key not in _READABLE:
            try:
                date.fromisoformat(path.parent.name.removeprefix("date="))
                _READABLE[key] = _fits(pq.read_schema(path))
            except (OSError, ValueError, pa.ArrowException):
                _READABLE[key] = False
        (readable if _READABLE[key] else damaged).append(str(path))
    return readable, damaged


def history_schema() -> pa.Schema:
    """The Arrow schema of a history file."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, kind)()) for name, kind in HISTORY_COLUMNS.items()])


def _fits(schema: pa.Schema) -> bool:
    """True when a file's columns are the history's (some of those added later may be missing), each of its type or
    all NULL."""
    import pyarrow as pa

    return set(_EARLIER) <= set(schema.names) <= set(HISTORY_COLUMNS) and all(
        schema.field(f.name).type in (f.type, pa.null()) for f in history_schema() if f.name in schema.names)


_READABLE: dict[tuple, bool] = {}  # files checked once per process (the job reads the history several times)


def _stat(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


def _scope(readable: list[str]) -> Scope:
    return Scope(duckdb.connect(), {"history_files": readable})


def summarized(history: Path, versions: RuleVersions, day: date) -> set[str]:
    """sha256 of the gpu traces the history already holds for this night and these rule sets."""
    readable, _ = files(history)
    if not readable:
        return set()
    rows = _scope(readable).rows("history.summarized", rule_set_version=versions.rule_set,
                                 family_set_version=versions.family_set, finding_set_version=versions.finding_set,
                                 day=day)
    return {r["trace_sha256"] for r in rows}


def write_rows(history: Path, day: date, run_id: str, capture: str, result: dict[str, Any]) -> Path:
    """One capture's rows as one Parquet file of the `date=` partition, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"run_id": run_id, "capture": capture, "trace_sha256": result["trace_sha256"], **row,
             "rule_set_version": result["rule_set_version"], "family_set_version": result["family_set_version"],
             "finding_set_version": result["finding_set_version"]}
            for row in result["rows"]]
    folder = history / f"date={day.isoformat()}"
    folder.mkdir(parents=True, exist_ok=True)
    # the capture's name is in the file's: two captures of the same bytes are two files
    named = hashlib.sha256(capture.encode()).hexdigest()[:8]
    final = folder / f"{run_id}-{result['trace_sha256'][:16]}-{named}.parquet"
    partial = final.with_suffix(".parquet.partial")
    pq.write_table(pa.Table.from_pylist(rows, schema=history_schema()), partial)
    os.replace(partial, final)
    return final


@dataclass(frozen=True)
class Baseline:
    """How a night is judged: against the median of the last `runs` runs, allowing
    max(mad_k x 1.4826 x MAD, min_change x |median|), once at least `min_runs` runs exist."""

    runs: int = 7
    mad_k: float = 3.0
    min_change: float = 0.05
    min_runs: int = 3
    directions: dict[str, str] = field(default_factory=lambda: {name: m.direction for name, m in METRICS.items()
                                                                         if m.direction})

    def __post_init__(self) -> None:
        for flag, value in (("--mad-k", self.mad_k), ("--min-change", self.min_change)):
            if not math.isfinite(value):
                raise InputError(f"{flag} {value}: not a number")


KERNELS_MOVED = 5  # per capture, the kernels whose time moved most that the report lists


@dataclass(frozen=True)
class Night:
    """A night against its baselines: every checked metric (history.regressions), the kernels whose time moved
    most per capture (history.kernel_moves), every metric of the night's captures per night (the trends) and every
    night of the history up to it (history.nights: the trends' axis), and the captures of the night before that
    tonight lacks (history.missing)."""

    checks: list[dict[str, Any]]
    kernel_moves: list[dict[str, Any]]
    series: list[dict[str, Any]]
    nights: list[date]
    missing: list[dict[str, Any]]


def night(history: Path, day: date, versions: RuleVersions, baseline: Baseline) -> Night:
    """The night `day` checked against its rolling baseline, with what its report shows."""
    readable, _ = files(history)
    if not readable:
        return Night([], [], [], [], [])
    scope = _night_scope(readable, day, versions, baseline)
    checks = scope.rows("history.regressions", mad_k=baseline.mad_k, min_change=baseline.min_change,
                        min_baseline=baseline.min_runs, bounded_metrics=list(SHARES))
    return Night(checks, scope.rows("history.kernel_moves", top=KERNELS_MOVED), scope.rows("history.series"),
                 [r["date"] for r in scope.rows("history.nights")], scope.rows("history.missing"))


def _night_scope(readable: list[str], day: date, versions: RuleVersions, baseline: Baseline) -> Scope:
    return Scope(duckdb.connect(), {"history_files": readable, "day": day, "rule_set_version": versions.rule_set,
                                    "family_set_version": versions.family_set,
                                    "family_metrics": list(FAMILY_METRICS), "baseline_runs": baseline.runs},
                 ScopeContext(baseline=baseline))
