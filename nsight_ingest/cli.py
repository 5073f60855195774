"""The `nsight-ingest` command line: parse options, call the pipeline, print. No analysis logic here."""

from __future__ import annotations

import inspect
import os
import sys
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from nsight_ingest import registry
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


def _warn_about(run) -> None:
    """Print the warnings gathered while answering (a pipeline.Run)."""
    for warning in run.warnings:
        _warn(warning)


def _run(db: str | None, rules: Path | None):
    """A pipeline.Run on the store `db` (in memory when None) with the rule set of `rules`."""
    from nsight_ingest import pipeline, store
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules)
    return pipeline.Run(store.connect(db), rule_set)


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


def _threshold(name: str):
    """The typer option of one bound-verdict threshold, as the registry describes it."""
    option = next(o for o in registry.THRESHOLDS if o.name == name)
    return typer.Option(option.flag, help=option.help)
def _print(result: Any, fmt: Format, table) -> None:
    from nsight_ingest import report

    if fmt is Format.json:
        print(report.to_json(result))
    else:
        for part in result.get("windows", [result]):
            table(part)


def _option(option: registry.Option) -> inspect.Parameter:
    kind = type(option.default)
    info = typer.Option(option.flag, help=option.help, min=option.minimum)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=option.default,
                             annotation=Annotated[kind, info])


