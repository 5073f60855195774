"""The `nsight-ingest` command line: parse options, call the pipeline, print. No analysis logic here."""

from __future__ import annotations

import csv
import inspect
import os
import signal
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import duckdb
import typer

from nsight_ingest import nightly, pipeline, ranks_job, registry, report, runs, settings, store, tables
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.finding_rules import SEVERITIES
from nsight_ingest.history import Baseline
from nsight_ingest.nightly import LOCK_TIMEOUT_S
from nsight_ingest.readers.capture import CaptureFiles, Sources
from nsight_ingest.report.progress import progress_bar
from nsight_ingest.windows import WindowChoice

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Turn Nsight Systems / Nsight Compute CSV exports into answers.")
# the usage error of the click typer runs on (typer re-exports only its BadParameter subclass)
UsageError = typer.BadParameter.__mro__[1]
NoArgsIsHelpError = sys.modules[UsageError.__module__].NoArgsIsHelpError  # raised by a group given no arguments
rules_app = typer.Typer(no_args_is_help=True, help="Inspect a classification rule set.")
app.add_typer(rules_app, name="rules")


class Format(StrEnum):
    json = "json"
    table = "table"


Severity = StrEnum("Severity", {name: name for name in SEVERITIES})


class QueryFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _warn(message: str) -> None:
    print(f"nsight-ingest: {message}", file=sys.stderr)


def _warn_about(run: runs.Run) -> None:
    """Print the warnings gathered while answering (a runs.Run)."""
    for warning in dict.fromkeys(run.warnings):  # a command that answers twice (classify --html) warns once
        _warn(warning)


GpuTrace = Annotated[str, typer.Argument(
    help="the capture: an .nsys-rep, an nsys export (.sqlite, parquetdir or arrowdir folder), or a cuda_gpu_trace "
         "CSV (.csv, .csv.gz, - for stdin)")]
Nsys = Annotated[str | None, typer.Option("--nsys", help="nsys executable that converts an .nsys-rep "
                                                          "(default: $NSYS, then PATH)")]
CacheDir = Annotated[Path | None, typer.Option("--cache-dir", help="cache folder for converted reports and ingested "
                                                                    "stores (default: the user's cache folder)")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="read the inputs anew; keep no store in the cache")]
KernExec = Annotated[
    str | None, typer.Option("--kern-exec", help="cuda_kern_exec_trace CSV; default: the sibling file")
]
Rules = Annotated[Path | None, typer.Option("--rules", help="folder of rule .sql files replacing the defaults")]
Families = Annotated[Path | None, typer.Option("--families", help="folder of kernel-family rule .sql files "
                                                                  "replacing the built-in ones")]
FindingRules = Annotated[Path | None, typer.Option("--findings", "--findings-dir", help="folder of finding rule "
                                                  ".sql files replacing the built-in ones")]
FailOn = Annotated[Severity | None, typer.Option("--fail-on", help="exit 1 when a finding is this severe or more "
                                                                    "(for CI)")]
WithFindings = Annotated[bool, typer.Option("--findings", help="add the findings (as the findings command gives "
                                                               "them) under `findings`")]
FindingRulesOnly = Annotated[Path | None, typer.Option("--findings-dir", help="with --findings: folder of finding "
                                                                              "rule .sql files replacing the built-in "
                                                                              "ones")]
Db = Annotated[str | None, typer.Option("--db", help="persist the store to this DuckDB file")]
Nvtx = Annotated[str | None, typer.Option("--nvtx", help="only kernels launched inside NVTX ranges of this name")]
NvtxTrace = Annotated[
    str | None, typer.Option("--nvtx-trace", help="nvtx_pushpop_trace CSV; default: the sibling file")
]
TimeRange = Annotated[str | None, typer.Option("--range", help="only kernels launched in START_NS:END_NS")]
PerNvtx = Annotated[
    str | None, typer.Option("--per-nvtx", help="one result per NVTX range whose name matches this regex")
]
ByNvtx = Annotated[str | None, typer.Option("--by-nvtx", help="one result per group of the NVTX ranges whose name "
                                                              "matches this regex, grouped by its first (group)")]
Details = Annotated[bool, typer.Option("--details", help="with --per-nvtx and --format table: every window's "
                                                         "tables after the one-row-per-window table")]
