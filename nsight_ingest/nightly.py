"""The nightly job: find the day's trace sets, summarize each (in parallel), append to a Parquet history.

Per-trace work is a pure function of (trace files, rule set) -> rows, so a process pool and a Dask cluster give
identical histories. The parent alone writes: one Parquet file per trace under `date=YYYY-MM-DD/`, written to a
temporary name and renamed, so a crash leaves only whole files and the next run completes the rest.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from nsight_ingest.errors import InputError
from nsight_ingest.readers.source import sibling
from nsight_ingest.sqlfiles import sql_string

GPU_TRACE = re.compile(r"^(?P<capture>.+)_cuda_gpu_trace\.csv(?:\.gz)?$")

# Metrics written per trace: (metric, unit, direction in which a change is worse; None = not checked).
METRICS: dict[str, tuple[str, str | None]] = {
    "component_ms": ("ms", "up"),
    "component_launches": ("count", None),
    "kernel_time_ms": ("ms", "up"),
    "gpu_span_ms": ("ms", "up"),
    "kernel_busy_percent": ("%", "down"),
    "launch_gap_total_ms": ("ms", "up"),
    "launch_gap_p90_ns": ("ns", "up"),
    "launch_gap_max_ns": ("ns", None),  # an extreme value: reported, too noisy to judge
    "launch_overlap_percent": ("%", "down"),
    "cpu_starved_kernel_percent": ("%", "up"),
}


@dataclass(frozen=True)
class TraceSet:
    """A cuda_gpu_trace and the sibling exports of the same capture."""

    capture: str
    gpu_trace: str
    kern_exec: str | None = None
    nvtx: str | None = None
    ncu: tuple[str, ...] = ()


def discover(directory: str | Path) -> list[TraceSet]:
    """Every `*_cuda_gpu_trace.csv[.gz]` under `directory` with its kern_exec / nvtx / ncu siblings."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{directory}: not a directory")
    sets = []
    for path in sorted(root.rglob("*_cuda_gpu_trace.csv*")):
        match = GPU_TRACE.match(path.name)
        if not match:
            continue
        prefix = match["capture"]
        ncu = tuple(str(p) for p in sorted(path.parent.glob(f"{prefix}_ncu*.csv*")))
        sets.append(TraceSet(prefix, str(path), sibling(str(path), "cuda_kern_exec_trace"),
                             sibling(str(path), "nvtx_pushpop_trace"), ncu))
    return sets


def trace_rows(trace: TraceSet, rules_dir: str | None) -> dict[str, Any]:
    """Summarize one trace set: its gpu-trace sha256 and long rows (metric, component, value, unit)."""
    from nsight_ingest import store
    from nsight_ingest.analysis import launches
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules_dir)
    con = store.connect()
    capture = store.ingest_capture(con, trace.gpu_trace, trace.kern_exec, trace.nvtx, trace.ncu)
    summary, launch = launches.with_summary(con, capture, rule_set)
    values: list[tuple[str, str | None, float | None]] = []
    for component, entry in summary["components"].items():
        values += [("component_ms", component, entry["milliseconds"]),
                   ("component_launches", component, entry["launches"])]
    overlap = summary["cpu_gpu_overlap"] or {}
    values += [
        ("kernel_time_ms", None, summary["kernel_time_ns"] / 1e6),
        ("gpu_span_ms", None, summary["gpu_span_ns"] / 1e6),
        ("kernel_busy_percent", None, summary["kernel_busy_percent_of_span"]),
        ("launch_gap_total_ms", None, summary["launch_gaps"]["total_ns"] / 1e6),
        ("launch_gap_p90_ns", None, launch["gaps"]["p90_ns"]),
        ("launch_gap_max_ns", None, launch["gaps"]["max_ns"]),
        ("launch_overlap_percent", None, overlap.get("launch_api_overlap_percent")),
        ("cpu_starved_kernel_percent", None, launch["cpu_starved_kernel_percent"]),
    ]
    rows = [{"metric": m, "component": c, "value": None if v is None else float(v), "unit": METRICS[m][0]}
            for m, c, v in values]
    return {"trace_sha256": capture.gpu_trace.sha256, "rule_set_version": rule_set.version, "rows": rows}