def _capture_command(analysis: registry.Analysis):
    """The command that answers `analysis` for one capture: its files, store, rules, windows, its own options."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter("gpu_trace", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=GpuTrace),
        inspect.Parameter("kern_exec", keyword, default=None, annotation=KernExec),
        inspect.Parameter("rules", keyword, default=None, annotation=Rules),
    ]
    if analysis.cacheable:
        parameters.append(inspect.Parameter("db", keyword, default=None, annotation=Db))
    if analysis.windows:
        parameters += [inspect.Parameter("nvtx", keyword, default=None, annotation=Nvtx),
                       inspect.Parameter("nvtx_trace", keyword, default=None, annotation=NvtxTrace),
                       inspect.Parameter("time_range", keyword, default=None, annotation=TimeRange),
                       inspect.Parameter("per_nvtx", keyword, default=None, annotation=PerNvtx)]
    if analysis.takes_ncu:
        parameters.append(inspect.Parameter("ncu", keyword, default=None, annotation=NcuFiles))
    parameters += [_option(option) for option in analysis.options]
    parameters.append(inspect.Parameter("fmt", keyword, default=Format.json, annotation=Fmt))

    def command(**given: Any) -> None:
        from nsight_ingest import pipeline

        run = _run(given.get("db"), given["rules"])
        files = pipeline.CaptureFiles(given["gpu_trace"], given["kern_exec"], given.get("nvtx_trace"),
                                      ncu=tuple(given.get("ncu") or ()))
        choice = pipeline.WindowChoice(given.get("nvtx"), given.get("time_range"), given.get("per_nvtx"))
        result = pipeline.analyse(run, analysis, files, {o.name: given[o.name] for o in analysis.options}, choice)
        _warn_about(run)
        _print(result, given["fmt"], analysis.print_table)

    command.__signature__ = inspect.Signature(parameters)
    command.__doc__ = analysis.help
    return command


for _analysis in registry.CAPTURE_COMMANDS:
    app.command(name=_analysis.name)(_capture_command(_analysis))
rules_app.command("audit")(_capture_command(registry.AUDIT))


@app.command()
def ingest(
    gpu_traces: Annotated[list[str], typer.Argument(help="cuda_gpu_trace CSVs; their kern_exec siblings come too")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store to load into (created if missing)")],
) -> None:
    """Load captures into a persistent store without analysing them (`query` and the analyses read it later)."""
    from nsight_ingest import pipeline, report

    run = _run(db, None)
    loaded = []
    for path in gpu_traces:
        capture = pipeline.open_capture(run, pipeline.CaptureFiles(path))
        loaded.append({"capture_id": capture.capture_id,
                       "inputs": [{"path": i.path, "role": role, "trace_id": i.trace_id, "rows": i.rows,
                                   "sha256": i.sha256, "already_stored": i.reused} for i, role in capture.roles()]})
    _warn_about(run)
    print(report.to_json(loaded))


@app.command()
def ranks(
    files: Annotated[list[str], typer.Argument(help="one cuda_gpu_trace (CSV or nsys .sqlite) per rank, or one "
                                                     "file holding several GPUs")],
    rank_pattern: Annotated[str | None, typer.Option("--rank-pattern", help="regex whose group 1 is the rank in a "
                                                                            "file name (default: rank3, _r3)")]
    = None,
    offset: Annotated[list[str] | None, typer.Option("--offset", help="RANK=NS: that rank's clock offset, instead "
                                                                      "of the estimate; repeatable")] = None,
    nvtx: Annotated[str | None, typer.Option("--nvtx", help="each rank's NVTX range of this name is its step")]
    = None,
    time_range: Annotated[str | None, typer.Option("--range", help="START_NS:END_NS on the aligned clock")] = None,
    db: Db = None,
    fmt: Fmt = Format.json,
) -> None:
    """Several ranks: aligned span, idle time of all GPUs, NCCL and all-gather time, collective skew and waiting."""
    from nsight_ingest import pipeline
    from nsight_ingest.report import tables

    run = _run(db, None)
    result = pipeline.analyse_ranks(run, [pipeline.CaptureFiles(path) for path in files], rank_pattern,
                                    offset or [], nvtx, time_range)
    _warn_about(run)
    _print(result, fmt, tables.print_ranks)


@app.command(name="ncu")
def ncu_command(
    files: Annotated[list[str], typer.Argument(help="ncu --csv exports (--page raw or details, .csv or .csv.gz)")],
    rules: Rules = None, db: Db = None,
    latency_below: Annotated[float, _threshold("latency_below")] = registry.THRESHOLDS[0].default,
    bound_at_least: Annotated[float, _threshold("bound_at_least")] = registry.THRESHOLDS[1].default,
    dominance: Annotated[float, _threshold("dominance")] = registry.THRESHOLDS[2].default,
    all_metrics: Annotated[bool, typer.Option("--all-metrics", help="every metric, not just the common ones")] = False,
    fmt: Fmt = Format.json,
) -> None:
    """Nsight Compute metrics per profiled kernel, in base units, with compute/memory/latency-bound verdicts."""
    from nsight_ingest import pipeline
    from nsight_ingest.report import tables

    run = _run(db, rules)
    options = {"latency_below": latency_below, "bound_at_least": bound_at_least, "dominance": dominance,
               "all_metrics": all_metrics}
    _print(pipeline.analyse_ncu(run, files, options), fmt, tables.print_ncu)


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
    from nsight_ingest import pipeline
    from nsight_ingest.analysis import compare as analysis
    from nsight_ingest.report import tables

    if abba is not None:
        if a or b:
            raise InputError("give either two captures or --abba TIMINGS.csv, not both")
        result = analysis.abba(abba, warmup, final)
    else:
        if not (a and b):
            raise InputError("compare needs two cuda_gpu_trace files (before, after) or --abba TIMINGS.csv")
        run = _run(None, rules)
        result = pipeline.compare(run, pipeline.CaptureFiles(a), pipeline.CaptureFiles(b))
        _warn_about(run)
    _print(result, fmt, tables.print_compare)


class Scheduler(StrEnum):
    local = "local"
    dask = "dask"


@contextmanager
def _progress_bar(total: int, label: str):
    """A progress bar on stderr; yields a callback to call once per finished item."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda _item: progress.advance(task)


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
    import json

    from nsight_ingest import nightly
    from nsight_ingest.history import Baseline
    from nsight_ingest.rules import load_rule_set

    night = nightly.parse_night(day)
    baseline = nightly.with_directions(Baseline(baseline_runs, mad_k, min_change, min_baseline), direction or [])
    if scheduler is Scheduler.dask and not dask_address:
        raise InputError("--scheduler dask needs --dask-address HOST:PORT")
    runner = nightly.dask_runner(dask_address) if scheduler is Scheduler.dask else nightly.local_runner(workers)
    load_rule_set(rules)  # a broken rule set fails here, once, not in every worker
    with _progress_bar(len(nightly.discover(directory)), "summarizing") as advance:
        outcome = nightly.job(directory, history, night, str(rules) if rules else None, runner, baseline, report_dir,
                              advance, lock_timeout)
    print(json.dumps(outcome.summary, indent=2, default=str))
    for failure in outcome.failed:
        _warn(f"failed: {failure}")
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL to run against the store")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store written by --db of another command")],
    fmt: Annotated[QueryFormat, typer.Option("--format", help="output format")] = QueryFormat.table,
) -> None:
    """Run your own SQL on a persisted store (read-only)."""
    import duckdb

    from nsight_ingest import report, store
    from nsight_ingest.report import tables

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
        tables.print_rows(columns, rows)
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
