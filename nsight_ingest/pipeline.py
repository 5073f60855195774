"""What a command runs: open a capture from its files, resolve the windows asked for, analyse each."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from nsight_ingest import store
from nsight_ingest.analysis import integrity, scope
from nsight_ingest.errors import EmptyScope, InputError
from nsight_ingest.readers.source import is_sqlite, sibling


@dataclass
class Request:
    """The files and window options of one command line, and the warnings gathered while running it."""

    gpu_trace: str
    kern_exec: str | None = None
    nvtx_trace: str | None = None
    nvtx: str | None = None
    time_range: str | None = None
    per_nvtx: str | None = None
    ncu: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)


def open_capture(con: duckdb.DuckDBPyConnection, request: Request) -> store.Capture:
    """Ingest the capture's files, finding the kern_exec (and, for NVTX windows, nvtx) siblings by name."""
    chosen = [o for o in ("nvtx", "time_range", "per_nvtx") if getattr(request, o)]
    if len(chosen) > 1:
        raise InputError("choose one of --nvtx, --range, --per-nvtx")
    sqlite_export = is_sqlite(Path(request.gpu_trace))
    # an nsys SQLite export holds every report: it is its own kern_exec and NVTX trace
    kern_exec = request.kern_exec or (request.gpu_trace if sqlite_export else
                                      sibling(request.gpu_trace, "cuda_kern_exec_trace"))
    nvtx_trace = request.nvtx_trace or (request.gpu_trace if sqlite_export and (request.nvtx or request.per_nvtx)
                                        else None)
    if nvtx_trace is None and (request.nvtx or request.per_nvtx):
        nvtx_trace = sibling(request.gpu_trace, "nvtx_pushpop_trace")
        if nvtx_trace is None:
            raise InputError(f"no sibling nvtx_pushpop_trace for {request.gpu_trace}: give --nvtx-trace FILE")
    capture = store.ingest_capture(con, request.gpu_trace, kern_exec, nvtx_trace, request.ncu)
    request.warnings.extend(note for ingested, _ in capture.roles() for note in ingested.notes)
    if kern_exec is None:
        request.warnings.append(f"no sibling cuda_kern_exec_trace for {request.gpu_trace}: launch figures are null")
    return capture


def run(con: duckdb.DuckDBPyConnection, request: Request,
        analysis: Callable[[duckdb.DuckDBPyConnection, store.Capture, scope.Window | None], dict[str, Any]],
        question: dict[str, Any]) -> dict[str, Any]:
    """Run `analysis` on the whole capture, one window, or (with --per-nvtx) each matching NVTX range.

    `question` names the analysis and its options (rule-set version included); with the inputs' trace ids and
    the window options it keys the result in the store, so asking again reads the stored result."""
    capture = open_capture(con, request)
    key = json.dumps({**question, "inputs": sorted(i.trace_id for i, _ in capture.roles()),
                      "nvtx": request.nvtx, "range": request.time_range, "per_nvtx": request.per_nvtx},
                     sort_keys=True)
    result = store.cached_result(con, capture.capture_id, key)
    if result is None:
        result = _windows(con, request, capture, analysis)
        store.remember_result(con, capture.capture_id, key, result)
    for part in result.get("windows", [result]):
        request.warnings.extend(integrity.warnings(part["integrity"], capture))
    return result


def _windows(con: duckdb.DuckDBPyConnection, request: Request, capture: store.Capture,
             analysis: Callable[[duckdb.DuckDBPyConnection, store.Capture, scope.Window | None], dict[str, Any]]
             ) -> dict[str, Any]:
    if request.per_nvtx:
        results = []
        for window in scope.per_nvtx_windows(con, capture, request.per_nvtx):
            try:
                results.append(analysis(con, capture, window))
            except EmptyScope as exc:
                request.warnings.append(f"{exc}; skipped")
        return {"per_nvtx": request.per_nvtx, "windows": results}
    if request.nvtx:
        return analysis(con, capture, scope.nvtx_window(con, capture, request.nvtx))
    if request.time_range:
        return analysis(con, capture, scope.time_range(request.time_range))
    return analysis(con, capture, None)
