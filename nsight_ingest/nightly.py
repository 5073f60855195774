"""The nightly job: find the night's captures, summarize each (in parallel) into the Parquet history, check the
night against its rolling baseline and write the reports.

Per-capture work is a pure function of (capture files, rule set) -> rows, so a process pool and a Dask cluster
give identical histories. The parent alone writes the history (see nsight_ingest.history), so a crash leaves only
whole files and the next run completes the rest.
"""

from __future__ import annotations

import math
import os
import re
import uuid
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from nsight_ingest import cluster, history, pipeline, runs, store
from nsight_ingest.errors import InputError
from nsight_ingest.finding_rules import load_finding_set
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.readers.forms import form_of
from nsight_ingest.readers.source import file_hashes, sibling
from nsight_ingest.rules import RuleSet, load_family_set, load_rule_set

GPU_TRACE = re.compile(r"^(?P<capture>.+)_cuda_gpu_trace\.csv(?:\.gz)?$")
EXPORT_DIRECTORY = re.compile(r"^(?P<capture>.+?)(?:_pq|_parquet|_arrow|\.parquetdir|\.arrowdir)?$")
REPORT = re.compile(r"^(?P<capture>.+)\.(?:nsys-rep|qdrep)$")
SQLITE = re.compile(r"^(?P<capture>.+)\.sqlite$")
# When one capture is there in several forms (same folder and name), the one read: exports first (they hold every
# report; Parquet is the fastest to read), then the CSV set, then the report itself (it needs nsys to convert).
FORM_PREFERENCE = ("parquetdir", "sqlite", "arrowdir", "csv", "nsys-rep")
LOCK_TIMEOUT_S = 60.0  # how long a run waits for another run's history lock


@dataclass(frozen=True)
class NamedCapture:
    """A capture found by the job: its name (the files' common prefix) and its files."""

    name: str
    files: CaptureFiles


def _candidate(path: Path) -> tuple[str, str] | None:
    """(capture name, form) of a path that is a capture's main input, else None."""
    if path.is_dir():
        try:
            form = form_of(path)
        except InputError:
            return None
        return EXPORT_DIRECTORY.match(path.name)["capture"], form
    for pattern, form in ((GPU_TRACE, "csv"), (SQLITE, "sqlite"), (REPORT, "nsys-rep")):
        if match := pattern.match(path.name):
            return match["capture"], form
    return None


def _files(path: Path, name: str, form: str) -> CaptureFiles:
    if form != "csv":
        return CaptureFiles(str(path))
    ncu = tuple(str(p) for p in sorted(path.parent.glob(f"{name}_ncu*.csv*")))
    return CaptureFiles(str(path), sibling(str(path), "cuda_kern_exec_trace"), sibling(str(path), "nvtx_pushpop_trace"),
                        sibling(str(path), "cuda_api_trace"), ncu)


def discover(directory: str | Path) -> list[NamedCapture]:
    """Every capture under `directory`, once: an export, a `*_cuda_gpu_trace.csv[.gz]` with its siblings, or an
    .nsys-rep (FORM_PREFERENCE picks among the forms of one capture). Hidden folders (the caches among them) and
    export directories are not searched."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{directory}: not a directory")
    best: dict[tuple[Path, str], tuple[int, Path, str]] = {}
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        for entry in [*subfolders, *names]:
            found = _candidate(here / entry)
            if found:
                rank = FORM_PREFERENCE.index(found[1])
                key = (here, found[0])
                if key not in best or rank < best[key][0]:
                    best[key] = (rank, here / entry, found[1])
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and _candidate(here / d) is None)
    return [NamedCapture(name, _files(path, name, form))
            for (_, name), (_, path, form) in sorted(best.items(), key=lambda item: str(item[1][1]))]


def _unreadable(files: CaptureFiles) -> str | None:
    """Why a capture's files cannot be read (a pipe would block the run, a link to nothing names nothing), or
    None."""
    for name in (files.gpu_trace, files.kern_exec, files.nvtx_trace, files.api_trace, *files.ncu):
        if name is not None and not (Path(name).is_file() or Path(name).is_dir()):
            return f"{name}: not a file or folder (a pipe, a device or a link to nothing)"
    return None


@dataclass(frozen=True)
class RuleFolders:
    """The component and family rule folders a night classifies with, and its finding rules (None: the bundled
    ones); plain strings, so that workers of another process or machine receive them."""

    rules: str | None = None
    families: str | None = None
    findings: str | None = None

    def load(self) -> tuple[RuleSet, RuleSet, RuleSet]:
        """The component, family and finding rule sets."""
        return load_rule_set(self.rules), load_family_set(self.families), load_finding_set(self.findings)

    def versions(self) -> history.RuleVersions:
        """The versions of the three rule sets."""
        rule_set, family_set, finding_set = self.load()
        return history.RuleVersions(rule_set.version, family_set.version, finding_set.version)


def capture_rows(capture: NamedCapture, folders: RuleFolders) -> dict[str, Any]:
    """Summarize one capture: its gpu-trace sha256 and its history rows."""
    run = runs.Run(store.connect(), *folders.load())
    answered = pipeline.classify_and_launches(run, capture.files, history.TOP_KERNELS, with_findings=True)
    return {"trace_sha256": answered.capture.gpu_trace.sha256, "rule_set_version": run.rule_set.version,
            "family_set_version": run.family_set.version, "finding_set_version": run.finding_set.version,
            "rows": history.metric_rows(answered.summary, answered.launches, answered.findings)}


def new_run_id() -> str:
    """A sortable, unique id for one run of the job."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]


