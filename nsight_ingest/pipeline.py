"""The one front door: open a capture from its files, pick the windows asked for, and answer a registered analysis
for each, from the store's cache when it was asked before."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb

from nsight_ingest import cache, store, store_cache, windows
from nsight_ingest.analysis import findings, idle, integrity
from nsight_ingest.analysis.compare import check_gate
from nsight_ingest.errors import EmptyScope, InputError
from nsight_ingest.finding_rules import load_finding_set
from nsight_ingest.readers import forms
from nsight_ingest.readers.forms import Input, as_input
from nsight_ingest.readers.source import sibling
from nsight_ingest.registry import (
    ABBA,
    CLASSIFY,
    COMPARE,
    FINDINGS,
    LAUNCHES,
    NCU,
    REPORT,
    TIMELINE,
    Analysis,
)
from nsight_ingest.rules import RuleSet, load_family_set, load_rule_set
from nsight_ingest.sqlmodules import ModuleError, Scope, order


@dataclass(frozen=True)
class CaptureFiles:
    """The inputs of one capture as the user named them: a cuda_gpu_trace CSV or an nsys export or report (which
    holds every report), and the optional exports beside it (found by name when not given)."""

    gpu_trace: str
    kern_exec: str | None = None
    nvtx_trace: str | None = None
    api_trace: str | None = None
    ncu: tuple[str, ...] = ()

    def given(self) -> list[str]:
        """The files named (an output must not replace one)."""
        return [path for path in (self.gpu_trace, self.kern_exec, self.nvtx_trace, self.api_trace, *self.ncu) if path]


@dataclass(frozen=True)
class Sources:
    """How inputs are read: the nsys executable that converts an .nsys-rep (else $NSYS, else PATH) and the cache
    folder for conversions and stores (else the user's cache folder); `use_cache` false reads every input anew."""

    nsys: str | None = None
    cache_dir: Path | None = None
    use_cache: bool = True


@dataclass(frozen=True)
class CaptureInputs:
    """The inputs of one capture, resolved: their forms known, an .nsys-rep converted, siblings found."""

    gpu_trace: Input
    kern_exec: Input | None
    nvtx_trace: Input | None
    api_trace: Input | None
    ncu: tuple[Input, ...]
    api_summary: Input | None = None
    kernel_summary: Input | None = None

    def roles(self) -> list[tuple[str, Input]]:
        """Each input with its role."""
        named = [("gpu_trace", self.gpu_trace), ("kern_exec", self.kern_exec), ("nvtx_trace", self.nvtx_trace),
                 ("api_trace", self.api_trace), ("api_summary", self.api_summary),
                 ("kernel_summary", self.kernel_summary), *(("ncu", i) for i in self.ncu)]
        return [(role, i) for role, i in named if i is not None]


def _sibling(gpu: Input, report: str) -> Input | None:
    found = None if gpu.streamed else sibling(gpu.label, report)  # a stream has no file name to go by
    return as_input(found) if found else None


def resolve(files: CaptureFiles, sources: Sources, need_nvtx: bool = False, want_nvtx: bool = False) -> CaptureInputs:
    """The capture's inputs: an export gives every report itself, a CSV's siblings are found by name; with
    `need_nvtx`, a missing NVTX trace is an error; with `want_nvtx`, NVTX ranges are read when there are some."""

    def given(text: str | None) -> Input | None:
        return forms.resolve(text, sources.nsys, sources.cache_dir) if text is not None else None

    gpu = given(files.gpu_trace)
    summaries = ()
    if gpu.is_export:  # an export holds the traces the summaries are made of
        kern_exec, api, nvtx = (given(files.kern_exec) or gpu, given(files.api_trace) or gpu,
                                given(files.nvtx_trace) or (gpu if need_nvtx or want_nvtx else None))
    else:
        summaries = (_sibling(gpu, "cuda_api_sum"), _sibling(gpu, "cuda_gpu_kern_sum"))
        kern_exec = given(files.kern_exec) or _sibling(gpu, "cuda_kern_exec_trace")
        api = given(files.api_trace) or _sibling(gpu, "cuda_api_trace")
        nvtx = given(files.nvtx_trace) or (_sibling(gpu, "nvtx_pushpop_trace") if need_nvtx or want_nvtx else None)
        if need_nvtx and nvtx is None:
            raise InputError(f"no sibling nvtx_pushpop_trace for {files.gpu_trace}: give --nvtx-trace FILE")
    return CaptureInputs(gpu, kern_exec, nvtx, api, tuple(given(path) for path in files.ncu), *summaries)


def nvtx_name_given(flag: str, name: str | None) -> None:
    """Refuse an NVTX option given an empty name or pattern (it would silently mean the whole capture)."""
    if name is not None and not name.strip():
        raise InputError(f"{flag} needs a range name or pattern, not an empty one")


@dataclass(frozen=True)
class WindowChoice:
    """Which part of a capture to analyse: every NVTX range called `nvtx` together, the `time_range`
    START_NS:END_NS, each NVTX range matching `per_nvtx` on its own, the ranges matching `by_nvtx` grouped by its
    first capture group, or (all None) the whole capture."""

    nvtx: str | None = None
    time_range: str | None = None
    per_nvtx: str | None = None
    by_nvtx: str | None = None

    def __post_init__(self) -> None:
        if sum(o is not None for o in (self.nvtx, self.time_range, self.per_nvtx, self.by_nvtx)) > 1:
            raise InputError("choose one of --nvtx, --range, --per-nvtx, --by-nvtx")
        if self.time_range is not None:
            windows.time_range(self.time_range)  # a bad --range is refused before any input is read
        nvtx_name_given("--nvtx", self.nvtx)
        nvtx_name_given("--per-nvtx", self.per_nvtx)
        nvtx_name_given("--by-nvtx", self.by_nvtx)

    @property
    def needs_nvtx(self) -> bool:
        """True when the choice reads NVTX ranges."""
        return bool(self.nvtx or self.per_nvtx or self.by_nvtx)

    @property
    def several(self) -> bool:
        """True when the choice makes several windows (each answered on its own)."""
        return bool(self.per_nvtx or self.by_nvtx)


@dataclass
class Run:
    """One command's store connection (None until its inputs are known: then the cached store of those inputs, or
    a temporary one), component and family rule sets, finding rules, how it reads inputs and the warnings gathered
    while answering it."""

    con: duckdb.DuckDBPyConnection | None
    rule_set: RuleSet
    family_set: RuleSet = field(default_factory=load_family_set)
    finding_set: RuleSet = field(default_factory=load_finding_set)
    warnings: list[str] = field(default_factory=list)
    sources: Sources = field(default_factory=Sources)
    cached: store_cache.CachedStore | None = None
    details: bool = False  # a temporary store keeps the columns no analysis reads (grid, block) for the timeline


def start_run(db: str | Path | None, rules: str | Path | None = None, sources: Sources | None = None,
              families: str | Path | None = None, findings: str | Path | None = None) -> Run:
    """A Run on the store `db` (without it: the cached store of the inputs, or a temporary one, once they are
    known) with the rule sets of `rules`, `families` and `findings` (None: the bundled ones), reading inputs as
    `sources` says."""
    return Run(store.connect(db) if db is not None else None, load_rule_set(rules), load_family_set(families),
               load_finding_set(findings), sources=sources or Sources())


def connect(run: Run, captures: list[CaptureInputs] = ()) -> duckdb.DuckDBPyConnection:
    """The run's store: the one given (--db), else the cached store of these captures' inputs, else a temporary one."""
    if run.con is None:
        inputs = [i for capture in captures for i in capture.roles()]
        if run.sources.use_cache and inputs and not any(i.streamed for _, i in inputs):
            folder = cache.root(run.sources.cache_dir)
            named = [(role, cache.known_hashes(i.identity, folder / "hashes")[0]) for role, i in inputs]
            try:
                run.cached = store_cache.open_store(folder / "stores", store_cache.key(named, run.details),
                                                    {sha for _, sha in named}, run.details)
            except OSError as exc:
                run.warnings.append(f"{folder}: the cache folder cannot be used ({exc.strerror or exc}); "
                                    f"nothing is kept")
            else:
                run.warnings.extend(run.cached.notes)
                run.con = run.cached.con
        if run.con is None:
            run.con = store.connect(details=run.details)
    return run.con


def guarded(run: Run, compute: Callable[[Run], Any]) -> Any:
    """`compute(run)`; when DuckDB fails on a store found in the cache (damaged where opening it did not look), the
    store is removed and the answer computed again from the inputs."""
    try:
        return compute(run)
    except duckdb.Error:
        if run.cached is None or not run.cached.hit:
            raise
        run.warnings.append(store_cache.discard(run.cached))
        run.con, run.cached = None, None
        return compute(run)


def finish(run: Run) -> None:
    """Keep the run's new store in the cache (once the command has succeeded and its answer is out)."""
    if run.cached is not None:
        warning = store_cache.close(run.cached)
        run.warnings.extend([warning] if warning else [])


def abandon(run: Run) -> None:
    """Close the run's store after a failure: nothing is published, a cached store's lock is released."""
    if run.con is not None:
        with contextlib.suppress(duckdb.Error):
            run.con.close()
    if run.cached is not None and run.cached.lock is not None:
        run.cached.lock.release()


def _note(run: Run, inputs: list[store.Ingested]) -> None:
    """Warn of what was recovered while reading these inputs (stored with them: warned on every use)."""
    run.warnings.extend(dict.fromkeys(note for ingested in inputs for note in ingested.notes))


def open_capture(run: Run, files: CaptureFiles | CaptureInputs, need_nvtx: bool = False,
                 want_nvtx: bool = False) -> store.Capture:
    """Ingest the capture's inputs (siblings found by name; NVTX ranges when needed, or wanted and there) and note
    what was recovered or is missing."""
    inputs = files if isinstance(files, CaptureInputs) else resolve(files, run.sources, need_nvtx, want_nvtx)
    run.warnings.extend(note for _, given in inputs.roles() for note in given.notes if note not in run.warnings)
    capture = store.ingest_capture(connect(run, [inputs]), inputs.gpu_trace, inputs.kern_exec, inputs.nvtx_trace,
                                   inputs.ncu, inputs.api_trace, inputs.api_summary, inputs.kernel_summary)
    _note(run, [ingested for ingested, _ in capture.roles()])
    if capture.kern_exec is None:
        run.warnings.append(f"{inputs.gpu_trace.label}: the export has no CUDA API calls: launch figures are null"
                            if inputs.gpu_trace.is_export else
                            f"no sibling cuda_kern_exec_trace for {inputs.gpu_trace.label}: launch figures are null")
    return capture


# A window copies its part of the capture once; a whole capture is read through views (sql/scope/*.sql).
WINDOW_SUBSTITUTES = {"scope.ops": "scope.window_ops", "scope.launches": "scope.window_launches",
                      "scope.api_calls": "scope.window_api_calls",
                      "launches.kernel_gaps": "launches.window_kernel_gaps"}


# The ranks analysis classifies its ranks' kernels into families and measures communication per rank.
RANK_SUBSTITUTES = {"scope.names": "ranks.names", "communication.kernels": "ranks.communication_kernels"}


def capture_scope(run: Run, capture: store.Capture, window: windows.Window | None = None) -> Scope:
    """The scope of a capture, or of one window of it, for the SQL modules."""
    values = {"gpu_trace": capture.gpu_trace.trace_id,
              "kern_exec_trace": capture.kern_exec.trace_id if capture.kern_exec else None,
              "api_trace": capture.api.trace_id if capture.api else None,
              "api_summary": capture.api_summary.trace_id if capture.api_summary else None,
              "kernel_summary": capture.kernel_summary.trace_id if capture.kernel_summary else None,
              "nvtx_trace": capture.nvtx.trace_id if capture.nvtx else None, "ncu_traces": []}
    return Scope(run.con, values, {"window": window, "rule_set": run.rule_set, "family_set": run.family_set,
                                   "finding_set": run.finding_set},
                 WINDOW_SUBSTITUTES if window is not None else {})


def ncu_scope(run: Run, ncu: list[store.Ingested]) -> Scope:
    """The scope of the launches profiled in ncu exports (each a kernel, in profiling order)."""
    values = {"gpu_trace": None, "kern_exec_trace": None, "api_trace": None, "nvtx_trace": None,
              "ncu_traces": [i.trace_id for i in ncu]}
    return Scope(run.con, values, {"window": None, "rule_set": run.rule_set, "family_set": run.family_set},
                 {"scope.ops": "scope.ncu_ops"})


def _per_window(run: Run, capture: store.Capture, choice: WindowChoice,
                compute: Callable[[windows.Window | None], Any]) -> list[tuple[str | None, Any]]:
    """(window label, `compute(window)`) for each window of the choice, in order (None: the whole capture); a window
    of several with nothing in it is skipped with a warning (the single one asked for is an error)."""
    parts = []
    for window in _windows(run, capture, choice):  # one scope at a time: they share the connection
        try:
            parts.append((window.label if window else None, compute(window)))
        except EmptyScope as exc:
            if not choice.several:
                raise
            run.warnings.append(f"{exc}; skipped")
    return parts


def _windows(run: Run, capture: store.Capture, choice: WindowChoice) -> list[windows.Window | None]:
    if choice.per_nvtx:
        return list(windows.per_nvtx_windows(run.con, capture, choice.per_nvtx))
    if choice.by_nvtx:
        return windows.by_nvtx_windows(run.con, capture, choice.by_nvtx)
    if choice.nvtx:
        return [windows.nvtx_window(run.con, capture, choice.nvtx)]
    if choice.time_range:
        return [windows.time_range(choice.time_range)]
    return [None]


def with_keys(analysis: Analysis, result: dict[str, Any]) -> dict[str, Any]:
    """The result, once it is seen to have the top-level keys the registry entry names."""
    missing = set(analysis.keys) - set(result)
    if missing:
        raise ModuleError(f"analysis {analysis.name} breaks its registry entry: no key(s) {', '.join(sorted(missing))}")
    return result


def _answered(analysis: Analysis, scope: Scope, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The analysis' answer in `scope`, once it is seen to keep the registry's word: its keys there, no module
    asked for that the entry does not name (or require)."""
    asked_before = len(scope.asked)
    result = analysis.answer(scope, *args, **kwargs)
    undeclared = set(scope.asked[asked_before:]) - {name for name, _ in order(analysis.modules, scope.substitutes)}
    if undeclared:
        raise ModuleError(f"analysis {analysis.name} breaks its registry entry: it asks for module(s) "
                          f"{', '.join(sorted(undeclared))}")
    return with_keys(analysis, result)


def answer(run: Run, analysis: Analysis, capture: store.Capture, options: dict[str, Any],
           window: windows.Window | None = None) -> dict[str, Any]:
    """One registered analysis of one capture (or window of it), uncached."""
    return _answered(analysis, capture_scope(run, capture, window), capture, options)


def analyse(run: Run, analysis: Analysis, files: CaptureFiles, options: dict[str, Any],
            choice: WindowChoice = WindowChoice(), with_findings: bool = False,
            fail_on: str | None = None) -> dict[str, Any]:
    """A registered analysis of a capture: the whole of it, one window, or (with --per-nvtx) each matching range;
    `with_findings` adds the findings (of every window, ranked together) under `findings`, answered on the same
    scopes; `fail_on` (a severity) gives the findings a gate that fails when one is that severe or more.

    The analysis name and options (and the rule sets' version, for an analysis that classifies or finds), with the
    inputs' trace ids and the window choice, key the result in the store, so asking again reads the stored result."""
    capture = open_capture(run, files, choice.needs_nvtx)
    rules = ({"rule_set_version": run.rule_set.version, "family_set_version": run.family_set.version}
             if analysis.uses_rules else {})
    finds = with_findings or analysis.uses_findings
    key = json.dumps({"command": analysis.name, **options, **rules, "code": store_cache.code_fingerprint(),
                      "finding_set_version": run.finding_set.version if finds else None,
                      "inputs": sorted((i.trace_id, i.path) for i, _ in capture.roles()),
                      "nvtx": choice.nvtx, "range": choice.time_range, "per_nvtx": choice.per_nvtx,
                      "by_nvtx": choice.by_nvtx},
                     sort_keys=True, default=str)
    result = store.cached_result(run.con, capture.capture_id, key) if analysis.cacheable else None
    if result is None:
        def compute(window: windows.Window | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
            scope = capture_scope(run, capture, window)
            answered = _answered(analysis, scope, capture, options)
            return answered, _answered(FINDINGS, scope, capture, options) if with_findings else None

        parts = _per_window(run, capture, choice, compute)
        result = _combined(analysis, choice, [(label, answered) for label, (answered, _) in parts])
        if with_findings:
            result["findings"] = _combined(FINDINGS, choice, [(label, found) for label, (_, found) in parts])
        if analysis.cacheable:
            store.remember_result(run.con, capture.capture_id, key, result)
    _warn_integrity(run, capture, result)
    if fail_on is not None:
        result = findings.gated(result, fail_on) if analysis.uses_findings else \
            {**result, "findings": findings.gated(result["findings"], fail_on)}
    return result


def _combined(analysis: Analysis, choice: WindowChoice, parts: list[tuple[str | None, dict[str, Any]]]
              ) -> dict[str, Any]:
    """The answers of each window as one result: a list of windows (--per-nvtx), the groups by label (--by-nvtx),
    else the one answer; findings are ranked together whatever the windows."""
    if analysis.uses_findings and choice.several:
        pattern = {"per_nvtx": choice.per_nvtx} if choice.per_nvtx else {"by_nvtx": choice.by_nvtx}
        if not parts:
            raise InputError(f"{next(iter(pattern.values()))!r}: no matching NVTX range holds GPU operations")
        return {**pattern, **findings.merged([part for _, part in parts])}
    if choice.per_nvtx:
        return {"per_nvtx": choice.per_nvtx, "windows": [part for _, part in parts]}
    if choice.by_nvtx:
        return {"by_nvtx": choice.by_nvtx, "groups": dict(parts)}
    ((_, result),) = parts
    return result


def gate_failed(result: dict[str, Any]) -> bool:
    """True when a gate of the result failed: compare --fail-above found it worse, or findings (on their own or
    under classify's `findings`) hold one as severe as --fail-on."""
    blocks = [result, result.get("findings") if isinstance(result.get("findings"), dict) else {}]
    return result.get("verdict") == "worse" or any(block.get("gate", {}).get("failed") for block in blocks)


def parts_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The answers a result holds: one per window (--per-nvtx) or group (--by-nvtx), else the result itself."""
    if "groups" in result:
        return list(result["groups"].values())
    return result.get("windows", [result])


def _warn_integrity(run: Run, capture: store.Capture, result: dict[str, Any]) -> None:
    """Warn of what a result's integrity checks found and of the idle causes its capture cannot tell."""
    for part in parts_of(result):
        if "integrity" in part:
            run.warnings.extend(integrity.warnings(part["integrity"], capture))
        run.warnings.extend(warning for warning in idle.warnings(part, capture) if warning not in run.warnings)


def ingest(run: Run, paths: list[str]) -> list[dict[str, Any]]:
    """Load captures (each gpu trace with its siblings) into the store without analysing them: what was stored."""
    loaded = []
    for path in paths:
        capture = open_capture(run, CaptureFiles(path))
        loaded.append({"capture_id": capture.capture_id,
                       "inputs": [{"path": i.path, "role": role, "trace_id": i.trace_id, "rows": i.rows,
                                   "sha256": i.sha256, "already_stored": i.reused} for i, role in capture.roles()]})
    return loaded


@dataclass(frozen=True)
class Answered:
    """A whole capture's classify and launches results (and findings, when asked), with the scope that answered
    them (its modules built)."""

    capture: store.Capture
    scope: Scope
    summary: dict[str, Any]
    launches: dict[str, Any]
    findings: dict[str, Any] | None = None


def classify_and_launches(run: Run, files: CaptureFiles | CaptureInputs, top_kernels: int | None = None,
                          with_findings: bool = False) -> Answered:
    """The classify and launches results of a whole capture at their defaults (classify listing `top_kernels`
    kernels when given), on one scope (its modules are built once for both), with their integrity warnings; with
    `with_findings`, its findings too."""
    return _classified(run, open_capture(run, files), None, top_kernels, with_findings)


def _classified(run: Run, capture: store.Capture, window: windows.Window | None,
                top_kernels: int | None = None, with_findings: bool = False) -> Answered:
    """classify_and_launches of an opened capture, or of one window of it."""
    scope = capture_scope(run, capture, window)
    options = {**CLASSIFY.defaults(), **({"top": top_kernels} if top_kernels else {})}
    summary = _answered(CLASSIFY, scope, capture, options)
    launch = _answered(LAUNCHES, scope, capture, LAUNCHES.defaults())
    found = _answered(FINDINGS, scope, capture, FINDINGS.defaults()) if with_findings else None
    _warn_integrity(run, capture, summary)
    return Answered(capture, scope, summary, launch, found)


def timeline(run: Run, files: CaptureFiles, options: dict[str, Any], choice: WindowChoice = WindowChoice()
             ) -> dict[str, Any]:
    """The rows of a capture's timeline (registry TIMELINE): the whole capture, or the part the choice keeps; with
    --by-nvtx the ranges of every group together, each GPU operation labelled with its group (the choice makes
    no --per-nvtx windows: the command does not take it)."""
    run.details = True
    capture = open_capture(run, files, choice.needs_nvtx, want_nvtx=True)
    groups: tuple[tuple[str, int, int, int | None], ...] = ()
    if choice.by_nvtx:
        grouped = windows.by_nvtx_windows(run.con, capture, choice.by_nvtx)
        groups = tuple((group.label, *ranges) for group in grouped for ranges in group.ranges)
        window = windows.Window(f"by-nvtx {choice.by_nvtx}", tuple(g[1:] for g in groups), nvtx=True)
    else:
        (window,) = _windows(run, capture, choice)
    scope = capture_scope(run, capture, window)
    scope.context["nvtx_groups"] = groups
    return _answered(TIMELINE, scope, capture, options)


ONE_PAGE = "a report is one page: give --by-nvtx (a row per group), --nvtx or --range, not --per-nvtx"


def report(run: Run, files: CaptureFiles, options: dict[str, Any], choice: WindowChoice = WindowChoice()
           ) -> dict[str, Any]:
    """What a one-capture report shows (registry REPORT): the classify and launches answers of the capture (or of
    the --nvtx or --range window) with the report's own figures, all from one scope; with --by-nvtx, the classify
    answer of each group besides (the page's group table)."""
    if choice.per_nvtx:
        raise InputError(ONE_PAGE)
    capture = open_capture(run, files, choice.needs_nvtx)
    classify_options = {name: options[name] for name in CLASSIFY.defaults()}  # top and the thresholds
    (window,) = _windows(run, capture, replace(choice, by_nvtx=None))
    scope = capture_scope(run, capture, window)
    summary = _answered(CLASSIFY, scope, capture, classify_options)
    launch = _answered(LAUNCHES, scope, capture, LAUNCHES.defaults())
    figures = _answered(REPORT, scope, capture, options)
    _warn_integrity(run, capture, summary)
    groups = None
    if choice.by_nvtx:
        parts = _per_window(run, capture, choice, lambda part: _answered(
            CLASSIFY, capture_scope(run, capture, part), capture, classify_options))
        if not parts:
            raise InputError(f"--by-nvtx {choice.by_nvtx!r}: no matching NVTX range holds GPU operations")
        groups = dict(parts)
    return {"classify": summary, "launches": launch, **figures, "by_nvtx": choice.by_nvtx, "groups": groups}


def analyse_ncu(run: Run, paths: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """The ncu analysis of Nsight Compute exports (raw or details pages): each profiled launch, classified."""
    inputs = [store.ingest_ncu(connect(run), path) for path in paths]
    _note(run, inputs)
    return _answered(NCU, ncu_scope(run, inputs), inputs, options)


def _compared_windows(run: Run, inputs: CaptureInputs, choice: WindowChoice
                      ) -> tuple[store.Capture, dict[str | None, tuple[Answered, list[dict[str, Any]]]]]:
    """One side of a comparison: per window of the choice (None: the whole capture), its classify and launches
    results and its kernels (compare.kernels)."""
    capture = open_capture(run, inputs, choice.needs_nvtx)

    def compared(window: windows.Window | None) -> tuple[Answered, list[dict[str, Any]]]:
        answered = _classified(run, capture, window)
        return answered, answered.scope.rows("compare.kernels")

    return capture, dict(_per_window(run, capture, choice, compared))


def compare(run: Run, before: CaptureFiles | None, after: CaptureFiles | None, timings: Path | None,
            options: dict[str, Any], choice: WindowChoice = WindowChoice()) -> dict[str, Any]:
    """Before and after: the deltas from capture `before` to capture `after` (from the classify and launches
    analyses of each; the same window of each with `choice`, group by group with --by-nvtx), or, given `timings`,
    the matched A/B/B/A comparison of per-update wall-clock times."""
    if timings is not None:
        if before or after:
            raise InputError("give either two captures or --abba TIMINGS.csv, not both")
        if choice != WindowChoice() or options.get("fail_above") is not None \
                or options["gate_metric"] != COMPARE.defaults()["gate_metric"]:
            raise InputError("--fail-above, --gate-metric and window options compare two captures, not --abba "
                             "timings")
        return _answered(ABBA, Scope(duckdb.connect(), {}, {"timings_path": timings}), options)
    if not (before and after):
        raise InputError("compare needs two cuda_gpu_trace files (before, after) or --abba TIMINGS.csv")
    if choice.per_nvtx:
        raise InputError("compare takes --nvtx, --range or --by-nvtx (ranges of two captures pair up by group, not "
                         "one by one)")
    check_gate(options)
    both = [resolve(files, run.sources, choice.needs_nvtx) for files in (before, after)]
    connect(run, both)
    (capture_a, parts_a), (capture_b, parts_b) = (_compared_windows(run, inputs, choice) for inputs in both)
    if capture_a.gpu_trace.sha256 == capture_b.gpu_trace.sha256:
        run.warnings.append(f"compare: both captures are the same bytes (sha256 {capture_a.gpu_trace.sha256[:12]}): "
                            f"every delta is zero")
    for label in sorted(parts_a.keys() ^ parts_b.keys(), key=str):
        run.warnings.append(f"compare: group {label!r} is only in {'A' if label in parts_a else 'B'}; not compared")
    compared = {}
    for label in [key for key in parts_a if key in parts_b]:
        (a, kernels_a), (b, kernels_b) = parts_a[label], parts_b[label]
        compared[label] = with_keys(COMPARE, COMPARE.answer(a.summary, b.summary, a.launches, b.launches,
                                                            kernels_a, kernels_b, options))
    if not compared:
        raise InputError(f"compare --by-nvtx {choice.by_nvtx!r}: no group is in both captures")
    if not choice.by_nvtx:
        return next(iter(compared.values()))
    result: dict[str, Any] = {"by_nvtx": choice.by_nvtx, "groups": compared}
    if options.get("fail_above") is not None:
        verdicts = {part["verdict"] for part in compared.values()}
        result["verdict"] = next((v for v in ("worse", "better") if v in verdicts), "unchanged")
    return result
