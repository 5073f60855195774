"""The ranks analysis of rank files as a job: each rank's capture is read and measured by a task of its own (in
this process, or on a Dask worker: cluster.Cluster), into its own store (the cached store of that file, which a
later command on it reuses), and only the small facts analysis.ranks names travel back. Two steps: facts (devices,
NVTX step, kernel bounds, collective kernels), then, once the clocks are aligned here, the answers on the aligned
clock. The answer is the same wherever the tasks ran."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, replace
from typing import Any

from nsight_ingest import cache, store, store_cache, windows
from nsight_ingest.analysis import ranks
from nsight_ingest.cluster import Cluster
from nsight_ingest.errors import InputError
from nsight_ingest.readers.capture import CaptureFiles, CaptureInputs, Sources, resolve
from nsight_ingest.readers.source import known_hashes, remembered_hashes
from nsight_ingest.registry import RANKS
from nsight_ingest.rules import RuleSet
from nsight_ingest.runs import RANK_SUBSTITUTES, Run, abandon, answer_key, connect, finish, open_capture, with_keys
from nsight_ingest.sqlmodules import Scope, ScopeContext

# Options that say where the tasks run, not what is answered: they are not part of the answer's cache key.
PLACEMENT = ("workers", "dask_address")


@dataclass(frozen=True)
class RankCapture:
    """What a task needs to read one rank capture on its own: its inputs and how to read them."""

    inputs: CaptureInputs
    nvtx: str | None
    sources: Sources
    rule_set: RuleSet
    family_set: RuleSet
    threads: int | None  # DuckDB threads of its store (None: the store's own choice)
    token: str  # names its store while a process keeps it open between the two steps


# Rank stores kept open between the two steps in this process: temporary ones (no cache), which could not be
# opened again.
_KEPT: dict[str, tuple[Run, store.Capture]] = {}


def _opened(job: RankCapture, shared: Run | None) -> tuple[Run, store.Capture]:
    if shared is not None:  # --db: every rank in the one store given
        return shared, open_capture(shared, job.inputs)
    kept = _KEPT.pop(job.token, None)
    if kept is not None:
        return kept
    run = Run(None, job.rule_set, job.family_set, sources=job.sources)
    try:
        if job.threads:  # before the load: it is the load that runs on every thread
            connect(run, [job.inputs]).execute(f"SET threads = {int(job.threads)}")
        capture = open_capture(run, job.inputs)
    except BaseException:
        abandon(run)
        raise
    return run, capture


def facts(job: RankCapture, shared: Run | None = None) -> ranks.CaptureFacts:
    """Read one rank capture and tell its facts; its store is published in the cache (or kept open in this
    process when it is temporary) for the second step."""
    run, capture = _opened(job, shared)
    try:
        found = ranks.capture_facts(run.con, capture, job.nvtx)
    except BaseException:
        if shared is None:
            abandon(run)
        raise
    if shared is None:
        if run.cached is None:
            _KEPT[job.token] = (run, capture)
        else:
            finish(run)
    return replace(found, warnings=tuple(run.warnings))


def answers(job: RankCapture, sources: list[ranks.RankSource], alignment: ranks.Alignment,
            shared: Run | None = None) -> ranks.CaptureAnswers:
    """One rank capture's answers on the aligned clock, from its store (opened again where the first step left
    it); the store is then published or closed."""
    run, capture = _opened(job, shared)
    try:
        here = [replace(s, trace_id=capture.gpu_trace.trace_id) for s in sources]  # the ids of this store
        scope = Scope(run.con, {}, ScopeContext(family_set=run.family_set, sources=tuple(here)), RANK_SUBSTITUTES)
        found = ranks.capture_answers(scope, alignment)
    except BaseException:
        if shared is None:
            abandon(run)
        raise
    if shared is None:
        finish(run)
    return replace(found, warnings=tuple(run.warnings))


def forget(job_id: str) -> None:
    """Close the stores this process still keeps for job `job_id` (it failed between the two steps)."""
    for token in [t for t in _KEPT if t.startswith(job_id)]:
        abandon(_KEPT.pop(token)[0])


def _answer_key(run: Run, resolved: list[CaptureInputs], options: dict[str, Any], compute: bool) -> str | None:
    """The name of the cached answer: the options, the code, the family rules and every input's content with the
    name it was given (ranks are read from names). None when an input's hashes are not known yet and `compute`
    is false (the tasks learn them)."""
    folder = cache.root(run.sources.cache_dir) / "hashes"
    inputs = []
    for capture in resolved:
        named = []
        for role, given in capture.roles():
            hashes = known_hashes(given.identity, folder) if compute else remembered_hashes(given.identity, folder)
            if hashes is None:
                return None
            named.append((role, given.label, hashes[0]))
        inputs.append(named)
    asked = {name: value for name, value in options.items() if name not in PLACEMENT}
    return hashlib.sha256(answer_key(run, RANKS, inputs, asked).encode()).hexdigest()[:32]


def placement_checked(db: bool, options: dict[str, Any]) -> None:
    """Refuse Dask workers (--workers, --dask-address) for ranks kept in one --db store."""
    if db and ((options.get("workers") or 1) > 1 or options.get("dask_address")):
        raise InputError("--db holds every rank in one store, which only this process can write: leave out --db, "
                         "or --workers and --dask-address")


def analyse_ranks(run: Run, files: list[CaptureFiles], options: dict[str, Any]) -> dict[str, Any]:
    """The multi-rank analysis of one capture per rank (or one capture holding several GPUs). Options (registry
    RANKS): `rank_pattern` finds the rank in a file name (ranks.RANK_PATTERN when None); `offset`, RANK=NS items
    that replace the estimated clock offsets; `nvtx`, each rank's step range; `time_range` on the aligned clock;
    `workers`, local Dask workers reading the files side by side, or `dask_address`, a cluster's scheduler."""
    nvtx, time_range = options.get("nvtx"), options.get("time_range")
    windows.nvtx_name_given("--nvtx", nvtx)
    pattern = ranks.rank_regex(options.get("rank_pattern"))
    window = windows.time_range(time_range).ranges[0][:2] if time_range else None
    placement_checked(run.con is not None, options)
    place = Cluster(options.get("workers") or 1, options.get("dask_address"))
    resolved = [resolve(f, run.sources, need_nvtx=bool(nvtx)) for f in files]
    use_cache = run.sources.use_cache and not any(i.streamed for c in resolved for _, i in c.roles())
    answers_folder = cache.root(run.sources.cache_dir) / "answers"
    key = _answer_key(run, resolved, options, compute=False) if use_cache else None
    kept = store_cache.cached_answer(answers_folder, key) if key is not None else None
    if kept is not None and isinstance(kept.get("answer"), dict) and isinstance(kept.get("warnings"), list):
        _warn(run, [tuple(kept["warnings"])])  # what reading the files warned of, as when they were read
        return kept["answer"]
    warned_before = len(run.warnings)
    job_id = uuid.uuid4().hex
    shared = run if run.con is not None else None
    with place:
        jobs = [RankCapture(inputs, nvtx, run.sources, run.rule_set, run.family_set, place.threads,
                            f"{job_id}-{n}") for n, inputs in enumerate(resolved)]
        labels = [job.inputs.gpu_trace.label for job in jobs]
        try:
            captures = place.map(facts, [(job, shared) for job in jobs], labels)
            _warn(run, [c.warnings for c in captures])
            sources = ranks.assign(captures, pattern)
            given = ranks.given_offsets(sources, options.get("offset") or [])
            alignment, collectives = ranks.align(captures, sources, shared_clock=len(captures) == 1,
                                                 offsets=given, time_range=window)
            captures = [ranks.without_collective_kernels(c) for c in captures]
            per_capture = [[s for s in sources if s.source == c.path] for c in captures]
            busy = ranks.BusyUnion()
            found = place.map(answers, [(job, mine, alignment, shared) for job, mine in zip(jobs, per_capture,
                                                                                            strict=True)],
                              labels, where_last=True, each=busy.take)
        finally:
            place.everywhere(forget, job_id)
    _warn(run, [a.warnings for a in found])
    result = with_keys(RANKS, ranks.analyse(captures, sources, alignment, collectives, found, busy, run.family_set,
                                                windowed=window is not None))
    if result["caveat"]:
        run.warnings.append(result["caveat"])
    if use_cache and key is None:  # the inputs' hashes are known now: the tasks learnt them
        key = _answer_key(run, resolved, options, compute=True)
    if key is not None:
        warning = store_cache.keep_answer(answers_folder, key, {"answer": result,
                                                                "warnings": run.warnings[warned_before:]})
        run.warnings.extend([warning] if warning else [])
    return result


def _warn(run: Run, warnings: list[tuple[str, ...]]) -> None:
    """The tasks' warnings, each once, after the run's own."""
    run.warnings.extend(w for w in dict.fromkeys(w for some in warnings for w in some) if w not in run.warnings)