Runner = Callable[[Callable[..., dict[str, Any]], list[NamedCapture], RuleFolders],
                  Iterable[tuple[NamedCapture, Any]]]


def local_runner(workers: int | None) -> Runner:
    """Run the per-capture work in a process pool (all cores by default); yields (capture, result or exception)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    def run(work, traces, folders):
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            futures = {pool.submit(work, trace, folders): trace for trace in traces}
            for future in as_completed(futures):
                error = future.exception()
                yield futures[future], error if error else future.result()

    return run


SCHEDULERS = ("local", "dask")  # a process pool here, or a Dask cluster


def runner(scheduler: str, dask_address: str | None, workers: int | None) -> Runner:
    """The runner a scheduler names: `local` (a process pool of `workers`) or `dask` (the cluster at
    `dask_address`)."""
    if scheduler == "dask":
        if not dask_address:
            raise InputError("--scheduler dask needs --dask-address HOST:PORT")
        return dask_runner(dask_address)
    return local_runner(workers)


def dask_runner(address: str) -> Runner:
    """Run the per-capture work on an existing Dask cluster."""
    from distributed import as_completed

    def run(work, traces, folders):
        with cluster.client(address) as client:
            futures = {client.submit(work, trace, folders, pure=False): trace for trace in traces}
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
    versions: history.RuleVersions
    found: int = 0
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    failed_captures: set[str] = field(default_factory=set)  # their names: failed, not missing
    damaged_history: list[str] = field(default_factory=list)


Progress = Callable[[int], AbstractContextManager[Callable[[str], None]]]


def _no_progress(_total: int) -> AbstractContextManager[Callable[[str], None]]:
    return nullcontext(lambda _item: None)


def summarize(directory: str | Path, history_dir: Path, day: date, folders: RuleFolders, runner: Runner,
              progress: Progress = _no_progress, lock_timeout: float = LOCK_TIMEOUT_S,
              allow_empty: bool = False) -> RunResult:
    """Summarize every capture of `directory` the history lacks for this night into it (holding its lock), capture
    by capture; `progress(total)` gives the callback told of each capture done. A night without captures is refused
    unless `allow_empty`."""
    from filelock import FileLock, Timeout

    if not math.isfinite(lock_timeout):
        raise InputError(f"--lock-timeout {lock_timeout}: not a number of seconds")
    versions = folders.versions()
    if history_dir.exists() and not history_dir.is_dir():
        raise InputError(f"{history_dir}: --history names a file; it must be a folder")
    history_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(history_dir / ".lock")
    try:
        lock.acquire(timeout=lock_timeout)
    except Timeout:
        raise InputError(f"{history_dir}: another summarize run holds the history lock (waited {lock_timeout:g} s)")\
            from None
    try:
        captures = discover(directory)
        if not captures and not allow_empty:
            raise InputError(f"{directory}: no captures found (a broken capture pipeline?); --allow-empty accepts "
                             f"an empty night")
        done = history.summarized(history_dir, versions, day)
        result = RunResult(new_run_id(), day, versions, len(captures),
                           damaged_history=history.files(history_dir)[1])
        todo = []
        for capture in captures:
            problem = _unreadable(capture.files)
            if problem:
                result.failed.append(problem)
                result.failed_captures.add(capture.name)
            elif file_hashes(Path(capture.files.gpu_trace))[0] in done:  # rerunning a night adds nothing
                result.skipped.append(capture.files.gpu_trace)
            else:
                todo.append(capture)
        with progress(len(todo)) as advance:
            for capture, outcome in runner(capture_rows, todo, folders):
                if isinstance(outcome, Exception):
                    message = str(outcome)  # an input error names its file already
                    result.failed.append(message if message.startswith(capture.files.gpu_trace) else
                                         f"{capture.files.gpu_trace}: {message}")
                    result.failed_captures.add(capture.name)
                else:
                    history.write_rows(history_dir, day, result.run_id, capture.name, outcome)
                    result.written.append(capture.files.gpu_trace)
                advance(capture.files.gpu_trace)
        return result
    finally:
        lock.release()


def parse_night(text: str | None) -> date:
    """A YYYY-MM-DD night, today (UTC) when None."""
    try:
        return date.fromisoformat(text) if text else datetime.now(UTC).date()
    except ValueError:
        raise InputError(f"--date {text!r}: expected YYYY-MM-DD") from None


def with_directions(baseline: history.Baseline, items: list[str]) -> history.Baseline:
    """The baseline with `METRIC=up|down|none` items applied (none: the metric is not judged)."""
    directions = dict(baseline.directions)
    for item in items:
        metric, _, way = item.partition("=")
        if way not in ("up", "down", "none") or metric not in history.METRICS:
            raise InputError(f"--direction {item!r}: expected METRIC=up|down|none, METRIC one of "
                             f"{', '.join(history.METRICS)}")
        directions.pop(metric, None) if way == "none" else directions.update({metric: way})
    return replace(baseline, directions=directions)


@dataclass(frozen=True)
class Outcome:
    """What the job did and found: the printed summary, the regressions, the failures and the exit code."""

    summary: dict[str, Any]
    failed: list[str]
    exit_code: int  # 1: a metric regressed; 2: a capture failed or went missing (and nothing regressed); 0: neither


def job(directory: str | Path, history_dir: Path, day: date, folders: RuleFolders, runner: Runner,
        baseline: history.Baseline, report_dir: Path | None, progress: Progress = _no_progress,
        lock_timeout: float = LOCK_TIMEOUT_S, allow_empty: bool = False) -> Outcome:
    """The whole nightly job: summarize, check the night against its baseline, write the markdown, HTML and JSON
    reports and the index of every night (default folder HISTORY/reports), each whole or not at all."""
    from nsight_ingest.report import nightly_page, to_json, write_whole

    result = summarize(directory, history_dir, day, folders, runner, progress, lock_timeout, allow_empty)
    night = history.night(history_dir, day, result.versions, baseline)
    folder = report_dir or history_dir / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"run_id": result.run_id, "date": day.isoformat(), "rule_set_version": result.versions.rule_set,
               "family_set_version": result.versions.family_set, "finding_set_version": result.versions.finding_set,
               "traces_found": result.found, "written": result.written, "skipped": result.skipped,
               "failed": result.failed, "damaged_history_files": result.damaged_history}
    regressed = [c for c in night.checks if c["regressed"]]
    reports = {kind: folder / f"{day.isoformat()}.{kind}" for kind in ("md", "html", "json")}
    summary["captures_checked"] = len({c["capture"] for c in night.checks})
    summary["missing_captures"] = [m for m in night.missing if m["capture"] not in result.failed_captures]
    printed = {**summary, "checked_metrics": len(night.checks), "regressions": regressed,
               "reports": {"markdown": str(reports["md"]), "html": str(reports["html"]), "json": str(reports["json"]),
                           "index": str(folder / "index.html")}}
    write_whole(reports["md"], nightly_page.nightly_markdown(summary, night, baseline))
    write_whole(reports["html"], nightly_page.nightly_html(summary, night, baseline))
    write_whole(reports["json"], to_json(printed))
    write_whole(folder / "index.html", nightly_page.index_html(folder))
    return Outcome(printed, result.failed, 1 if regressed else 2 if result.failed or summary["missing_captures"] else 0)
