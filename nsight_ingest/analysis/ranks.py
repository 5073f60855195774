"""Several ranks (GPUs) of one job: align their clocks, then idle time, NCCL time, collective skew and waiting."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import duckdb

from nsight_ingest import windows
from nsight_ingest.analysis import communication, percent
from nsight_ingest.errors import InputError
from nsight_ingest.sqlmodules import Scope, fills
from nsight_ingest.store import TIME_LIMIT_NS, Capture

# How a rank appears in a file name by default: group 1 is the rank ('trace_rank3_...', 'run_r12_...').
RANK_PATTERN = r"(?:rank|_r)(\d+)"


@dataclass(frozen=True)
class RankSource:
    """Where one rank's kernels are: a trace and device, optionally a window of the rank's own clock."""

    rank: int
    source: str
    trace_id: int
    device: str
    window: tuple[int, int] | None = None
    label: str = ""  # what names the rank: the file name's rank text, or the device


def rank_regex(pattern: str | None) -> re.Pattern:
    """--rank-pattern (RANK_PATTERN when None) compiled; refused unless it is a regex with a group."""
    try:
        regex = re.compile(pattern or RANK_PATTERN)
    except re.error as exc:
        raise InputError(f"--rank-pattern {pattern!r}: not a regular expression ({exc})") from None
    if regex.groups < 1:
        raise InputError(f"--rank-pattern {pattern!r}: needs a group, (...), around the rank in the file name")
    return regex


def _devices(con: duckdb.DuckDBPyConnection, trace_id: int) -> list[tuple[str, int | None]]:
    return con.execute("SELECT DISTINCT coalesce(device, '(no device)'), device_index FROM gpu_ops WHERE trace_id = ? "
                       "ORDER BY device_index, 1", [trace_id]).fetchall()


def assign(con: duckdb.DuckDBPyConnection, captures: list[Capture], pattern: re.Pattern = re.compile(RANK_PATTERN)
           ) -> list[RankSource]:
    """Ranks from the file names (one capture per rank), or from the devices of a single capture. A file's rank is
    the text of the pattern's group 1: its number when every file's is a number, else its place in the sorted
    labels."""
    if len(captures) == 1:
        capture = captures[0]
        devices = _devices(con, capture.gpu_trace.trace_id)
        return [RankSource(index if device_index is None else device_index, capture.gpu_trace.path,
                           capture.gpu_trace.trace_id, device, label=device)
                for index, (device, device_index) in enumerate(devices)]
    labelled = []
    for capture in captures:
        name = capture.gpu_trace.path.replace("\\", "/").rsplit("/", 1)[-1]
        match = pattern.search(name)
        if not match or match.group(1) is None:
            raise InputError(f"{capture.gpu_trace.path}: no rank in the file name (pattern {pattern.pattern!r}; "
                             "use --rank-pattern)")
        devices = _devices(con, capture.gpu_trace.trace_id)
        if len(devices) != 1:
            raise InputError(f"{capture.gpu_trace.path}: a rank file must hold one device, it holds {len(devices)}")
        labelled.append((match.group(1), capture, devices[0][0]))
    labels = [label for label, _, _ in labelled]
    if len(set(labels)) != len(labels):
        raise InputError(f"two files give the same rank: {sorted(labels)}")
    numbered = all(label.isdecimal() for label in labels)
    order = {label: int(label) if numbered else index for index, label in enumerate(sorted(labels))}
    if len(set(order.values())) < len(order):  # 'rank01' and 'rank1'
        raise InputError(f"two files give the same rank: {', '.join(sorted(labels, key=order.get))}")
    return sorted((RankSource(order[label], c.gpu_trace.path, c.gpu_trace.trace_id, device, label=label)
                   for label, c, device in labelled), key=lambda s: s.rank)


def given_offsets(sources: list[RankSource], items: list[str]) -> dict[int, int]:
    """--offset RANK=NS items as {rank: ns}; RANK is a rank's label or number."""
    by_label = {s.label: s.rank for s in sources}
    numbers = {s.rank for s in sources}
    given = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            ns = int(value)
        except ValueError:
            raise InputError(f"--offset {item!r}: expected RANK=NS with NS an integer") from None
        if abs(ns) > TIME_LIMIT_NS:
            raise InputError(f"--offset {item!r}: offsets lie within +-{TIME_LIMIT_NS} ns")
        rank = by_label.get(key, int(key) if key.strip().lstrip("-").isdecimal() else None)
        if rank not in numbers:
            raise InputError(f"--offset {item!r}: no rank {key!r} (ranks: {', '.join(by_label)})")
        given[rank] = ns
    return given


