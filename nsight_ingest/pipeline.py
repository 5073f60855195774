"""The one front door: `answer(run, analysis, request)` answers any registered analysis. The analysis says what it
reads (registry `inputs`) and how its scopes are made (registry `scopes`); the request holds what the command was
given. A capture analysis is answered in each window asked for, and kept in the store under one key
(runs.answer_key) so asking again reads the kept answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb

from nsight_ingest import ranks_job, store, windows
from nsight_ingest.analysis import classify, findings, idle, integrity
from nsight_ingest.analysis.compare import check_gate
from nsight_ingest.errors import EmptyScope, InputError
from nsight_ingest.readers.capture import CaptureFiles, CaptureInputs, resolve
from nsight_ingest.registry import ABBA, CLASSIFY, COMPARE, FINDINGS, INPUT_KINDS, LAUNCHES, Analysis
from nsight_ingest.runs import (
    Run,
    answer_key,
    answered,
    capture_scope,
    connect,
    ncu_scope,
    note,
    open_capture,
    with_keys,
)
from nsight_ingest.sqlmodules import Scope, ScopeContext
from nsight_ingest.windows import WindowChoice


@dataclass(frozen=True)
class Request:
    """What a command gives an analysis: its inputs (of the kind the analysis reads: one capture, a capture per
    rank, two captures to compare, ncu exports, or timings), its options, the window choice, and for a capture
    analysis the findings beside (`with_findings`) and their gate (`fail_on`, a severity)."""

    captures: tuple[CaptureFiles, ...] = ()
    ncu_files: tuple[str, ...] = ()
    timings: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)
    choice: WindowChoice = field(default_factory=WindowChoice)
    with_findings: bool = False
    fail_on: str | None = None

    @property
    def capture(self) -> CaptureFiles:
        """The one capture of a capture analysis."""
        (only,) = self.captures
        return only


def answer(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """The answer of a registered analysis to a request: the command's JSON. Its options are the request's over the
    analysis' defaults. A request holding inputs of a kind the analysis does not read is a bug (exit 3)."""
    given = [name for name in ("captures", "ncu_files", "timings") if getattr(request, name)]
    if not set(given) <= set(INPUT_KINDS[analysis.inputs]):
        raise ValueError(f"{analysis.name} reads {analysis.inputs} inputs; the request holds {', '.join(given)}")
    asked = replace(request, options={**analysis.defaults(), **request.options})
    return _ANSWERS[analysis.scopes](run, analysis, asked)


def _per_window(run: Run, capture: store.Capture, choice: WindowChoice,
                compute: Callable[[windows.Window | None], Any]) -> list[tuple[str | None, Any]]:
    """(window label, `compute(window)`) for each window of the choice, in order (None: the whole capture); a window
    of several with nothing in it is skipped with a warning (the single one asked for is an error)."""
    parts = []
    for window in windows.chosen(run.con, capture, choice):  # one scope at a time: they share the connection
        try:
            parts.append((window.label if window else None, compute(window)))
        except EmptyScope as exc:
            if not choice.several:
                raise
            run.warnings.append(f"{exc}; skipped")
    return parts