Fmt = Annotated[Format, typer.Option("--format", help="output format")]
NcuFiles = Annotated[list[str] | None, typer.Option("--ncu", help="ncu --csv export (raw or details); repeatable")]
ApiTrace = Annotated[str | None, typer.Option("--api-trace", help="cuda_api_trace CSV of the same capture")]
Html = Annotated[Path | None, typer.Option("--html", help="also write the capture's report page (as the report "
                                                          "command does) to this HTML file")]
ReportOutput = Annotated[Path, typer.Option("-o", "--output", help="the HTML page to write (self-contained: it "
                                                                 "works offline)")]
# the report is one page: --per-nvtx is taken only to say so (and what to give instead)
PerNvtxRefused = Annotated[str | None, typer.Option("--per-nvtx", hidden=True)]


def _print(result: Any, fmt: Format, analysis: registry.Analysis, details: bool = False) -> None:
    if fmt is Format.json:
        print(report.to_json(result))
        return
    if analysis.windows and ("windows" in result or "groups" in result):  # a row per window or group, then each
        tables.print_windows(result)
        for part in pipeline.parts_of(result) if details or "groups" in result else ():
            analysis.print_table(part)
    else:
        analysis.print_table(result)
    if isinstance(result.get("findings"), dict):  # classify --findings
        registry.FINDINGS.print_table(result["findings"])


def _option(option: registry.Option) -> inspect.Parameter:
    info = typer.Option(option.flag, help=option.help, min=option.minimum, max=option.maximum)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=option.default,
                             annotation=Annotated[option.kind or type(option.default), info])