def nvtx_steps(con: duckdb.DuckDBPyConnection, captures: list[Capture], sources: list[RankSource],
               name: str) -> list[RankSource]:
    """The sources with each rank's window set to its step: from the first start to the last end of its capture's
    NVTX ranges called `name`, on the rank's own clock."""
    steps = {}
    for capture in captures:
        ranges = windows.nvtx_window(con, capture, name).ranges
        steps[capture.gpu_trace.path] = (min(r[0] for r in ranges), max(r[1] for r in ranges))
    return [replace(source, window=steps[source.source]) for source in sources]


@fills("ranks.sources")
def fill_sources(scope: Scope) -> None:
    """Put the ranks' sources (context `sources`) into rank_sources."""
    scope.con.executemany("INSERT INTO rank_sources VALUES (?, ?, ?, ?, ?)",
                          [[s.rank, s.trace_id, s.device, *(s.window or (None, None))]
                           for s in scope.context["sources"]])


@fills("ranks.clock_offsets")
def fill_offsets(scope: Scope) -> None:
    """Put the chosen clock offsets (context `clocks`) into rank_offsets."""
    scope.con.executemany("INSERT INTO rank_offsets VALUES (?, ?)",
                          [[rank, clock["offset_ns"]] for rank, clock in scope.context["clocks"].items()])


def _offsets(scope: Scope, sources: list[RankSource], shared_clock: bool,
             given: dict[int, int]) -> dict[int, dict[str, Any]]:
    reference = sources[0].rank
    estimated = {} if shared_clock else {
        row["rank"]: row for row in scope.rows("ranks.clock_estimates", reference=reference)}
    offsets = {}
    for source in sources:
        row = estimated.get(source.rank)
        if source.rank in given:
            offsets[source.rank] = {"offset_ns": given[source.rank], "residual_ns": None, "matched": None,
                                    "how": "given"}
        elif shared_clock:
            offsets[source.rank] = {"offset_ns": 0, "residual_ns": None, "matched": None, "how": "shared clock"}
        elif row is None:
            offsets[source.rank] = {"offset_ns": 0, "residual_ns": None, "matched": 0,
                                    "how": "no matching collectives: not aligned"}
        else:
            offsets[source.rank] = {"offset_ns": int(row["offset_ns"]), "residual_ns": float(row["residual_ns"]),
                                    "matched": int(row["matched_collectives"]),
                                    "how": "reference" if source.rank == reference else "estimated"}
    return offsets


