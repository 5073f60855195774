"""Several ranks (GPUs) of one job: align their clocks, then idle time, NCCL time, collective skew and waiting.

Each rank's capture is measured where it is read (its own store, in this process or on a Dask worker) in two
steps, and only small facts travel: first its devices, NVTX step, kernel bounds and collective kernels
(`capture_facts`); from every rank's facts the clock offsets and the aligned span (`align`); then, given those,
its per-rank figures, communication overlap and busy intervals (`capture_answers`); last, every rank's together
(`analyse`: the union of the busy intervals is the time some GPU ran a kernel)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import duckdb

from nsight_ingest import store, windows
from nsight_ingest.analysis import communication, inputs_block, percent, rules_block
from nsight_ingest.errors import InputError
from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope, ScopeContext
from nsight_ingest.store import TIME_LIMIT_NS, Capture
from nsight_ingest.tables import escape, grid, new_console
from nsight_ingest.text import ms, pct

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from rich.console import Console

# How a rank appears in a file name by default: group 1 is the rank ('trace_rank3_...', 'run_r12_...').
RANK_PATTERN = r"(?:rank|_r)(\d+)"

# How a rank's clock reads when no collective matched the reference's: it is then taken as is (offset 0).
NOT_ALIGNED = "no matching collectives: not aligned"
# What the cross-rank figures mean when some rank's clock could not be aligned.
UNALIGNED_CAVEAT = ("the clocks of rank(s) {ranks} could not be aligned (no collective matches the reference "
                    "rank's): their offsets are taken as 0, so the aligned span, the time all GPUs were idle and the "
                    "collective skew assume those clocks agree; give --offset RANK=NS where the offset is known")
# The client's small store, where only the ranks' collective kernels are: they stand in for every kernel.
GATHERED_SUBSTITUTES = {"ranks.kernels": "ranks.gathered_nccl_kernels"}


@dataclass(frozen=True)
class RankSource:
    """Where one rank's kernels are: a trace and device, optionally a window of the rank's own clock."""

    rank: int
    source: str
    trace_id: int
    device: str
    window: tuple[int, int] | None = None
    label: str = ""  # what names the rank: the file name's rank text, or the device


@dataclass(frozen=True)
class DeviceFacts:
    """What one device of a rank capture tells before the ranks are aligned."""

    device: str
    device_index: int | None
    bounds: tuple[int, int] | None  # first kernel start, last kernel end, own clock (ns); None without kernels
    nccl_kernels: pa.Table  # its rows of ranks.nccl_kernels (rank column: the device's place in the capture)


@dataclass(frozen=True)
class CaptureFacts:
    """What one rank capture tells before the ranks are aligned: its devices and its NVTX step."""

    path: str
    trace_id: int
    devices: tuple[DeviceFacts, ...]
    step: tuple[int, int] | None = None  # the --nvtx step on the capture's own clock
    inputs: tuple[dict[str, Any], ...] = ()  # its files: path, role, sha256, rows (analysis.inputs_block)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Alignment:
    """The ranks on one clock: each rank's offset (and how it was found) and the span analysed."""

    clocks: dict[int, dict[str, Any]]
    span: tuple[int, int]


@dataclass(frozen=True)
class CaptureAnswers:
    """One rank capture's figures on the aligned clock: per rank, communication overlap rows, busy intervals."""

    per_rank: list[dict[str, Any]]
    overlap: list[dict[str, Any]]
    busy_starts: np.ndarray
    busy_ends: np.ndarray
    warnings: tuple[str, ...] = field(default=())