def _keyword(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


SOURCES = (_keyword("nsys", Nsys), _keyword("cache_dir", CacheDir), _keyword("no_cache", NoCache, False))


def _answer_given(given: dict[str, Any], run: runs.Run, analysis: registry.Analysis) -> Any:
    return pipeline.answer(run, analysis, _request(analysis, given))


def _command(analysis: registry.Analysis, inputs: list[inspect.Parameter], body=None,
             extra: tuple[registry.Option, ...] = (), captures: bool = True):
    """A typer command of `analysis`: its `inputs`, --rules when it classifies, --db, how captures are read (when
    it reads `captures`), its options (and `extra` ones) and --format; `body(given, run)` returns the result to
    print (given: the parsed values, the options under `options`; without a body, the pipeline's answer to them),
    and the run's warnings are printed."""
    body = body or (lambda given, run: _answer_given(given, run, analysis))
    options = (*analysis.options, *extra)
    rules = [_keyword("rules", Rules)] if analysis.uses_rules else []
    rules += [_keyword("families", Families)] if analysis.uses_rules or analysis.uses_families else []
    rules += [_keyword("findings_dir", FindingRules), _keyword("fail_on", FailOn)] if analysis.uses_findings else []
    parameters = [*inputs, *rules, _keyword("db", Db),
                  *(SOURCES if captures else ()), *(_option(option) for option in options),
                  _keyword("fmt", Fmt, Format.json)]

    def command(**given: Any) -> None:
        given["options"] = {o.name: given.pop(o.name) for o in options}
        _outputs_checked(given, analysis)
        sources = Sources(given.get("nsys"), given.get("cache_dir"), not given.get("no_cache"))
        run = runs.start_run(given["db"], given.get("rules"), sources, given.get("families"), given.get("findings_dir"))
        result = runs.guarded(run, lambda current: body(given, current))
        _warn_about(run)
        _print(result, given["fmt"], analysis, given.get("details", False))
        sys.stdout.flush()  # the answer is out before its store is written to the cache
        run.warnings.clear()
        runs.finish(run)
        _warn_about(run)
        if pipeline.gate_failed(result):  # compare --fail-above or --fail-on: CI stops here
            raise typer.Exit(1)

    command.__signature__ = inspect.Signature(parameters)
    command.__doc__ = analysis.help
    return command


def _request(analysis: registry.Analysis, given: dict[str, Any]) -> pipeline.Request:
    """What the command was given, as the pipeline's request: its inputs of the kind the analysis reads, options,
    windows, findings beside."""
    named = [given[key] for key in ("gpu_trace", "a", "b") if given.get(key)] + list(given.get("files") or ())
    captures = () if analysis.inputs == "ncu" else tuple(
        CaptureFiles(path, given.get("kern_exec"), given.get("nvtx_trace"), given.get("api_trace"),
                     tuple(given.get("ncu") or ())) for path in named)
    fail_on = given.get("fail_on")
    return pipeline.Request(
        captures, tuple(named) if analysis.inputs == "ncu" else (), given.get("abba"), given["options"],
        WindowChoice(given.get("nvtx"), given.get("time_range"), given.get("per_nvtx"), given.get("by_nvtx")),
        bool(given.get("with_findings") or given.get("findings_dir") or fail_on) and not analysis.uses_findings,
        fail_on and fail_on.value)


def _argument(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)


def _capture_command(analysis: registry.Analysis):
    """The command that answers `analysis` for one capture: its files, store, rules, windows, its own options."""
    inputs = [_argument("gpu_trace", GpuTrace), _keyword("kern_exec", KernExec), _keyword("api_trace", ApiTrace)]
    if analysis.windows:
        inputs += [_keyword("nvtx", Nvtx), _keyword("nvtx_trace", NvtxTrace), _keyword("time_range", TimeRange),
                   _keyword("per_nvtx", PerNvtx), _keyword("by_nvtx", ByNvtx), _keyword("details", Details, False)]
    if analysis.takes_ncu:
        inputs.append(_keyword("ncu", NcuFiles))
    if analysis is registry.CLASSIFY:  # its findings on request, from the same scopes; its report page
        inputs += [_keyword("with_findings", WithFindings, False), _keyword("findings_dir", FindingRulesOnly),
                   _keyword("fail_on", FailOn), _keyword("html", Html)]

    def body(given: dict[str, Any], run: runs.Run) -> Any:
        request = _request(analysis, given)
        page = given.get("html")
        # the page's answer first, the page written last: a failing command leaves no page
        shown = pipeline.answer(run, registry.REPORT, replace(request, with_findings=False, fail_on=None)) \
            if page else {}
        result = pipeline.answer(run, analysis, request)
        if page:
            written = _write_page(shown, page, "--html")
            run.warnings.append(f"wrote the report page {written['output']} ({written['bytes']:,} bytes)")
        return result

    return _command(analysis, inputs, body)


for _analysis in registry.CAPTURE_COMMANDS:
    app.command(name=_analysis.name)(_capture_command(_analysis))
rules_app.command("audit")(_capture_command(registry.AUDIT))


def _outputs_checked(given: dict[str, Any], analysis: registry.Analysis) -> None:
    """Refuse, before any store is made or input read, the file a command would write (-o, --html) where it names
    no file, lies in no folder or is one of the files given (the inputs, the --db store), --per-nvtx for a
    report page, and Dask workers for ranks in one --db store. The siblings found later are checked again as the
    file is written."""
    if analysis is registry.RANKS:
        ranks_job.placement_checked(given.get("db") is not None, given["options"])
    what = "timeline" if analysis is registry.TIMELINE else "report"
    given_files = [given.get(key) for key in ("gpu_trace", "kern_exec", "nvtx_trace", "api_trace", "db")]
    for flag, key in (("-o", "output"), ("--html", "html")):
        if isinstance(output := given.get(key), Path):
            report.output_checked(output, [str(f) for f in (*given_files, *(given.get("ncu") or ())) if f], what,
                                  flag)
            if what == "report" and given.get("per_nvtx"):
                raise InputError(pipeline.ONE_PAGE)


def _write_page(answer: dict[str, Any], output: Path, flag: str) -> dict[str, Any]:
    from nsight_ingest.report import capture_page

    return capture_page.write(answer, output, flag)


app.command(name="report")(_command(registry.REPORT, [
    _argument("gpu_trace", GpuTrace), _keyword("output", ReportOutput, inspect.Parameter.empty),
    _keyword("kern_exec", KernExec), _keyword("api_trace", ApiTrace), _keyword("nvtx", Nvtx),
    _keyword("nvtx_trace", NvtxTrace), _keyword("time_range", TimeRange), _keyword("by_nvtx", ByNvtx),
    _keyword("per_nvtx", PerNvtxRefused), _keyword("ncu", NcuFiles)],
    lambda given, run: _write_page(_answer_given(given, run, registry.REPORT), given["output"], "-o")))


Output = Annotated[Path, typer.Option("-o", "--output", help="the timeline file: Perfetto protobuf (.pftrace, opened "
                                                           "at ui.perfetto.dev), or Chrome JSON for a .json path")]


GroupsOnTimeline = Annotated[str | None, typer.Option("--by-nvtx", help="only the operations in the NVTX ranges whose "
                                                      "name fully matches this regex, each labelled with its group "
                                                      "(what its first (group) matched)")]


def _timeline(given: dict[str, Any], run: runs.Run) -> dict[str, Any]:
    from nsight_ingest.report import timeline

    written = timeline.write(_answer_given(given, run, registry.TIMELINE), given["output"],
                             given["options"]["max_events"])
    run.warnings.extend(written.pop("warnings"))
    return written


app.command(name="timeline")(_command(registry.TIMELINE, [
    _argument("gpu_trace", GpuTrace), _keyword("output", Output, inspect.Parameter.empty),
    _keyword("kern_exec", KernExec), _keyword("api_trace", ApiTrace), _keyword("nvtx", Nvtx),
    _keyword("nvtx_trace", NvtxTrace), _keyword("time_range", TimeRange), _keyword("by_nvtx", GroupsOnTimeline)],
    _timeline))


@app.command()
def ingest(
    gpu_traces: Annotated[list[str], typer.Argument(help="captures: .nsys-rep, nsys exports, or cuda_gpu_trace CSVs "
                                                          "(their siblings come too)")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store to load into (created if missing)")],
    nsys: Nsys = None,
    cache_dir: CacheDir = None,
) -> None:
    """Load captures into a persistent store without analysing them (`query` and the analyses read it later)."""
    run = runs.start_run(db, None, Sources(nsys, cache_dir))
    loaded = pipeline.ingest(run, gpu_traces)
    _warn_about(run)
    print(report.to_json(loaded))


app.command(name="ranks")(_command(registry.RANKS, [_argument("files", Annotated[list[str], typer.Argument(
    help="one capture per rank (.nsys-rep, nsys export or cuda_gpu_trace CSV), or one holding several GPUs")])]))

app.command(name="ncu")(_command(registry.NCU, [_argument("files", Annotated[list[str], typer.Argument(
    help="ncu --csv exports (--page raw or details, .csv or .csv.gz)")])], captures=False))

app.command(name="compare")(_command(registry.COMPARE, [
    _argument("a", Annotated[str | None, typer.Argument(help="cuda_gpu_trace of the 'before' capture")], None),
    _argument("b", Annotated[str | None, typer.Argument(help="cuda_gpu_trace of the 'after' capture")], None),
    _keyword("abba", Annotated[Path | None, typer.Option("--abba", help="per-update timings CSV: trial, variant, "
                                                                       "update, seconds (variants before/after)")]),
    _keyword("nvtx", Nvtx), _keyword("time_range", TimeRange), _keyword("by_nvtx", ByNvtx),
], extra=registry.ABBA.options))


Scheduler = StrEnum("Scheduler", {name: name for name in nightly.SCHEDULERS})
DEFAULT_SCHEDULER = Scheduler(nightly.SCHEDULERS[0])


@app.command()
def summarize(
    directory: Annotated[str, typer.Argument(help="folder searched for *_cuda_gpu_trace.csv[.gz] and siblings")],
    history: Annotated[Path, typer.Option("--history", help="Parquet history folder (created if missing)")],
    day: Annotated[str | None, typer.Option("--date", help="night of the run, YYYY-MM-DD (default: today, UTC)")]
    = None,
    rules: Rules = None,
    families: Families = None,
    finding_rules: FindingRules = None,
    scheduler: Annotated[Scheduler, typer.Option("--scheduler", help="local process pool or a Dask cluster")]
    = DEFAULT_SCHEDULER,
    dask_address: Annotated[str | None, typer.Option("--dask-address", help="HOST:PORT of the Dask scheduler")]
    = None,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="local processes (default: all cores)")]
    = None,
    baseline_runs: Annotated[int, typer.Option("--baseline-runs", min=1, help="compare with the last K runs")] = 7,
    mad_k: Annotated[float, typer.Option("--mad-k", min=0, help="allowed change in robust sigmas (1.4826 x MAD)")]
    = 3.0,
    min_change: Annotated[float, typer.Option("--min-change", min=0, help="... and at least this fraction of "
                                                                         "median")] = 0.05,
    min_baseline: Annotated[int, typer.Option("--min-baseline", min=1, help="runs needed before judging")] = 3,
    direction: Annotated[list[str] | None, typer.Option("--direction", help="METRIC=up|down|none: which way is "
                                                                          "worse; repeatable")] = None,
    report_dir: Annotated[Path | None, typer.Option("--report-dir", help="where the .md/.html reports go "
                                                                        "(default: HISTORY/reports)")] = None,
    lock_timeout: Annotated[float, typer.Option("--lock-timeout", min=0, help="seconds to wait for the history "
                                                                             "lock")] = LOCK_TIMEOUT_S,
    allow_empty: Annotated[bool, typer.Option("--allow-empty", help="a night without captures is no error")] = False,
) -> None:
    """Nightly job: summarize new traces into a Parquet history, check regressions, write reports.

    Exit code 1 when a metric regressed, 2 when a trace failed or a capture of the night
    before went missing (and nothing regressed) or none was found."""
    night = nightly.parse_night(day)
    baseline = nightly.with_directions(Baseline(baseline_runs, mad_k, min_change, min_baseline), direction or [])
    runner = nightly.runner(scheduler.value, dask_address, workers)
    folders = nightly.RuleFolders(*(str(folder) if folder else None for folder in (rules, families, finding_rules)))
    outcome = nightly.job(directory, history, night, folders, runner, baseline, report_dir,
                          lambda total: progress_bar(total, "summarizing"), lock_timeout, allow_empty)
    print(report.to_json(outcome.summary))
    for failure in outcome.failed:
        _warn(f"failed: {failure}")
    for damaged in outcome.summary["damaged_history_files"]:
        _warn(f"{damaged}: cannot be read as history (cut short, overwritten or another schema): left out")
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL to run against the store")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store written by --db of another command")],
    fmt: Annotated[QueryFormat, typer.Option("--format", help="output format")] = QueryFormat.table,
) -> None:
    """Run your own SQL on a persisted store (read-only)."""
    columns, rows = store.query(db, sql)
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if fmt is QueryFormat.json and repeated:  # a JSON object would keep one of them
        raise InputError(f"query: column name(s) {', '.join(repeated)} appear twice; name them apart (AS ...)")
    if fmt is QueryFormat.table:
        tables.print_rows(columns, rows)
    elif fmt is QueryFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        print(report.to_json([dict(zip(columns, row, strict=True)) for row in rows]))