def analyse(scope: Scope, *, shared_clock: bool, offsets: dict[int, int] | None = None,
            time_range: tuple[int, int] | None = None) -> dict[str, Any]:
    """The multi-rank summary (the aligned span, every GPU idle, per-rank NCCL and all-gather time), per-rank
    blocks and per-collective skew, of the ranks' sources (the scope's context `sources`)."""
    sources: list[RankSource] = scope.context["sources"]
    clocks = _offsets(scope, sources, shared_clock, offsets or {})
    scope.context["clocks"] = clocks
    windows = [s.window for s in sources if s.window]
    if time_range:
        span_start, span_end = time_range
    elif windows:
        span_start = min(s.window[0] + clocks[s.rank]["offset_ns"] for s in sources if s.window)
        span_end = max(s.window[1] + clocks[s.rank]["offset_ns"] for s in sources if s.window)
    else:
        bounds = scope.row("ranks.span")
        if bounds["span_start"] is None:
            raise InputError("no kernels in any rank")
        span_start, span_end = int(bounds["span_start"]), int(bounds["span_end"])
    span = span_end - span_start
    span_params = {"span_start": span_start, "span_end": span_end}
    per_rank = {row["rank"]: row for row in scope.rows("ranks.per_rank", **span_params)}
    scope.values.update(span_params)  # the ranks' communication kernels are clipped to the span
    overlap = communication.by_device(scope, [str(source.rank) for source in sources])
    busy = int(scope.row("ranks.all_idle", **span_params)["busy_union_ns"])
    idle = span - busy
    result: dict[str, Any] = {
        "aligned_profile_span_seconds": span / 1e9,
        "non_nccl_kernel_seconds_per_gpu": [int(per_rank.get(s.rank, {}).get("non_nccl_kernel_ns", 0)) / 1e9
                                            for s in sources],
    }
    ranks = []
    for source in sources:
        row = per_rank.get(source.rank, {})
        step = (source.window[1] - source.window[0]) if source.window and not time_range else span
        union_percent = percent(row.get("kernel_union_ns", 0), step)
        result[f"rank{source.rank}_kernel_union_percent_of_rank_step"] = union_percent
        ranks.append({
            "rank": source.rank, "label": source.label, "source": source.source, "device": source.device,
            "kernel_count": int(row.get("kernel_count", 0)), "nccl_kernel_count": int(row.get("nccl_kernel_count", 0)),
            "nccl_kernel_ms": int(row.get("nccl_kernel_ns", 0)) / 1e6,
            "non_nccl_kernel_seconds": int(row.get("non_nccl_kernel_ns", 0)) / 1e9,
            "kernel_union_percent": union_percent,
            "clock_offset_ns": clocks[source.rank]["offset_ns"],
            "clock_offset_residual_ns": clocks[source.rank]["residual_ns"],
            "clock": clocks[source.rank]["how"],
            "matched_collectives": clocks[source.rank]["matched"],
            "communication": overlap[str(source.rank)],
        })
    result["both_gpus_idle_ms"] = idle / 1e6
    result["both_gpus_idle_percent_of_aligned_span"] = percent(idle, span)
    if len(sources) > 2:
        result["all_gpus_idle_ms"] = idle / 1e6
    for source in sources:
        result[f"rank{source.rank}_all_gather_ms"] = int(per_rank.get(source.rank, {}).get("all_gather_ns", 0)) / 1e6
    result["ranks"] = ranks
    result["communication"] = overlap[None]
    result["rank_labels"] = {str(s.rank): s.label for s in sources}
    result["collectives"] = _collectives(scope.rows("ranks.collectives", ranks=len(sources)))
    result["aligned_span_ns"] = [span_start, span_end]
    return result


def _collectives(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per collective type: instances, arrival skew, and per rank the time waited and how often it came last."""
    result: dict[str, Any] = {}
    for row in rows:
        entry = result.setdefault(row["collective"], {
            "instances": int(row["instances"]), "skew_total_ms": int(row["skew_sum_ns"]) / 1e6,
            "skew_max_ms": int(row["skew_max_ns"]) / 1e6, "wait_ms_by_rank": {}, "caused_wait_ms_by_rank": {},
            "arrived_last_by_rank": {}})
        entry["wait_ms_by_rank"][str(row["rank"])] = int(row["wait_ns"]) / 1e6
        entry["caused_wait_ms_by_rank"][str(row["rank"])] = int(row["caused_wait_ns"]) / 1e6
        entry["arrived_last_by_rank"][str(row["rank"])] = int(row["arrived_last"])
    for entry in result.values():
        waits, caused = entry["wait_ms_by_rank"], entry["caused_wait_ms_by_rank"]
        # the rank that waited longest in total, and the one whose late arrivals made the others wait longest
        entry["waiting_rank"] = int(max(waits, key=waits.get)) if any(waits.values()) else None
        entry["late_rank"] = int(max(caused, key=caused.get)) if any(caused.values()) else None
    return result