class BusyUnion:
    """The union of the ranks' busy intervals (disjoint, ordered by start), folded in one rank's answers at a time
    as they come back, so the client holds the union and one rank's intervals, not every rank's."""

    def __init__(self) -> None:
        import numpy as np

        self.starts, self.ends = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def take(self, answers: CaptureAnswers) -> CaptureAnswers:
        """Fold in the answers' busy intervals; the answers without them."""
        from nsight_ingest import passes  # numpy: imported when ranks are merged, not by every command

        self.starts, self.ends = passes.merged_unions((self.starts, self.ends),
                                                      (answers.busy_starts, answers.busy_ends))
        return replace(answers, busy_starts=self.starts[:0], busy_ends=self.ends[:0])

    @property
    def busy_ns(self) -> int:
        """The length of the union: the time some GPU ran a kernel (ns)."""
        return int((self.ends - self.starts).sum())


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


def capture_facts(con: duckdb.DuckDBPyConnection, capture: Capture, nvtx: str | None) -> CaptureFacts:
    """A rank capture's devices, each with its kernel bounds and collective kernels (inside its --nvtx step)."""
    import pyarrow as pa

    devices = _devices(con, capture.gpu_trace.trace_id)
    step = None
    if nvtx:
        ranges = windows.nvtx_window(con, capture, nvtx).ranges
        step = (min(r[0] for r in ranges), max(r[1] for r in ranges))
    sources = [RankSource(place, capture.gpu_trace.path, capture.gpu_trace.trace_id, device, step)
               for place, (device, _) in enumerate(devices)]
    scope = Scope(con, {}, ScopeContext(sources=tuple(sources)))
    bounds = {row["rank"]: (int(row["first_start_ns"]), int(row["last_end_ns"])) for row in scope.rows("ranks.bounds")}
    nccl = scope.table("ranks.nccl_kernels")
    # a handful of collective names: as a dictionary they travel in a byte a kernel instead of their text
    nccl = nccl.set_column(nccl.schema.get_field_index("collective"), "collective",
                           nccl.column("collective").dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())))
    places = nccl.column("rank").to_numpy()
    return CaptureFacts(capture.gpu_trace.path, capture.gpu_trace.trace_id, tuple(
        DeviceFacts(device, index, bounds.get(place), nccl.filter(pa.array(places == place)))
        for place, (device, index) in enumerate(devices)), step, tuple(inputs_block(capture.roles())))


def assign(captures: list[CaptureFacts], pattern: re.Pattern = re.compile(RANK_PATTERN)) -> list[RankSource]:
    """Ranks from the file names (one capture per rank), or from the devices of a single capture. A file's rank is
    the text of the pattern's group 1: its number when every file's is a number, else its place in the sorted
    labels. A rank's window is its capture's NVTX step."""
    if len(captures) == 1:
        capture = captures[0]
        return [RankSource(place if d.device_index is None else d.device_index, capture.path, capture.trace_id,
                           d.device, capture.step, label=d.device) for place, d in enumerate(capture.devices)]
    labelled = []
    for capture in captures:
        name = capture.path.replace("\\", "/").rsplit("/", 1)[-1]
        match = pattern.search(name)
        if not match or match.group(1) is None:
            raise InputError(f"{capture.path}: no rank in the file name (pattern {pattern.pattern!r}; "
                             "use --rank-pattern)")
        if len(capture.devices) != 1:
            raise InputError(f"{capture.path}: a rank file must hold one device, it holds {len(capture.devices)}")
        labelled.append((match.group(1), capture))
    labels = [label for label, _ in labelled]
    if len(set(labels)) != len(labels):
        raise InputError(f"two files give the same rank: {sorted(labels)}")
    numbered = all(label.isdecimal() for label in labels)
    order = {label: int(label) if numbered else index for index, label in enumerate(sorted(labels))}
    if len(set(order.values())) < len(order):  # 'rank01' and 'rank1'
        raise InputError(f"two files give the same rank: {', '.join(sorted(labels, key=order.get))}")
    return sorted((RankSource(order[label], c.path, c.trace_id, c.devices[0].device, c.step, label=label)
                   for label, c in labelled), key=lambda s: s.rank)


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