def _each_window(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """A capture analysis: the whole capture, one window, or (--per-nvtx, --by-nvtx) each matching range or group;
    `with_findings` adds the findings (of every window, ranked together) under `findings`, answered on the same
    scopes; `fail_on` gives the findings a gate that fails when one is that severe or more."""
    choice, options, with_findings = request.choice, request.options, request.with_findings
    capture = open_capture(run, request.capture, choice.needs_nvtx)
    key = answer_key(run, analysis, sorted((i.trace_id, i.path) for i, _ in capture.roles()),
                     {**options, "nvtx": choice.nvtx, "range": choice.time_range, "per_nvtx": choice.per_nvtx,
                      "by_nvtx": choice.by_nvtx}, with_findings=with_findings)
    result = store.cached_result(run.con, capture.capture_id, key) if analysis.cacheable else None
    if result is None:
        def compute(window: windows.Window | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
            scope = capture_scope(run, capture, window)
            found = answered(analysis, scope, capture, options)
            return found, answered(FINDINGS, scope, capture, options) if with_findings else None

        parts = _per_window(run, capture, choice, compute)
        result = _combined(analysis, choice, [(label, found) for label, (found, _) in parts])
        if with_findings:
            result["findings"] = _combined(FINDINGS, choice, [(label, found) for label, (_, found) in parts])
        if analysis.cacheable:
            store.remember_result(run.con, capture.capture_id, key, result)
    _warn_integrity(run, capture, result)
    if analysis is CLASSIFY:
        _hint_rules(run, result)
    if request.fail_on is not None:
        result = findings.gated(result, request.fail_on) if analysis.uses_findings else \
            {**result, "findings": findings.gated(result["findings"], request.fail_on)}
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


def _hint_rules(run: Run, result: dict[str, Any]) -> None:
    """Say when a classify result's component rules leave most of its kernel time in `other` (over every window
    of it): a person reading it then wants the kernel families, or rules of their own."""
    run.warnings.extend(classify.rules_hint(parts_of(result)))


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
    summary = answered(CLASSIFY, scope, capture, options)
    launch = answered(LAUNCHES, scope, capture, LAUNCHES.defaults())
    found = answered(FINDINGS, scope, capture, FINDINGS.defaults()) if with_findings else None
    _warn_integrity(run, capture, summary)
    return Answered(capture, scope, summary, launch, found)


def _one_timeline(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """The rows of a capture's timeline: the whole capture, or the part the choice keeps; with --by-nvtx the ranges
    of every group together, each GPU operation labelled with its group (the choice makes no --per-nvtx windows:
    the command does not take it)."""
    run.details = True
    choice = request.choice
    capture = open_capture(run, request.capture, choice.needs_nvtx, want_nvtx=True)
    groups: tuple[tuple[str, int, int, int | None], ...] = ()
    if choice.by_nvtx:
        grouped = windows.by_nvtx_windows(run.con, capture, choice.by_nvtx)
        groups = tuple((group.label, *ranges) for group in grouped for ranges in group.ranges)
        window = windows.Window(f"by-nvtx {choice.by_nvtx}", tuple(g[1:] for g in groups), nvtx=True)
    else:
        (window,) = windows.chosen(run.con, capture, choice)
    scope = capture_scope(run, capture, window, nvtx_groups=groups)
    return answered(analysis, scope, capture, request.options)


ONE_PAGE = "a report is one page: give --by-nvtx (a row per group), --nvtx or --range, not --per-nvtx"


def _one_page(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """What a one-capture report shows: the classify and launches answers of the capture (or of the --nvtx or
    --range window) with the report's own figures, all from one scope; with --by-nvtx, the classify answer of each
    group besides (the page's group table)."""
    choice, options = request.choice, request.options
    if choice.per_nvtx:
        raise InputError(ONE_PAGE)
    capture = open_capture(run, request.capture, choice.needs_nvtx)
    classify_options = {name: options[name] for name in CLASSIFY.defaults()}  # top and the thresholds
    (window,) = windows.chosen(run.con, capture, replace(choice, by_nvtx=None))
    scope = capture_scope(run, capture, window)
    summary = answered(CLASSIFY, scope, capture, classify_options)
    launch = answered(LAUNCHES, scope, capture, LAUNCHES.defaults())
    figures = answered(analysis, scope, capture, options)
    _warn_integrity(run, capture, summary)
    _hint_rules(run, summary)
    groups = None
    if choice.by_nvtx:
        parts = _per_window(run, capture, choice, lambda part: answered(
            CLASSIFY, capture_scope(run, capture, part), capture, classify_options))
        if not parts:
            raise InputError(f"--by-nvtx {choice.by_nvtx!r}: no matching NVTX range holds GPU operations")
        groups = dict(parts)
    return {"classify": summary, "launches": launch, **figures, "by_nvtx": choice.by_nvtx, "groups": groups}


def _ncu_launches(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """The ncu analysis of Nsight Compute exports (raw or details pages): each profiled launch, classified."""
    inputs = [store.ingest_ncu(connect(run), path) for path in request.ncu_files]
    note(run, inputs)
    return answered(analysis, ncu_scope(run, inputs), inputs, request.options)


def _each_rank(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """The multi-rank analysis of a capture per rank (ranks_job: each read by a task of its own)."""
    return ranks_job.analyse_ranks(run, list(request.captures), request.options)


def _compared_windows(run: Run, inputs: CaptureInputs, choice: WindowChoice
                      ) -> tuple[store.Capture, dict[str | None, tuple[Answered, list[dict[str, Any]]]]]:
    """One side of a comparison: per window of the choice (None: the whole capture), its classify and launches
    results and its kernels (compare.kernels)."""
    capture = open_capture(run, inputs, choice.needs_nvtx)

    def compared(window: windows.Window | None) -> tuple[Answered, list[dict[str, Any]]]:
        found = _classified(run, capture, window)
        return found, found.scope.rows("compare.kernels")

    return capture, dict(_per_window(run, capture, choice, compared))


def _each_side(run: Run, analysis: Analysis, request: Request) -> dict[str, Any]:
    """Before and after: the deltas from the request's first capture to its second (from the classify and launches
    analyses of each; the same window of each with the choice, group by group with --by-nvtx), or, given timings,
    the matched A/B/B/A comparison of per-update wall-clock times (registry ABBA)."""
    choice, options = request.choice, request.options
    if request.timings is not None:
        if request.captures:
            raise InputError("give either two captures or --abba TIMINGS.csv, not both")
        if choice != WindowChoice() or options.get("fail_above") is not None \
                or options["gate_metric"] != COMPARE.defaults()["gate_metric"]:
            raise InputError("--fail-above, --gate-metric and window options compare two captures, not --abba "
                             "timings")
        abba_options = {**ABBA.defaults(), **options}
        return answered(ABBA, Scope(duckdb.connect(), {}, ScopeContext(timings_path=request.timings)), abba_options)
    if len(request.captures) != 2:
        raise InputError("compare needs two cuda_gpu_trace files (before, after) or --abba TIMINGS.csv")
    if choice.per_nvtx:
        raise InputError("compare takes --nvtx, --range or --by-nvtx (ranges of two captures pair up by group, not "
                         "one by one)")
    check_gate(options)
    both = [resolve(files, run.sources, choice.needs_nvtx) for files in request.captures]
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
        compared[label] = with_keys(analysis, analysis.answer(a.summary, b.summary, a.launches, b.launches,
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


# How each kind of analysis is answered (registry `scopes`).
_ANSWERS: dict[str, Callable[[Run, Analysis, Request], dict[str, Any]]] = {
    "each window": _each_window, "one timeline": _one_timeline, "one page": _one_page,
    "ncu launches": _ncu_launches, "each rank": _each_rank, "each side": _each_side}
