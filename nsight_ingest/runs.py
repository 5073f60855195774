"""One command's run: its store (given, cached or temporary), rule sets and warnings; opening a capture into the
store and making the scopes analyses are answered in, each answer held to its registry entry."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from nsight_ingest import cache, store, store_cache, windows
from nsight_ingest.finding_rules import load_finding_set
from nsight_ingest.readers import source
from nsight_ingest.readers.capture import CaptureFiles, CaptureInputs, Sources, resolve
from nsight_ingest.registry import Analysis
from nsight_ingest.rules import RuleSet, load_family_set, load_rule_set
from nsight_ingest.sqlcatalog import ModuleError, order
from nsight_ingest.sqlmodules import Scope, ScopeContext


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
            named = [(role, source.known_hashes(i.identity, folder / "hashes")[0]) for role, i in inputs]
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


def note(run: Run, inputs: list[store.Ingested]) -> None:
    """Warn of what was recovered while reading these inputs (stored with them: warned on every use)."""
    run.warnings.extend(dict.fromkeys(text for ingested in inputs for text in ingested.notes))


def open_capture(run: Run, files: CaptureFiles | CaptureInputs, need_nvtx: bool = False,
                 want_nvtx: bool = False) -> store.Capture:
    """Ingest the capture's inputs (siblings found by name; NVTX ranges when needed, or wanted and there) and note
    what was recovered or is missing."""
    inputs = files if isinstance(files, CaptureInputs) else resolve(files, run.sources, need_nvtx, want_nvtx)
    run.warnings.extend(text for _, given in inputs.roles() for text in given.notes if text not in run.warnings)
    capture = store.ingest_capture(connect(run, [inputs]), inputs.gpu_trace, inputs.kern_exec, inputs.nvtx_trace,
                                   inputs.ncu, inputs.api_trace, inputs.api_summary, inputs.kernel_summary)
    note(run, [ingested for ingested, _ in capture.roles()])
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


def capture_scope(run: Run, capture: store.Capture, window: windows.Window | None = None,
                  nvtx_groups: tuple[tuple[str, int, int, int | None], ...] = ()) -> Scope:
    """The scope of a capture, or of one window of it (with a --by-nvtx timeline's groups), for the SQL modules."""
    values = {"gpu_trace": capture.gpu_trace.trace_id,
              "kern_exec_trace": capture.kern_exec.trace_id if capture.kern_exec else None,
              "api_trace": capture.api.trace_id if capture.api else None,
              "api_summary": capture.api_summary.trace_id if capture.api_summary else None,
              "kernel_summary": capture.kernel_summary.trace_id if capture.kernel_summary else None,
              "nvtx_trace": capture.nvtx.trace_id if capture.nvtx else None, "ncu_traces": []}
    return Scope(run.con, values, ScopeContext(window, run.rule_set, run.family_set, run.finding_set, nvtx_groups),
                 WINDOW_SUBSTITUTES if window is not None else {})


def ncu_scope(run: Run, ncu: list[store.Ingested]) -> Scope:
    """The scope of the launches profiled in ncu exports (each a kernel, in profiling order)."""
    values = {"gpu_trace": None, "kern_exec_trace": None, "api_trace": None, "nvtx_trace": None,
              "ncu_traces": [i.trace_id for i in ncu]}
    return Scope(run.con, values, ScopeContext(rule_set=run.rule_set, family_set=run.family_set),
                 {"scope.ops": "scope.ncu_ops"})


def with_keys(analysis: Analysis, result: dict[str, Any]) -> dict[str, Any]:
    """The result, once it is seen to have the top-level keys the registry entry names."""
    missing = set(analysis.keys) - set(result)
    if missing:
        raise ModuleError(f"analysis {analysis.name} breaks its registry entry: no key(s) {', '.join(sorted(missing))}")
    return result


def answer_key(run: Run, analysis: Analysis, inputs: list[Any], asked: dict[str, Any], *,
               with_findings: bool = False) -> str:
    """The key an answer is kept under: the analysis, what was asked of it (options, windows), the code, the
    version of each rule set it uses, and its inputs (as the caller names them: trace ids in one store, contents
    with their names across stores). Canonical JSON: a store's summaries table shows it as it is."""
    versions = {}
    if analysis.uses_rules:
        versions.update(rule_set_version=run.rule_set.version, family_set_version=run.family_set.version)
    if analysis.uses_families:
        versions.update(family_set_version=run.family_set.version)
    if with_findings or analysis.uses_findings:
        versions.update(finding_set_version=run.finding_set.version)
    return json.dumps({"command": analysis.name, **asked, **versions, "code": store_cache.code_fingerprint(),
                       "inputs": inputs}, sort_keys=True, default=str)


def answered(analysis: Analysis, scope: Scope, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The analysis' answer in `scope`, once it is seen to keep the registry's word: its keys there, no module
    asked for that the entry does not name (or require)."""
    asked_before = len(scope.asked)
    result = analysis.answer(scope, *args, **kwargs)
    undeclared = set(scope.asked[asked_before:]) - {name for name, _ in order(analysis.modules, scope.substitutes)}
    if undeclared:
        raise ModuleError(f"analysis {analysis.name} breaks its registry entry: it asks for module(s) "
                          f"{', '.join(sorted(undeclared))}")
    return with_keys(analysis, result)
