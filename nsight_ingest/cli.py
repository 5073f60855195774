"""The `nsight-ingest` command line: parse options, call the pipeline, print. No analysis logic here."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from nsight_ingest.errors import InputError

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Turn Nsight Systems / Nsight Compute CSV exports into answers.")
rules_app = typer.Typer(no_args_is_help=True, help="Inspect a classification rule set.")
app.add_typer(rules_app, name="rules")


class Format(StrEnum):
    json = "json"
    table = "table"


class QueryFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _warn(message: str) -> None:
    print(f"nsight-ingest: {message}", file=sys.stderr)


def _warn_about(request) -> None:
    """Print the warnings gathered while running a pipeline.Request."""
    for warning in request.warnings:
        _warn(warning)


GpuTrace = Annotated[str, typer.Argument(help="nsys cuda_gpu_trace CSV (.csv or .csv.gz)")]
KernExec = Annotated[
    str | None, typer.Option("--kern-exec", help="cuda_kern_exec_trace CSV; default: the sibling file")
]
Rules = Annotated[Path | None, typer.Option("--rules", help="folder of rule .sql files replacing the defaults")]
Db = Annotated[str | None, typer.Option("--db", help="persist the store to this DuckDB file")]
Nvtx = Annotated[str | None, typer.Option("--nvtx", help="only kernels launched inside NVTX ranges of this name")]
NvtxTrace = Annotated[
    str | None, typer.Option("--nvtx-trace", help="nvtx_pushpop_trace CSV; default: the sibling file")
]
TimeRange = Annotated[str | None, typer.Option("--range", help="only kernels launched in START_NS:END_NS")]
PerNvtx = Annotated[
    str | None, typer.Option("--per-nvtx", help="one result per NVTX range whose name matches this regex")
]
Fmt = Annotated[Format, typer.Option("--format", help="output format")]
NcuFiles = Annotated[list[str] | None, typer.Option("--ncu", help="ncu --csv export (raw or details); repeatable")]
LatencyBelow = Annotated[float, typer.Option("--latency-below", help="both throughputs below this %: latency bound")]
BoundAtLeast = Annotated[float, typer.Option("--bound-at-least", help="compute/memory bound needs at least this %")]
Dominance = Annotated[float, typer.Option("--dominance", help="... and more than this times the other throughput")]


def _execute(request, db: str | None, rules: Path | None, analyse, question: dict) -> dict:
    """Open the store, run `analyse(con, capture, rule_set, window)` per window, print warnings."""
    from nsight_ingest import pipeline, store
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules)
    con = store.connect(db)
    result = pipeline.run(con, request, lambda c, capture, window: analyse(c, capture, rule_set, window),
                          {**question, "rule_set_version": rule_set.version})
    _warn_about(request)
    return result


def _print(result: dict, fmt: Format, table) -> None:
    from nsight_ingest import report

    if fmt is Format.json:
        print(report.to_json(result))
    else:
        for part in result.get("windows", [result]):
            table(part)


@app.command()
def classify(gpu_trace: GpuTrace, kern_exec: KernExec = None, rules: Rules = None, db: Db = None,
             nvtx: Nvtx = None, nvtx_trace: NvtxTrace = None, time_range: TimeRange = None,
             per_nvtx: PerNvtx = None, ncu: NcuFiles = None, latency_below: LatencyBelow = 60.0,
             bound_at_least: BoundAtLeast = 70.0, dominance: Dominance = 1.2, fmt: Fmt = Format.json) -> None:
    """Where the kernel time goes, by component, with launch gaps and CPU-GPU launch overlap."""
    from functools import partial

    from nsight_ingest import pipeline, report
    from nsight_ingest.analysis.classify import summarize
    from nsight_ingest.analysis.ncu import Thresholds

    request = pipeline.Request(gpu_trace, kern_exec, nvtx_trace, nvtx, time_range, per_nvtx, tuple(ncu or ()))
    thresholds = Thresholds(latency_below, bound_at_least, dominance)
    analyse = partial(summarize, thresholds=thresholds)
    _print(_execute(request, db, rules, analyse, {"command": "classify", **thresholds.params()}), fmt,
           report.print_classify)


@app.command()
def launches(gpu_trace: GpuTrace, kern_exec: KernExec = None, rules: Rules = None, db: Db = None,
             nvtx: Nvtx = None, nvtx_trace: NvtxTrace = None, time_range: TimeRange = None,
             per_nvtx: PerNvtx = None,
             top: Annotated[int, typer.Option("--top", min=1, help="how many of the largest gaps to list")] = 10,
             fmt: Fmt = Format.json) -> None:
    """Why the GPU waits: gap anatomy, launch-call latency, queueing and CPU starvation."""
    from functools import partial

    from nsight_ingest import pipeline, report
    from nsight_ingest.analysis.launches import analyse

    request = pipeline.Request(gpu_trace, kern_exec, nvtx_trace, nvtx, time_range, per_nvtx)
    _print(_execute(request, db, rules, partial(analyse, top=top), {"command": "launches", "top": top}), fmt,
           report.print_launches)


@app.command()
def ingest(
    gpu_traces: Annotated[list[str], typer.Argument(help="cuda_gpu_trace CSVs; their kern_exec siblings come too")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store to load into (created if missing)")],
) -> None:
    """Load captures into a persistent store without analysing them (`query` and the analyses read it later)."""
    import json

    from nsight_ingest import pipeline, store

    con = store.connect(db)
    loaded = []
    for path in gpu_traces:
        request = pipeline.Request(path)
        capture = pipeline.open_capture(con, request)
        loaded.append({"capture_id": capture.capture_id,
                       "inputs": [{"path": i.path, "role": role, "trace_id": i.trace_id, "rows": i.rows,
                                   "sha256": i.sha256, "already_stored": i.reused} for i, role in capture.roles()]})
        _warn_about(request)
    print(json.dumps(loaded, indent=2))


@app.command()
def ranks(
    files: Annotated[list[str], typer.Argument(help="one cuda_gpu_trace (CSV or nsys .sqlite) per rank, or one "
                                                     "file holding several GPUs")],
    rank_pattern: Annotated[str, typer.Option("--rank-pattern", help="regex whose group 1 is the rank in a file "
                                                                     "name")] = r"(?:rank|_r)(\d+)",
    offset: Annotated[list[str] | None, typer.Option("--offset", help="RANK=NS: that rank's clock offset, instead "
                                                                      "of the estimate; repeatable")] = None,
    nvtx: Annotated[str | None, typer.Option("--nvtx", help="each rank's NVTX range of this name is its step")]
    = None,
    time_range: Annotated[str | None, typer.Option("--range", help="START_NS:END_NS on the aligned clock")] = None,
    db: Db = None,
    fmt: Fmt = Format.json,
) -> None:
    """Several ranks: aligned span, idle time of all GPUs, NCCL and all-gather time, collective skew and waiting."""
    from nsight_ingest import pipeline, report, store
    from nsight_ingest.analysis import ranks as analysis
    from nsight_ingest.analysis import scope

    given = {}
    for item in offset or []:
        rank, _, value = item.partition("=")
        try:
            given[int(rank)] = int(value)
        except ValueError:
            raise InputError(f"--offset {item!r}: expected RANK=NS, both integers") from None
    con = store.connect(db)
    requests = [pipeline.Request(path, nvtx=nvtx) for path in files]
    captures = [pipeline.open_capture(con, request) for request in requests]
    sources = analysis.assign(con, captures, rank_pattern)
    if nvtx:
        sources = analysis.nvtx_steps(con, captures, sources, nvtx)
    window = scope.time_range(time_range).ranges[0][:2] if time_range else None
    result = analysis.analyse(con, sources, shared_clock=len(captures) == 1, offsets=given, time_range=window)
    for request in requests:
        _warn_about(request)
    _print(result, fmt, report.print_ranks)


@app.command(name="ncu")
def ncu_command(
    files: Annotated[list[str], typer.Argument(help="ncu --csv exports (--page raw or details, .csv or .csv.gz)")],
    rules: Rules = None, db: Db = None, latency_below: LatencyBelow = 60.0, bound_at_least: BoundAtLeast = 70.0,
    dominance: Dominance = 1.2,
    all_metrics: Annotated[bool, typer.Option("--all-metrics", help="every metric, not just the common ones")] = False,
    fmt: Fmt = Format.json,
) -> None:
    """Nsight Compute metrics per profiled kernel, in base units, with compute/memory/latency-bound verdicts."""
    from nsight_ingest import report, store
    from nsight_ingest.analysis import ncu
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules)
    con = store.connect(db)
    inputs = [store.ingest_ncu(con, path) for path in files]
    thresholds = ncu.Thresholds(latency_below, bound_at_least, dominance)
    result = ncu.analyse(con, inputs, rule_set, thresholds, all_metrics)
    _print(result, fmt, report.print_ncu)


@app.command()
def compare(
    a: Annotated[str | None, typer.Argument(help="cuda_gpu_trace of the 'before' capture")] = None,
    b: Annotated[str | None, typer.Argument(help="cuda_gpu_trace of the 'after' capture")] = None,
    rules: Rules = None,
    abba: Annotated[Path | None, typer.Option("--abba", help="per-update timings CSV: trial, variant, update, "
                                                            "seconds (variants before/after)")] = None,
    warmup: Annotated[int, typer.Option("--warmup", min=0, help="first updates of each trial to drop")] = 2,
    final: Annotated[int, typer.Option("--final", min=0, help="last updates of each trial to drop")] = 1,
    fmt: Fmt = Format.json,
) -> None:
    """Before/after: deltas between two captures, or matched A/B/B/A wall-clock timings (--abba)."""
    from nsight_ingest import pipeline, report, store
    from nsight_ingest.analysis import compare as analysis
    from nsight_ingest.analysis.launches import with_summary
    from nsight_ingest.rules import load_rule_set

    if abba is not None:
        if a or b:
            raise InputError("give either two captures or --abba TIMINGS.csv, not both")
        result = analysis.abba(abba, warmup, final)
    else:
        if not (a and b):
            raise InputError("compare needs two cuda_gpu_trace files (before, after) or --abba TIMINGS.csv")
        rule_set = load_rule_set(rules)
        con = store.connect()
        parts = []
        for path in (a, b):
            request = pipeline.Request(path)
            capture = pipeline.open_capture(con, request)
            parts += with_summary(con, capture, rule_set)
            _warn_about(request)
        result = analysis.captures(parts[0], parts[2], parts[1], parts[3])
    _print(result, fmt, report.print_compare)


@rules_app.command("audit")
def rules_audit(gpu_trace: GpuTrace, kern_exec: KernExec = None, rules: Rules = None,
                top: Annotated[int, typer.Option("--top", min=1, help="unclassified names to list")] = 10,
                fmt: Fmt = Format.json) -> None:
    """How a rule set fits a trace: unclassified time, rules that matched nothing, overlaps, neighbour share."""
    from nsight_ingest import pipeline, report, store
    from nsight_ingest.analysis.audit import audit
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules)
    con = store.connect()
    request = pipeline.Request(gpu_trace, kern_exec)
    result = audit(con, pipeline.open_capture(con, request), rule_set, top)
    _print(result, fmt, report.print_audit)


class Scheduler(StrEnum):
    local = "local"
    dask = "dask"


@app.command()
def summarize(
    directory: Annotated[str, typer.Argument(help="folder searched for *_cuda_gpu_trace.csv[.gz] and siblings")],
    history: Annotated[Path, typer.Option("--history", help="Parquet history folder (created if missing)")],
    day: Annotated[str | None, typer.Option("--date", help="night of the run, YYYY-MM-DD (default: today, UTC)")]
    = None,
    rules: Rules = None,
    scheduler: Annotated[Scheduler, typer.Option("--scheduler", help="local process pool or a Dask cluster")]
    = Scheduler.local,
    dask_address: Annotated[str | None, typer.Option("--dask-address", help="HOST:PORT of the Dask scheduler")]
    = None,
    workers: Annotated[int | None, typer.Option("--workers", help="local processes (default: all cores)")] = None,
    baseline_runs: Annotated[int, typer.Option("--baseline-runs", help="compare with the last K runs")] = 7,
    mad_k: Annotated[float, typer.Option("--mad-k", help="allowed change in robust sigmas (1.4826 x MAD)")] = 3.0,
    min_change: Annotated[float, typer.Option("--min-change", help="... and at least this fraction of median")]
    = 0.05,
    min_baseline: Annotated[int, typer.Option("--min-baseline", help="runs needed before judging")] = 3,
    direction: Annotated[list[str] | None, typer.Option("--direction", help="METRIC=up|down|none: which way is "
                                                                          "worse; repeatable")] = None,
    report_dir: Annotated[Path | None, typer.Option("--report-dir", help="where the .md/.html reports go "
                                                                        "(default: HISTORY/reports)")] = None,
    lock_timeout: Annotated[float, typer.Option("--lock-timeout", help="seconds to wait for the history lock")]
    = 60.0,
) -> None:
    """Nightly job: summarize new traces into a Parquet history, check regressions, write reports.

    Exit code 1 when a metric regressed, 2 when a trace failed (and nothing regressed)."""
    import datetime as dt
    import json

    from nsight_ingest import nightly, report
    from nsight_ingest.analysis import regressions
    from nsight_ingest.rules import load_rule_set

    try:
        night = dt.date.fromisoformat(day) if day else dt.datetime.now(dt.UTC).date()
    except ValueError:
        raise InputError(f"--date {day!r}: expected YYYY-MM-DD") from None
    baseline = regressions.Baseline(baseline_runs, mad_k, min_change, min_baseline)
    for item in direction or []:
        metric, _, way = item.partition("=")
        if way not in ("up", "down", "none") or metric not in nightly.METRICS:
            raise InputError(f"--direction {item!r}: expected METRIC=up|down|none, METRIC one of "
                             f"{', '.join(nightly.METRICS)}")
        baseline.directions.pop(metric, None) if way == "none" else baseline.directions.update({metric: way})
    if scheduler is Scheduler.dask and not dask_address:
        raise InputError("--scheduler dask needs --dask-address HOST:PORT")
    runner = nightly.dask_runner(dask_address) if scheduler is Scheduler.dask else nightly.local_runner(workers)
    load_rule_set(rules)  # a broken rule set fails here, once, not in every worker
    with report.progress_bar(len(nightly.discover(directory)), "summarizing") as advance:
        result = nightly.run(directory, history, night, str(rules) if rules else None, runner, advance,
                             lock_timeout)
    checks = regressions.check(history, night, result.rule_set_version, baseline)
    captures = sorted({c["capture"] for c in checks})
    folder = report_dir or history / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"run_id": result.run_id, "date": night.isoformat(), "rule_set_version": result.rule_set_version,
               "traces_found": result.found, "written": result.written, "skipped": result.skipped,
               "failed": result.failed}
    markdown, page = folder / f"{night.isoformat()}.md", folder / f"{night.isoformat()}.html"
    markdown.write_text(report.nightly_markdown(summary, checks), encoding="utf-8")
    page.write_text(report.nightly_html(summary, checks, regressions.series(history, result.rule_set_version,
                                                                            captures)), encoding="utf-8")
    regressed = [c for c in checks if c["regressed"]]
    print(json.dumps({**summary, "checked_metrics": len(checks), "regressions": regressed,
                      "reports": {"markdown": str(markdown), "html": str(page)}}, indent=2, default=str))
    for failure in result.failed:
        _warn(f"failed: {failure}")
    if regressed:
        raise typer.Exit(1)
    if result.failed:
        raise typer.Exit(2)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL to run against the store")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store written by --db of another command")],
    fmt: Annotated[QueryFormat, typer.Option("--format", help="output format")] = QueryFormat.table,
) -> None:
    """Run your own SQL on a persisted store (read-only)."""
    import duckdb

    from nsight_ingest import report, store

    if not Path(db).is_file():
        raise InputError(f"{db}: no such store")
    con = store.connect(db, read_only=True)
    try:
        cursor = con.execute(sql)
    except duckdb.Error as exc:
        raise InputError(f"query failed: {str(exc).splitlines()[0]}") from None
    columns = [d[0] for d in cursor.description] if cursor.description else []
    rows = cursor.fetchall() if columns else []
    if fmt is QueryFormat.table:
        report.print_rows(columns, rows)
    elif fmt is QueryFormat.csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        print(report.to_json([dict(zip(columns, row, strict=True)) for row in rows]))


def main() -> None:
    """Console entry point: one-line errors with exit code 2 for bad input, never a traceback."""
    try:
        app()  # standalone: typer reports its own usage errors (exit 2) and exits
    except InputError as exc:
        _warn(f"error: {exc}")
        sys.exit(2)
    except Exception as exc:
        if os.environ.get("NSIGHT_INGEST_DEBUG"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        _warn(f"internal error: {type(exc).__name__}: {first} (set NSIGHT_INGEST_DEBUG=1 for a traceback)")
        sys.exit(3)