def _device_facts(captures: list[CaptureFacts], source: RankSource) -> DeviceFacts:
    (capture,) = [c for c in captures if c.path == source.source]
    (found,) = [d for d in capture.devices if d.device == source.device]
    return found


def without_collective_kernels(capture: CaptureFacts) -> CaptureFacts:
    """A capture's facts less their collective kernels, which only the alignment reads (a rank of 2M kernels holds
    some 25 MB of them: a client that kept every rank's would hold them all through the second step)."""
    # an empty table of the schema: a slice of none would still hold the buffers it was cut from
    return replace(capture, devices=tuple(replace(d, nccl_kernels=d.nccl_kernels.schema.empty_table())
                                          for d in capture.devices))


def align(captures: list[CaptureFacts], sources: list[RankSource], *, shared_clock: bool,
          offsets: dict[int, int] | None = None, time_range: tuple[int, int] | None = None
          ) -> tuple[Alignment, list[dict[str, Any]]]:
    """The ranks' clock offsets and the aligned span (the --range, the ranks' NVTX steps, or every kernel), and
    the per-collective skew rows (ranks.collectives): what needs every rank's collective kernels together."""
    con = store.connect()
    try:
        nccl = {s.rank: _device_facts(captures, s).nccl_kernels for s in sources}
        scope = Scope(con, {}, ScopeContext(nccl_kernels=nccl), GATHERED_SUBSTITUTES)
        clocks = _offsets(scope, sources, shared_clock, offsets or {})
        scope.context = replace(scope.context, clocks=clocks)  # the collectives are aligned with them
        if time_range:
            span = time_range
        elif any(s.window for s in sources):
            span = (min(s.window[0] + clocks[s.rank]["offset_ns"] for s in sources if s.window),
                    max(s.window[1] + clocks[s.rank]["offset_ns"] for s in sources if s.window))
        else:
            bounded = [(s, _device_facts(captures, s).bounds) for s in sources]
            aligned = [(b[0] + clocks[s.rank]["offset_ns"], b[1] + clocks[s.rank]["offset_ns"])
                       for s, b in bounded if b]
            if not aligned:
                raise InputError("no kernels in any rank")
            span = (min(a[0] for a in aligned), max(a[1] for a in aligned))
        return Alignment(clocks, span), scope.rows("ranks.collectives", ranks=len(sources))
    finally:
        con.close()


def capture_answers(scope: Scope, alignment: Alignment) -> CaptureAnswers:
    """One rank capture's figures on the aligned clock, clipped to the span: per rank (ranks.per_rank), the
    communication overlap rows (one device per rank) and the busy intervals (ranks.busy). The scope's context
    holds the capture's sources and the family set."""
    span = {"span_start": alignment.span[0], "span_end": alignment.span[1]}
    scope.context = replace(scope.context, clocks={s.rank: alignment.clocks[s.rank] for s in scope.context.sources})
    scope.values.update(span)  # the ranks' communication kernels are clipped to the span
    busy = scope.table("ranks.busy", **span)
    return CaptureAnswers(scope.rows("ranks.per_rank", **span), scope.rows("communication.overlap"),
                          busy.column("start_ns").to_numpy(), busy.column("end_ns").to_numpy())


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
        elif row is None and source.rank == reference:  # the clock the others align to, collectives or none
            offsets[source.rank] = {"offset_ns": 0, "residual_ns": None, "matched": 0, "how": "reference"}
        elif row is None:
            offsets[source.rank] = {"offset_ns": 0, "residual_ns": None, "matched": 0, "how": NOT_ALIGNED}
        else:
            offsets[source.rank] = {"offset_ns": int(row["offset_ns"]), "residual_ns": float(row["residual_ns"]),
                                    "matched": int(row["matched_collectives"]),
                                    "how": "reference" if source.rank == reference else "estimated"}
    return offsets