HISTORY_FILES = "date=*/*.parquet"


def history_source(history: Path) -> str:
    """The history as a DuckDB table function over its Parquet files (hive partitioning on `date`)."""
    return f"read_parquet({sql_string(str(history / HISTORY_FILES))}, hive_partitioning = true)"


def already_done(history: Path, rule_set_version: str) -> set[str]:
    """sha256 of the gpu traces the history already holds for this rule-set version."""
    import duckdb

    if not any(history.glob(HISTORY_FILES)):
        return set()
    rows = duckdb.execute(f"SELECT DISTINCT trace_sha256 FROM {history_source(history)} WHERE rule_set_version = ?",
                          [rule_set_version]).fetchall()
    return {sha for (sha,) in rows}


def write_rows(history: Path, day: date, run_id: str, trace: TraceSet, result: dict[str, Any]) -> Path:
    """One trace's rows as one Parquet file of the `date=` partition, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"run_id": run_id, "capture": trace.capture, "trace_sha256": result["trace_sha256"], **row,
             "rule_set_version": result["rule_set_version"]} for row in result["rows"]]
    schema = pa.schema([("run_id", pa.string()), ("capture", pa.string()), ("trace_sha256", pa.string()),
                        ("metric", pa.string()), ("component", pa.string()), ("value", pa.float64()),
                        ("unit", pa.string()), ("rule_set_version", pa.string())])
    folder = history / f"date={day.isoformat()}"
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{run_id}-{result['trace_sha256'][:16]}.parquet"
    partial = final.with_suffix(".parquet.partial")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), partial)
    os.replace(partial, final)
    return final


def new_run_id() -> str:
    """A sortable, unique id for one run of the job."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]


Runner = Callable[[Callable[..., dict[str, Any]], list[TraceSet], str | None], Iterable[tuple[TraceSet, Any]]]


def local_runner(workers: int | None) -> Runner:
    """Run the per-trace work in a process pool (all cores by default); yields (trace, result or exception)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    def run(work, traces, rules_dir):
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            futures = {pool.submit(work, trace, rules_dir): trace for trace in traces}
            for future in as_completed(futures):
                error = future.exception()
                yield futures[future], error if error else future.result()

    return run


def dask_runner(address: str) -> Runner:
    """Run the per-trace work on an existing Dask cluster."""
    from distributed import Client, as_completed

    def run(work, traces, rules_dir):
        with Client(address) as client:
            futures = {client.submit(work, trace, rules_dir, pure=False): trace for trace in traces}
            for future in as_completed(futures):
                trace = futures[future]
                try:
                    yield trace, future.result()
                except Exception as exc:
                    yield trace, exc

    return run


@dataclass
class RunResult:
    """What one run of the job did."""

    run_id: str
    day: date
    rule_set_version: str
    found: int = 0
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def run(directory: str | Path, history: Path, day: date, rules_dir: str | None, runner: Runner,
        progress: Callable[[str], None] = lambda _: None, lock_timeout: float = 60.0) -> RunResult:
    """Summarize every new trace set of `directory` into `history` (holding its lock), trace by trace."""
    from filelock import FileLock, Timeout

    from nsight_ingest.readers.source import file_hashes
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules_dir)
    history.mkdir(parents=True, exist_ok=True)
    lock = FileLock(history / ".lock")
    try:
        lock.acquire(timeout=lock_timeout)
    except Timeout:
        raise InputError(f"{history}: another summarize run holds the history lock (waited {lock_timeout:g} s)")\
            from None
    try:
        traces = discover(directory)
        done = already_done(history, rule_set.version)
        result = RunResult(new_run_id(), day, rule_set.version, len(traces))
        todo = []
        for trace in traces:
            if file_hashes(Path(trace.gpu_trace))[0] in done:
                result.skipped.append(trace.gpu_trace)
            else:
                todo.append(trace)
        for trace, outcome in runner(trace_rows, todo, rules_dir):
            if isinstance(outcome, Exception):
                result.failed.append(f"{trace.gpu_trace}: {outcome}")
            else:
                write_rows(history, day, result.run_id, trace, outcome)
                result.written.append(trace.gpu_trace)
            progress(trace.gpu_trace)
        return result
    finally:
        lock.release()
