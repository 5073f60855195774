"""The Python API, for notebooks and scripts: open a capture and ask it what the commands ask.

    import nsight_ingest
    capture = nsight_ingest.open("run.sqlite")
    where = capture.classify(top=5)
    where.to_dict()["kernel_time_ns"]          # exactly the JSON `nsight-ingest classify` prints
    where.frames()["components"]               # its tables as pandas DataFrames
    where.warnings                             # what the command prints on stderr

Each question is answered as its command answers it, from the same pipeline: the capture's inputs are read into
the cached store of their bytes (so a second question does not read them again), or into a temporary store with
`cache=False`, or into the store file `db`. Bad input raises nsight_ingest.errors.InputError with the line the
command would print; an option the analysis does not take raises TypeError.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from nsight_ingest import pipeline, registry, report, runs, store
from nsight_ingest.errors import InputError
from nsight_ingest.finding_rules import SEVERITIES
from nsight_ingest.readers.capture import CaptureFiles, Sources
from nsight_ingest.windows import WindowChoice

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

PathLike = str | Path
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Answer:
    """One analysis' answer: its JSON text as the command prints it, and the warnings the command prints on
    stderr."""

    analysis: str
    json_text: str
    warnings: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = self.to_dict()
        keys = f"{len(shown)} keys" if isinstance(shown, dict) else type(shown).__name__
        return f"<Answer {self.analysis}: {keys}, {len(self.warnings)} warning(s); to_dict(), frames()>"

    def to_dict(self) -> Any:
        """The answer exactly as the command's JSON (NaN and infinities as None, dates as ISO text)."""
        return json.loads(self.json_text)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Each table of the answer as a DataFrame, by its path of keys ('top_kernels', 'components',
        'devices.NVIDIA H200 (0).top_kernels'): a list of objects is a table of a row each; an object whose values
        are all objects is a table of a row per key (its index: components by name). A list or object inside a row
        stays a Python value there."""
        return _tables(self.to_dict())


def _tables(value: Any, path: str = "") -> dict[str, pd.DataFrame]:
    """The tables of an answer (Answer.frames). The tables inside the items of a list of window answers
    (--per-nvtx) or of an object of objects (groups, devices, components) are also one table each, indexed by the
    item's label (its window, its key) and then by the table's own index."""
    import pandas as pd

    found: dict[str, pd.DataFrame] = {}
    items: list[tuple[Any, Any]] = []
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        found[path] = pd.DataFrame(value)
        if all("window" in row for row in value):
            items = [(row["window"], {k: v for k, v in row.items() if k != "window"}) for row in value]
    elif isinstance(value, dict):
        if value and all(isinstance(row, dict) for row in value.values()):
            found[path] = pd.DataFrame.from_dict(value, orient="index")
            items = list(value.items())
        for key, item in value.items():
            found.update(_tables(item, f"{path}.{key}" if path else str(key)))
    inner: dict[str, dict[Any, pd.DataFrame]] = {}
    for label, item in items:
        for name, table in _tables(item).items():
            inner.setdefault(name, {})[label] = table
    level = path.rsplit(".", 1)[-1] or "key"
    for name, tables in inner.items():
        if len(tables) == len(items) > 1:  # a table every item has
            combined = pd.concat(tables)
            found[f"{path}.{name}"] = combined.set_axis(combined.index.set_names(level, level=0))
    return found


@dataclass(frozen=True)
class Reading:
    """How a question reads its inputs and classifies: the rule folders (None: the bundled ones), the store, the
    cache and the nsys that converts an .nsys-rep."""

    rules: PathLike | None = None
    families: PathLike | None = None
    findings: PathLike | None = None
    db: PathLike | None = None
    cache: bool = True
    cache_dir: PathLike | None = None
    nsys: str | None = None

    def sources(self) -> Sources:
        """How the pipeline reads the inputs."""
        return Sources(self.nsys, Path(self.cache_dir) if self.cache_dir is not None else None, self.cache)

    def ask(self, analysis: registry.Analysis, request: pipeline.Request,
            written: Callable[[dict[str, Any], runs.Run], dict[str, Any]] | None = None) -> Answer:
        """The pipeline's answer to the request on a run of its own, as the command runs it (then `written`, the
        file it writes and what it says of it): a damaged cached store read again, the new store kept in the
        cache, the store closed; the answer with the warnings."""
        run = runs.start_run(self.db, self.rules, self.sources(), self.families, self.findings)

        def compute(current: runs.Run) -> dict[str, Any]:
            found = pipeline.answer(current, analysis, request)
            return written(found, current) if written else found

        try:
            text = report.to_json(runs.guarded(run, compute))
        except BaseException:
            runs.abandon(run)  # in a long-lived process a cached store's lock must not outlive the question
            raise
        warnings = list(run.warnings)
        run.warnings.clear()
        runs.finish(run)  # a new cached store kept, then closed
        if run.cached is None and run.con is not None:
            run.con.close()
        return Answer(analysis.name, text, tuple(dict.fromkeys([*warnings, *run.warnings])))


WINDOWS = ("nvtx", "time_range", "per_nvtx", "by_nvtx")  # the window keywords (the CLI's --range is time_range)
ONE_WINDOW = ("nvtx", "time_range", "by_nvtx")  # those of an answer that is one page or one comparison

# The keyword of each command-line flag a message may name: the analyses' options, then the flags every capture
# command has (a flag with no keyword here, --abba, stays as it is).
KEYWORDS = {option.flag: option.name for analysis in registry.ALL for option in analysis.options} | {
    "--nvtx": "nvtx", "--range": "time_range", "--per-nvtx": "per_nvtx", "--by-nvtx": "by_nvtx",
    "--kern-exec": "kern_exec", "--api-trace": "api_trace", "--nvtx-trace": "nvtx_trace", "--ncu": "ncu",
    "--rules": "rules", "--families": "families", "--findings-dir": "findings", "--findings": "findings",
    "--fail-on": "fail_on", "--db": "db", "--cache-dir": "cache_dir", "--no-cache": "cache=False", "--nsys": "nsys",
    "--output": "output", "-o": "output"}
# a flag, and the space before a value given after it ('abc', FOLDER, 1200:): `--range 'abc'` reads
# `time_range='abc'`
_FLAG = re.compile(r"(?<![\w-])(?P<flag>--[a-z][a-z-]*|-o)(?![\w-])(?P<valued> (?=['\"A-Z0-9]))?")


def keywords_named(message: str) -> str:
    """A message of the pipeline, which names the command's flags, naming the API's keywords instead."""
    def keyword(found: re.Match) -> str:
        name = KEYWORDS.get(found["flag"])
        if name is None:
            return found.group()
        return f"{name}=" if found["valued"] and "=" not in name else name

    return _FLAG.sub(keyword, message)


def _keywords_in_errors(method: Callable[P, R]) -> Callable[P, R]:
    """`method`, its errors (of the same type) and warnings naming keywords where the command's name flags."""
    @functools.wraps(method)
    def named(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            found = method(*args, **kwargs)
        except InputError as exc:
            exc.args = (keywords_named(str(exc)),)
            raise
        if isinstance(found, Answer):
            return replace(found, warnings=tuple(keywords_named(w) for w in found.warnings))
        return found

    return named


def _options(analysis: registry.Analysis, given: dict[str, Any], keywords: tuple[str, ...] = ()) -> dict[str, Any]:
    """The analysis' options: its defaults, replaced by those given. One it does not take, or a value of the wrong
    type, is a TypeError (naming the method's other keywords too); a value out of range an InputError, as the
    command refuses it."""
    known = {option.name: option for option in analysis.options}
    for name in given:
        if name not in known:
            taken = [*known, *keywords]
            close = difflib.get_close_matches(name, taken, n=1)
            raise TypeError(f"{analysis.name} takes no keyword {name!r}" + (f" (did you mean {close[0]!r}?)" if close
                                                                             else "")
                            + f"; it takes {', '.join(taken) or 'none'}")
    for name, value in given.items():
        option = known[name]
        wanted = _wanted_type(option)
        if not (value is None and (option.default is None or option.kind is not None)) and not _is(value, wanted):
            raise TypeError(f"{name}={value!r}: give {' or '.join(t.__name__ for t in wanted)}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if option.minimum is not None and value < option.minimum:
                raise InputError(f"{name}={value}: at least {option.minimum:g}")
            if option.maximum is not None and value > option.maximum:
                raise InputError(f"{name}={value}: at most {option.maximum:g}")
    return {**analysis.defaults(), **given}


def _wanted_type(option: registry.Option) -> tuple[type, ...]:
    """The Python types an option takes (a float takes an int too)."""
    kind = option.kind if option.kind is not None else type(option.default)
    kinds = tuple(typing.get_origin(k) or k for k in (typing.get_args(kind) or (kind,)) if k is not type(None))
    return (*kinds, int) if float in kinds else kinds


def _is(value: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # a bool is an int to Python, not to an option
        return bool in kinds
    return isinstance(value, kinds)


def _paths(files: Sequence[PathLike], what: str) -> list[str]:
    """A list of paths given as one: refused when it is a single path (a str is a sequence of characters) or none."""
    if isinstance(files, str | Path):
        raise TypeError(f"{what} takes a list of paths, not one path: [{str(files)!r}]")
    paths = [_text(path) for path in files]
    if not paths:
        raise InputError(f"{what}: no files given")
    return paths


@dataclass(frozen=True)
class Capture:
    """One capture (a cuda_gpu_trace CSV with its siblings, an nsys export, or an .nsys-rep) and how it is read.
    Each method answers one command; windows (`nvtx`, `time_range` as 'START_NS:END_NS', `per_nvtx`, `by_nvtx`)
    and the analysis' own options are keyword arguments, named as the command's flags are (`--top` is `top`)."""

    files: CaptureFiles
    reading: Reading = field(default_factory=Reading)

    def _analysed(self, analysis: registry.Analysis, windows: dict[str, str | None], options: dict[str, Any],
                  with_findings: bool = False, fail_on: str | None = None, extra: tuple[str, ...] = ()) -> Answer:
        chosen = _options(analysis, options, (*WINDOWS, *extra))
        return self.reading.ask(analysis, pipeline.Request((self.files,), options=chosen,
                                                           choice=WindowChoice(**windows),
                                                           with_findings=with_findings, fail_on=fail_on))

    @_keywords_in_errors
    def classify(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
                 by_nvtx: str | None = None, with_findings: bool = False, **options: Any) -> Answer:
        """Where the kernel time goes (`nsight-ingest classify`); `with_findings` adds the findings."""
        return self._analysed(registry.CLASSIFY, _windows(nvtx, time_range, per_nvtx, by_nvtx), options,
                              with_findings, extra=("with_findings",))

    @_keywords_in_errors
    def launches(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
                 by_nvtx: str | None = None, **options: Any) -> Answer:
        """Why the GPU waits: gaps, launch calls, queueing (`nsight-ingest launches`)."""
        return self._analysed(registry.LAUNCHES, _windows(nvtx, time_range, per_nvtx, by_nvtx), options)

    @_keywords_in_errors
    def queue_delay(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
                    by_nvtx: str | None = None) -> Answer:
        """How long launched kernels waited in the launch queue (`nsight-ingest queue-delay`)."""
        return self._analysed(registry.QUEUE_DELAY, _windows(nvtx, time_range, per_nvtx, by_nvtx), {})

    @_keywords_in_errors
    def findings(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
                 by_nvtx: str | None = None, fail_on: str | None = None, **options: Any) -> Answer:
        """What to fix first (`nsight-ingest findings`); `fail_on` a severity gives the answer its gate."""
        if fail_on is not None and fail_on not in SEVERITIES:
            raise InputError(f"fail_on={fail_on!r}: one of {', '.join(SEVERITIES)}")
        return self._analysed(registry.FINDINGS, _windows(nvtx, time_range, per_nvtx, by_nvtx), options,
                              fail_on=fail_on, extra=("fail_on",))

    @_keywords_in_errors
    def critical_path(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
                      by_nvtx: str | None = None, **options: Any) -> Answer:
        """The chain of waits that ends at the GPU span's end, and what it is made of (`nsight-ingest
        critical-path`)."""
        return self._analysed(registry.CRITICAL_PATH, _windows(nvtx, time_range, per_nvtx, by_nvtx), options)

    @_keywords_in_errors
    def whatif(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
               by_nvtx: str | None = None, **options: Any) -> Answer:
        """Replay the dependency graph with edits: launch_latency="2us", kernel_speedup=["family=gemm:1.5"],
        remove_kernels, remove_syncs (lists of regexes), overlap_communication=True (`nsight-ingest whatif`)."""
        return self._analysed(registry.WHATIF, _windows(nvtx, time_range, per_nvtx, by_nvtx), options)

    @_keywords_in_errors
    def audit(self, *, nvtx: str | None = None, time_range: str | None = None, per_nvtx: str | None = None,
              by_nvtx: str | None = None, **options: Any) -> Answer:
        """How the rule set fits the capture (`nsight-ingest rules audit`)."""
        return self._analysed(registry.AUDIT, _windows(nvtx, time_range, per_nvtx, by_nvtx), options)

    @_keywords_in_errors
    def report(self, output: PathLike, *, nvtx: str | None = None, time_range: str | None = None,
               by_nvtx: str | None = None, **options: Any) -> Answer:
        """Write the capture's HTML page to `output` (`nsight-ingest report`); the answer says what it holds."""
        from nsight_ingest.report import capture_page

        chosen, path = _options(registry.REPORT, options, ("output", *ONE_WINDOW)), Path(output)
        report.output_checked(path, self._protected(), "report", "output")
        request = pipeline.Request((self.files,), options=chosen,
                                   choice=WindowChoice(**_windows(nvtx, time_range, None, by_nvtx)))
        return self.reading.ask(registry.REPORT, request, lambda found, run: capture_page.write(found, path, "output"))

    @_keywords_in_errors
    def timeline(self, output: PathLike, *, nvtx: str | None = None, time_range: str | None = None,
                 by_nvtx: str | None = None, **options: Any) -> Answer:
        """Write the capture's Perfetto timeline to `output` (`nsight-ingest timeline`; a `.json` path: Chrome
        JSON); the answer says what it holds."""
        from nsight_ingest.report import timeline

        chosen, path = _options(registry.TIMELINE, options, ("output", *ONE_WINDOW)), Path(output)
        report.output_checked(path, self._protected(), "timeline", "output")
        request = pipeline.Request((self.files,), options=chosen,
                                   choice=WindowChoice(**_windows(nvtx, time_range, None, by_nvtx)))

        def written(found: dict[str, Any], run: runs.Run) -> dict[str, Any]:
            wrote = timeline.write(found, path, chosen["max_events"])
            run.warnings.extend(wrote.pop("warnings"))
            return wrote

        return self.reading.ask(registry.TIMELINE, request, written)

    @_keywords_in_errors
    def connect(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection to a store holding the capture (sql/schema.sql documents its tables), for SQL of
        your own: the store `db`, else a temporary store with every column, which goes when the connection
        does."""
        run = runs.start_run(self.reading.db, self.reading.rules, self.reading.sources())
        run.con = run.con or store.connect(details=True)  # not the cached store: the connection is the caller's
        runs.open_capture(run, self.files)
        return run.con

    def _protected(self) -> list[str]:
        """The files an output must not replace: the inputs given and the store."""
        return [*self.files.given(), *([str(self.reading.db)] if self.reading.db is not None else [])]


def _windows(nvtx: str | None, time_range: str | None, per_nvtx: str | None, by_nvtx: str | None
             ) -> dict[str, str | None]:
    chosen = {"nvtx": nvtx, "time_range": time_range, "per_nvtx": per_nvtx, "by_nvtx": by_nvtx}
    for name, value in chosen.items():
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name}={value!r}: give text (" + ("'START_NS:END_NS', e.g. '1000:2000'"
                                                                if name == "time_range" else "an NVTX name or regex")
                            + ")")
    return chosen


@_keywords_in_errors
def open(gpu_trace: PathLike, *, kern_exec: PathLike | None = None, api_trace: PathLike | None = None,
         nvtx_trace: PathLike | None = None, ncu: Sequence[PathLike] = (), rules: PathLike | None = None,
         families: PathLike | None = None, findings: PathLike | None = None, db: PathLike | None = None,
         cache: bool = True, cache_dir: PathLike | None = None, nsys: str | None = None) -> Capture:
    """A capture to ask questions of: `gpu_trace` is an .nsys-rep, an nsys export (.sqlite, parquetdir or arrowdir
    folder) or a cuda_gpu_trace CSV (.csv or .csv.gz), its siblings found by name unless given; `ncu`, Nsight
    Compute exports of the same workload. Nothing is read until a question is asked."""
    files = CaptureFiles(_text(gpu_trace), _text(kern_exec), _text(nvtx_trace), _text(api_trace),
                         tuple(_paths(ncu, "ncu")) if ncu else ())
    return Capture(files, Reading(rules, families, findings, db, cache, cache_dir, nsys))


@_keywords_in_errors
def ranks(files: Sequence[PathLike], *, families: PathLike | None = None, db: PathLike | None = None,
          cache: bool = True, cache_dir: PathLike | None = None, nsys: str | None = None, **options: Any) -> Answer:
    """Several ranks, one capture each, or one capture of several GPUs (`nsight-ingest ranks`); `workers` spreads
    them over a local Dask cluster, `dask_address` over a running one."""
    from nsight_ingest import ranks_job

    captures = tuple(CaptureFiles(path) for path in _paths(files, "ranks"))
    chosen = _options(registry.RANKS, options, ("families", "db", "cache", "cache_dir", "nsys"))
    ranks_job.placement_checked(db is not None, chosen)
    reading = Reading(families=families, db=db, cache=cache, cache_dir=cache_dir, nsys=nsys)
    return reading.ask(registry.RANKS, pipeline.Request(captures, options=chosen))


@_keywords_in_errors
def compare(before: Capture | PathLike, after: Capture | PathLike, *, nvtx: str | None = None,
            time_range: str | None = None, by_nvtx: str | None = None, **options: Any) -> Answer:
    """The deltas from capture `before` to capture `after` (`nsight-ingest compare A B`; a path is opened with the
    defaults), both read as `after` says (its rules, store and cache)."""
    before, after = (side if isinstance(side, Capture) else open(side) for side in (before, after))
    chosen = _options(registry.COMPARE, options, ONE_WINDOW)
    choice = WindowChoice(**_windows(nvtx, time_range, None, by_nvtx))
    return after.reading.ask(registry.COMPARE, pipeline.Request((before.files, after.files), options=chosen,
                                                                choice=choice))


@_keywords_in_errors
def ncu(files: Sequence[PathLike], *, rules: PathLike | None = None, db: PathLike | None = None,
        **options: Any) -> Answer:
    """Nsight Compute exports (raw or details pages), each profiled kernel with its verdict (`nsight-ingest
    ncu`)."""
    paths = _paths(files, "ncu")
    chosen = _options(registry.NCU, options, ("rules", "db"))
    reading = Reading(rules=rules, db=db, cache=False)
    return reading.ask(registry.NCU, pipeline.Request(ncu_files=tuple(paths), options=chosen))


def _text(path: PathLike | None) -> str | None:
    return None if path is None else str(Path(path).expanduser())