def analyse(captures: list[CaptureFacts], sources: list[RankSource], alignment: Alignment,
            collectives: list[dict[str, Any]], answers: list[CaptureAnswers], busy: BusyUnion, family_set: RuleSet,
            *, windowed: bool) -> dict[str, Any]:
    """The multi-rank summary (the aligned span, every GPU idle, per-rank NCCL and all-gather time), per-rank
    blocks and per-collective skew, from every rank capture's answers and the union of their busy intervals, with
    the input files and the family rules that name the communication kernels; `windowed`: a --range was given
    (each rank's step is then the span, not its NVTX step)."""
    clocks = alignment.clocks
    span_start, span_end = alignment.span
    span = span_end - span_start
    per_rank = {row["rank"]: row for answer in answers for row in answer.per_rank}
    overlap = communication.by_device([row for answer in answers for row in answer.overlap],
                                      [str(source.rank) for source in sources])
    idle = span - busy.busy_ns
    unaligned = [s.rank for s in sources if clocks[s.rank]["how"] == NOT_ALIGNED]
    result: dict[str, Any] = {
        "aligned": not unaligned, "unaligned_ranks": unaligned,
        "caveat": UNALIGNED_CAVEAT.format(ranks=", ".join(map(str, unaligned))) if unaligned else None,
        "aligned_profile_span_seconds": span / 1e9,
        "non_nccl_kernel_seconds_per_gpu": [int(per_rank.get(s.rank, {}).get("non_nccl_kernel_ns", 0)) / 1e9
                                            for s in sources],
    }
    ranks = []
    for source in sources:
        row = per_rank.get(source.rank, {})
        step = (source.window[1] - source.window[0]) if source.window and not windowed else span
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
    result["collectives"] = _collectives(collectives)
    result["aligned_span_ns"] = [span_start, span_end]
    result["inputs"] = [found for capture in captures for found in capture.inputs]
    result["family_set"] = rules_block(family_set)
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


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The multi-rank summary as text."""
    console = console or new_console(width=150)
    console.print(f"aligned span {result['aligned_profile_span_seconds']:.6f} s; all GPUs idle"
                  f" {result['both_gpus_idle_ms']:,.3f} ms ({pct(result['both_gpus_idle_percent_of_aligned_span'])})"
                  f"{'' if result['aligned'] else ' (NOT ALIGNED: ' + result['caveat'] + ')'}", highlight=False)
    table = grid()
    for column in ("rank", "device", "kernels", "NCCL kernels", "NCCL ms", "non-NCCL s", "kernel union %",
                   "comm. ms", "exposed ms", "overlap %", "clock offset ns", "residual ns", "clock"):
        table.add_column(column, justify="left" if column in ("device", "clock") else "right")
    for r in result["ranks"]:
        residual = "-" if r["clock_offset_residual_ns"] is None else f"{r['clock_offset_residual_ns']:,.0f}"
        comm = r["communication"] or {}
        table.add_row(str(r["rank"]), escape(r["device"]), str(r["kernel_count"]), str(r["nccl_kernel_count"]),
                      f"{r['nccl_kernel_ms']:,.3f}", f"{r['non_nccl_kernel_seconds']:.6f}",
                      pct(r["kernel_union_percent"]), ms(comm.get("time_ns")), ms(comm.get("exposed_ns")),
                      pct(comm.get("overlap_percent")), f"{r['clock_offset_ns']:,}", residual, r["clock"])
    console.print(table)
    collectives = grid(title="collectives (matched by order across ranks)")
    for column in ("collective", "instances", "skew total ms", "skew max ms", "waiting rank", "late rank",
                   "wait ms by rank"):
        collectives.add_column(column)
    for name, c in result["collectives"].items():
        waits = ", ".join(f"{rank}: {ms:,.3f}" for rank, ms in c["wait_ms_by_rank"].items())
        collectives.add_row(name, str(c["instances"]), f"{c['skew_total_ms']:,.3f}", f"{c['skew_max_ms']:,.3f}",
                            str(c["waiting_rank"]), str(c["late_rank"]), waits)
    console.print(collectives)