def _terminate(signum: int, frame: Any) -> None:
    """A termination request (SIGTERM) unwinds as an exit: files half written are removed on the way out."""
    raise SystemExit(128 + signum)


def main() -> None:
    """Console entry point: one-line errors with exit code 2 for bad input, never a traceback."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        settings.checked()  # a bad environment value is the command's bad input, before any work
        code = app(standalone_mode=False)
    except UsageError as exc:
        if isinstance(exc, NoArgsIsHelpError):  # a group given no arguments: its help
            # typer's rich help printed itself when the error was made (its text is ""); plain help is the text
            print(exc) if str(exc) else None
        else:
            where = f"{exc.ctx.command_path}: " if exc.ctx is not None else ""
            _warn(f"error: {where}{first_line(exc)} (see --help)")
        sys.exit(2)
    except InputError as exc:
        _warn(f"error: {exc}")
        sys.exit(2)
    except duckdb.OutOfMemoryException as exc:
        _warn(f"error: {first_line(exc)} (DuckDB's limit is {store.MEMORY_LIMIT}: raise NSIGHT_INGEST_MEMORY_LIMIT)")
        sys.exit(2)
    except KeyboardInterrupt:
        _warn("interrupted")
        sys.exit(130)
    except (OSError, duckdb.IOException) as exc:  # the environment, not the code: a file, a disk, a permission
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else first_line(exc)
        _warn(f"error: {where}{reason}")
        sys.exit(2)
    except Exception as exc:
        if isinstance(exc, RuntimeError) and first_line(exc) == "Query interrupted":  # DuckDB's word for Ctrl-C
            _warn("interrupted")
            sys.exit(130)
        if os.environ.get("NSIGHT_INGEST_DEBUG"):
            raise
        _warn(f"internal error: {type(exc).__name__}: {first_line(exc)} (set NSIGHT_INGEST_DEBUG=1 for a traceback)")
        sys.exit(3)
    sys.exit(code or 0)
