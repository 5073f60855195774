"""A capture's timeline as a file: Perfetto's protobuf trace format (TrackEvent packets built with the perfetto
package's generated proto classes), or Chrome's trace-event JSON for a path ending in `.json` (chrome://tracing and
ui.perfetto.dev open both).

What it holds (the rows of nsight_ingest.analysis.timeline):
- a process per GPU: a counter of the time some kernel runs (% of each bin), a track per stream with its kernels,
  memcpys and memsets, the largest gaps marked with their idle cause, and a counter per kernel family;
- a process per CPU process: a track per thread with its CUDA API calls (flow arrows go from each launch call to
  its kernels) and a track per thread with its NVTX ranges.
Slices that overlap without nesting on one track (kernels of one stream that overlap, say) go to a second lane, a
track of the same name marked "(overlapping N)". Events are written in time order; past `max_events` slices and
counter samples the timeline is cut at the time the limit is reached.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby, pairwise
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from nsight_ingest import cache, passes
from nsight_ingest.analysis.idle import GAP_CAUSES
from nsight_ingest.analysis.timeline import NO_CUT_NS
from nsight_ingest.errors import InputError
from nsight_ingest.report import output_checked
from nsight_ingest.text import duration

GPU_PID_BASE = 1 << 30  # the pid of a device's process: above any Linux pid (pid_max is at most 2^22)
TRACK_TID_BASE = 1 << 30  # in JSON, the thread id of a track that is no thread of the capture (streams, NVTX)
UNKNOWN_PID = GPU_PID_BASE - 1  # API calls or ranges of an export that names no process
PATH_PID = GPU_PID_BASE - 2  # the critical path's process (shown first)

# Event order at one timestamp: slices ending, zero-length slices (each begun and ended at once), counter samples,
# slices beginning.
END, ZERO_LENGTH, SAMPLE, BEGIN = range(4)

BUSY = "GPU busy % (union of kernels)"
KINDS = ("gpu_slices", "gap_markers", "cpu_slices", "nvtx_slices")
# The order of a device's tracks: the busy counter, the streams in id order (each with its lanes), the largest gaps,
# the family counters.
BUSY_RANK, STREAM_RANK, LANES, GAPS_RANK, FAMILY_RANK = 0, 1, 1000, 1_000_000_000, 1_500_000_000
CHUNK = 1 << 16  # events turned into Python values at a time
PART = 1 << 16  # slice starts read from the store at a time: their events are ordered in memory
SLICE_KINDS = ("gpu_slices", "cpu_slices", "nvtx_slices")  # the kinds the store holds (gap markers are few)
GPU_ARGUMENTS = ("op_kind", "name", "component", "sub_component", "family", "stream_id", "corr_id", "duration_ns",
                 "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "transfer_bytes", "src_mem_kind",
                 "dst_mem_kind", "nvtx_group")


@dataclass
class Track:
    """A row of the timeline: a thread's own track (`tid`), a counter (`unit`) or a named track of its process."""

    uuid: int
    pid: int
    name: str
    rank: int
    tid: int | None = None
    unit: str | None = None
    description: str = ""
    json_tid: int = 0  # the thread id that stands for it in JSON


class Coded(Sequence):
    """A column of values held as codes into its distinct values (a dictionary-encoded Arrow column): millions of
    critical path segments name a few kernels and calls, and Python objects per row would take gigabytes."""

    def __init__(self, codes: np.ndarray, values: list[Any]) -> None:
        self.codes, self.values = codes, values

    @classmethod
    def of(cls, column: pa.ChunkedArray | list[Any]) -> Coded:
        """The column, encoded (NULL: code -1)."""
        array = pa.array(column) if isinstance(column, list) else column.combine_chunks()
        if not len(array):
            return cls(np.zeros(0, dtype=np.int64), [])
        encoded = pc.dictionary_encode(array)
        return cls(np.asarray(encoded.indices.fill_null(-1)), encoded.dictionary.to_pylist())

    def __getitem__(self, row: Any) -> Any:
        code = self.codes[row]
        return None if code < 0 else self.values[code]

    def __len__(self) -> int:
        return len(self.codes)

    def __add__(self, other: Coded) -> Coded:
        return Coded(np.concatenate([self.codes, np.where(other.codes < 0, -1, other.codes + len(self.values))]),
                     self.values + other.values)


@dataclass
class Markers:
    """The largest gaps and the critical path's segments as slices (held here, where the other slices stay in the
    store: the gaps are few, the path at most a few per node on it, its names and arguments encoded)."""

    start: np.ndarray
    end: np.ndarray
    tracks: np.ndarray  # index into Timeline.tracks
    depth: np.ndarray  # nesting depth on its track (0: outermost)
    name: Coded
    columns: dict[str, Coded]  # argument name -> its value per marker
    kind: Coded  # what each one is: gap_markers or critical_path (the count it adds to)

    def args(self, row: int) -> dict[str, Any]:
        """The arguments of one marker."""
        return {name: value for name, values in self.columns.items() if (value := values[row]) is not None}

    def __add__(self, other: Markers) -> Markers:
        def absent(count: int) -> Coded:
            return Coded(np.full(count, -1), [])

        names = list(dict.fromkeys([*self.columns, *other.columns]))
        return Markers(*(np.concatenate([getattr(self, a), getattr(other, a)]) for a in ("start", "end", "tracks",
                                                                                         "depth")),
                       self.name + other.name,
                       {n: self.columns.get(n, absent(len(self.name))) + other.columns.get(n, absent(len(other.name)))
                        for n in names},
                       self.kind + other.kind)


@dataclass
class Timeline:
    """What to write besides the slices the store holds: processes, tracks, gap markers, counter samples."""

    processes: dict[int, tuple[str, int]] = field(default_factory=dict)  # pid -> (name, rank)
    tracks: list[Track] = field(default_factory=list)
    # per slice kind and track key (device and stream, or pid and tid), the track of each of its lanes
    placed: dict[tuple[str, Any, Any], list[int]] = field(default_factory=dict)
    markers: Markers | None = None
    samples: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)  # (ts, value, track)
    slices: int = 0  # GPU operations, API calls and NVTX ranges
    earliest_ns: int | None = None  # the earliest start of a slice, marker or sample

    def track(self, pid: int, name: str, rank: int, **kwargs: Any) -> int:
        """Add a track (in JSON a thread of its own unless it is a thread's); its index."""
        json_tid = kwargs.get("tid") if kwargs.get("tid") is not None else TRACK_TID_BASE + len(self.tracks)
        self.tracks.append(Track(len(self.tracks) + 1, pid, name, rank, **kwargs, json_tid=json_tid))
        return len(self.tracks) - 1


def _column(table: pa.Table, name: str) -> list[Any]:
    return table.column(name).to_pylist()


def _times(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy().astype(np.int64)


def _runs(keys: list[Any]) -> Iterator[tuple[int, int]]:
    """(first, end) of each run of equal keys, in order."""
    first = 0
    for _, run in groupby(keys):
        length = sum(1 for _ in run)
        yield first, first + length
        first += length


def _lane_name(name: str, lane: int) -> str:
    return name if lane == 0 else f"{name} (overlapping {lane})"


def _thread_key(pid: int | None, tid: int | None) -> tuple[int, int | None]:
    """A thread's key (UNKNOWN_PID where the export names no process)."""
    return UNKNOWN_PID if pid is None else pid, tid


def _gpu(timeline: Timeline, keys: list[dict[str, Any]], device_pids: dict[str, int]) -> None:
    """A track per stream of each device (and per lane of overlapping kernels), in order of stream."""
    streams_before: dict[str, int] = {}  # per device, its streams placed so far: a stream's place among them
    for key in keys:
        device, stream = key["device"], key["stream_id"]
        streams_before[device] = streams_before.get(device, -1) + 1
        name = f"Stream {stream if stream is not None else '?'}"
        timeline.placed[("gpu_slices", device, stream)] = [
            timeline.track(device_pids[device], _lane_name(name, lane),
                           STREAM_RANK + streams_before[device] * LANES + lane) for lane in range(key["lanes"])]


def _threads(timeline: Timeline, rows: dict[str, Any],
             keys: list[tuple[int, int | None]]) -> dict[tuple[int, int | None], str]:
    """Each thread of `keys` with its name (its API trace name, else 'Thread TID'), its process registered."""
    names = {(r["pid"], r["tid"]): r["thread_name"] for r in rows["threads"]}
    found: dict[tuple[int, int | None], str] = {}
    for pid, tid in keys:
        if (pid, tid) not in found:
            found[(pid, tid)] = names.get((pid, tid)) or f"Thread {tid if tid is not None else '?'}"
            main = names.get((pid, pid))  # the thread whose id is the process's names it
            name = "Unknown process" if pid == UNKNOWN_PID else f"{main} (pid {pid})" if main else f"Process {pid}"
            timeline.processes.setdefault(pid, (name, 1000 + len(timeline.processes)))
    return found


def _cpu(timeline: Timeline, rows: dict[str, Any], keys: dict[str, list[dict[str, Any]]]) -> None:
    """Per thread, a track of its API calls (its own track) and one of its NVTX ranges, each with lanes."""
    thread_keys = {kind: [_thread_key(k["pid"], k["tid"]) for k in keys[kind]]
                   for kind in ("cpu_slices", "nvtx_slices")}
    thread_names = _threads(timeline, rows, thread_keys["cpu_slices"] + thread_keys["nvtx_slices"])
    order = {key: number for number, key in enumerate(sorted(thread_names, key=lambda k: (k[0], k[1] or 0)))}
    for kind, nvtx in (("cpu_slices", False), ("nvtx_slices", True)):
        for key, track_key in zip(keys[kind], thread_keys[kind], strict=True):
            pid, tid = track_key
            thread = thread_names[track_key]
            rank = 2 * order[track_key] + (1 if nvtx else 0)
            made = []
            for lane in range(key["lanes"]):
                if nvtx:
                    made.append(timeline.track(pid, _lane_name(f"NVTX · {thread}", lane), rank))
                elif lane == 0 and tid is not None:  # the thread's own track
                    made.append(timeline.track(pid, thread, rank, tid=tid))
                else:
                    made.append(timeline.track(pid, _lane_name(f"CUDA API · {thread}", lane), rank))
            timeline.placed[(kind, *track_key)] = made


def _counters(timeline: Timeline, rows: dict[str, Any], device_pids: dict[str, int]) -> None:
    """Per device and series, a sample per bin (the % of the bin) where the value changes, and one closing the last
    bin at 0."""
    counters: pa.Table = rows["counters"]
    devices, families = _column(counters, "device"), _column(counters, "family")
    start, width = _times(counters, "bin_start_ns"), _times(counters, "bin_ns")
    value = _times(counters, "time_ns") * 100.0 / np.maximum(width, 1)
    for first, last in _runs(list(zip(devices, families, strict=True))):
        family = families[first]
        name, rank = (BUSY, BUSY_RANK) if family is None else (f"{family} kernel time %", FAMILY_RANK)
        described = ("the time some kernel of the device runs" if family is None else
                     f"the summed time of {family} kernels (several streams at once: over 100%)")
        track = timeline.track(device_pids[devices[first]], name, rank, unit="%",
                               description=f"{described}, as % of each {int(width[first])} ns bin")
        ts = np.append(start[first:last], start[last - 1] + width[last - 1])
        values = np.append(value[first:last], 0.0)
        changed = np.append(True, values[1:] != values[:-1])  # a counter holds its value: repeats say nothing
        changed[-1] = True
        timeline.samples.append((ts[changed], values[changed], np.full(int(changed.sum()), track)))


def _gaps(timeline: Timeline, rows: dict[str, Any], device_pids: dict[str, int]) -> None:
    gaps = sorted(rows["gaps"], key=lambda g: (g["device"], g["gap_start_ns"]))
    if not gaps:
        return
    start = np.array([g["gap_start_ns"] for g in gaps], dtype=np.int64)
    end = np.array([g["gap_end_ns"] for g in gaps], dtype=np.int64)
    tracks = np.zeros(len(gaps), dtype=np.int64)
    depth = np.zeros(len(gaps), dtype=np.int64)
    for first, last in _runs([g["device"] for g in gaps]):
        lane, depth[first:last] = passes.lanes(start[first:last], end[first:last])
        made = [timeline.track(device_pids[gaps[first]["device"]], _lane_name("Largest idle gaps", number),
                               GAPS_RANK + number) for number in range(int(lane.max()) + 1)]
        tracks[first:last] = np.array(made)[lane]
    names = [f"idle {duration(g['gap_ns'], precise=True)}: {(g['idle_cause'] or 'unknown').replace('_', ' ')}"
             for g in gaps]
    keys = ("gap_ns", "idle_cause", *GAP_CAUSES,
            "before", "before_component", "after", "after_component", "stream_id")
    timeline.markers = Markers(start, end, tracks, depth, Coded.of(names),
                               {key: Coded.of([g[key] for g in gaps]) for key in keys},
                               Coded.of(["gap_markers"] * len(gaps)))


def _path(timeline: Timeline, path: pa.Table | None) -> None:
    """The critical path's segments on a track of their own, each named by its category and node."""
    if path is None or not path.num_rows:
        return
    timeline.processes[PATH_PID] = ("Critical path", -1)
    track = timeline.track(PATH_PID, "critical path (critical-path)", 0)
    category = pc.replace_substring(path.column("category"), "_", " ")
    short = path.column("short_name")
    labels = pc.if_else(pc.is_null(short), category, pc.binary_join_element_wise(category, short, ": "))
    start = _times(path, "start_ns")
    segments = Markers(start, _times(path, "end_ns"), np.full(len(start), track), np.zeros(len(start), np.int64),
                       Coded.of(labels),
                       {name: Coded.of(path.column(name))
                        for name in ("category", "name", "device", "stream_id", "pid", "tid")},
                       Coded(np.zeros(len(start), np.int64), ["critical_path"]))
    timeline.markers = segments if timeline.markers is None else timeline.markers + segments


def build(rows: dict[str, Any]) -> Timeline:
    """The processes and tracks of a timeline's rows (nsight_ingest.analysis.timeline), its gap markers and counter
    samples."""
    timeline = Timeline()
    keys: dict[str, list[dict[str, Any]]] = {kind: [] for kind in SLICE_KINDS}
    for key in rows["slices"].tracks():
        keys[key["kind"]].append(key)
    for found in keys.values():
        found.sort(key=lambda k: k["first_row"])
    devices = sorted({k["device"] for k in keys["gpu_slices"]} | set(pc.unique(rows["counters"].column("device"))
                                                                       .to_pylist()),
                     key=lambda d: (d.rsplit("(", 1)[-1].rstrip(")").zfill(8), d))
    device_pids = {device: GPU_PID_BASE + number for number, device in enumerate(devices)}
    for device, pid in device_pids.items():
        timeline.processes[pid] = (device, pid - GPU_PID_BASE)
    _counters(timeline, rows, device_pids)
    _gpu(timeline, keys["gpu_slices"], device_pids)
    _gaps(timeline, rows, device_pids)
    _path(timeline, rows.get("critical_path"))
    _cpu(timeline, rows, keys)
    timeline.slices = sum(k["slices"] for found in keys.values() for k in found)
    firsts = [k["first_start_ns"] for found in keys.values() for k in found] + \
        [int(ts[0]) for ts, _, _ in timeline.samples if len(ts)] + \
        ([int(timeline.markers.start.min())] if timeline.markers else [])
    timeline.earliest_ns = min(firsts, default=None)
    return timeline


@dataclass(frozen=True)
class Cut:
    """Where a timeline over the limit is cut: slices and samples starting at or after `at_ns` are left out."""

    at_ns: int | None
    total: int  # slices and counter samples of the whole timeline


def cut(timeline: Timeline, slices: Any, max_events: int) -> Cut:
    """The latest time before which the slices and counter samples that start, with a closing sample for each counter
    cut short, are at most `max_events` (`slices`: where the timeline's slices are, analysis.timeline.Slices)."""
    marks = [ts for ts, _, _ in timeline.samples] + ([timeline.markers.start] if timeline.markers else [])
    total = timeline.slices + sum(len(m) for m in marks)
    if total <= max_events:
        return Cut(None, total)
    # the earliest max_events + 1 of all: the slices' earliest that many and every mark (few) hold them
    starts = np.sort(np.concatenate([slices.earliest_cut_times(max_events + 1), *marks]))
    index = max_events
    while True:
        at = int(starts[index])
        closing = sum(1 for ts, _, _ in timeline.samples if len(ts) and ts[0] < at <= ts[-1])
        over = int(np.searchsorted(starts, at)) + closing - max_events
        if over <= 0 or index == 0:
            return Cut(at, total)
        index = max(0, index - over)


@dataclass
class _Part:
    """The events of one stretch of time, column-wise: what orders them and where each one's slice is."""

    ts: list[np.ndarray] = field(default_factory=list)
    phase: list[np.ndarray] = field(default_factory=list)
    second: list[np.ndarray] = field(default_factory=list)
    third: list[np.ndarray] = field(default_factory=list)
    group: list[np.ndarray] = field(default_factory=list)  # the events' kind, begins before ends: ties keep it
    row: list[np.ndarray] = field(default_factory=list)
    source: list[np.ndarray] = field(default_factory=list)
    position: list[np.ndarray] = field(default_factory=list)

    def slices(self, source: int, group: int | np.ndarray, start: np.ndarray, end: np.ndarray, depth: np.ndarray,
               row: np.ndarray, is_end: bool, position: np.ndarray | None = None) -> None:
        """Add the begins (or ends) of slices; `row` is their place in their kind's order, `position` where the
        source holds each (default: 0, 1, ...)."""
        zero = start == end
        # the outer of two slices starting together begins first and the inner ends first; a zero-length slice
        # ends right after it begins
        self.ts.append(end if is_end else start)
        self.phase.append(np.where(zero, ZERO_LENGTH, END if is_end else BEGIN))
        self.second.append(np.where(zero, 2 * row + (1 if is_end else 0), -start if is_end else -end))
        self.third.append(-depth if is_end else depth)
        self._where(source, group, row, position)

    def samples(self, source: int, group: int, ts: np.ndarray, row: np.ndarray) -> None:
        """Add counter samples (row -1: a counter's closing 0, after its others)."""
        self.ts.append(ts)
        self.phase.append(np.full(len(ts), SAMPLE))
        self.second.append(np.zeros(len(ts), dtype=np.int64))
        self.third.append(np.zeros(len(ts), dtype=np.int64))
        self._where(source, group, np.where(row < 0, np.iinfo(np.int64).max, row), position=row)

    def _where(self, source: int, group: int | np.ndarray, row: np.ndarray, position: np.ndarray | None = None
               ) -> None:
        self.group.append(np.zeros(len(row), dtype=np.int64) + group)
        self.row.append(row)
        self.source.append(np.full(len(row), source))
        self.position.append(np.arange(len(row)) if position is None else position)

    def ordered(self) -> Iterator[tuple[int, int, int]]:
        """(source, position, timestamp) of each event, in the order they are written."""
        if not self.ts:
            return
        ts, source, position = (np.concatenate(a) for a in (self.ts, self.source, self.position))
        order = np.lexsort([np.concatenate(a) for a in (self.row, self.group, self.third, self.second, self.phase)]
                           + [ts])
        for first in range(0, len(order), CHUNK):  # Python ints a chunk at a time
            part = order[first:first + CHUNK]
            yield from zip(source[part].tolist(), position[part].tolist(), ts[part].tolist(), strict=True)


def _parts(timeline: Timeline, slices: Any) -> list[tuple[int, int]]:
    """The stretches of time written one after another: each holds about PART slice starts."""
    edges = slices.edges(-(-timeline.slices // PART))
    return list(pairwise([np.iinfo(np.int64).min, *edges, np.iinfo(np.int64).max]))
class _ProtoWriter:
    """Perfetto TrackEvent packets on one sequence, event names and argument names and values interned; packets
    are serialized a batch at a time (serialized Trace messages one after another make one Trace)."""

    SEQUENCE = 1
    BATCH = 4096
    # arguments whose values differ from slice to slice: the others are serialized once per set of values
    VARYING = frozenset({"corr_id", "duration_ns", "transfer_bytes"})

    def __init__(self, out: IO[bytes], offset: int) -> None:
        from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as proto

        self.proto, self.out, self.offset = proto, out, offset
        self.trace = proto.Trace()
        self.interned: dict[str, dict[str, int]] = {"event_names": {}, "debug_annotation_names": {},
                                                    "debug_annotation_string_values": {}}
        self.constant: dict[tuple[tuple[str, Any], ...], bytes] = {}
        self.first = True

    def _packet(self) -> Any:
        if len(self.trace.packet) >= self.BATCH:
            self._flush()
        packet = self.trace.packet.add()
        packet.trusted_packet_sequence_id = self.SEQUENCE
        if self.first:
            packet.sequence_flags = self.proto.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
            packet.first_packet_on_sequence = True
            self.first = False
        else:
            packet.sequence_flags = self.proto.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
        return packet

    def _flush(self) -> None:
        self.out.write(self.trace.SerializeToString())
        self.trace = self.proto.Trace()

    def _iid(self, packet: Any, table: str, text: str) -> int:
        known = self.interned[table]
        if text not in known:
            known[text] = len(known) + 1
            entry = getattr(packet.interned_data, table).add()
            entry.iid = known[text]
            if table == "debug_annotation_string_values":
                entry.str = text.encode("utf-8")
            else:
                entry.name = text
        return known[text]

    def _annotate(self, event: Any, packet: Any, key: str, value: Any) -> None:
        annotation = event.debug_annotations.add()
        annotation.name_iid = self._iid(packet, "debug_annotation_names", key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            annotation.string_value_iid = self._iid(packet, "debug_annotation_string_values", str(value))
        elif isinstance(value, int):
            annotation.int_value = value
        else:
            annotation.double_value = value

    def tracks(self, timeline: Timeline) -> None:
        process_uuid = {pid: (1 << 40) + number for number, pid in enumerate(timeline.processes)}
        for pid, (name, rank) in timeline.processes.items():
            descriptor = self._packet().track_descriptor
            descriptor.uuid = process_uuid[pid]
            descriptor.process.pid = pid
            descriptor.process.process_name = name
            descriptor.child_ordering = self.proto.TrackDescriptor.EXPLICIT
            descriptor.sibling_order_rank = rank
        for track in timeline.tracks:
            descriptor = self._packet().track_descriptor
            descriptor.uuid = track.uuid
            descriptor.parent_uuid = process_uuid[track.pid]
            descriptor.sibling_order_rank = track.rank
            if track.tid is not None:
                descriptor.thread.pid = track.pid
                descriptor.thread.tid = track.tid
                descriptor.thread.thread_name = track.name
            else:
                descriptor.name = track.name
            if track.unit is not None:
                descriptor.counter.unit_name = track.unit
            if track.description:
                descriptor.description = track.description

    def slice_begin(self, track: Track, ts: int, end: int, name: str, args: dict[str, Any], flows_out: list[int],
                    flow_in: int | None) -> None:
        packet = self._packet()
        packet.timestamp = ts + self.offset
        event = packet.track_event
        event.type = self.proto.TrackEvent.TYPE_SLICE_BEGIN
        event.track_uuid = track.uuid
        event.name_iid = self._iid(packet, "event_names", name)
        constant = tuple((key, value) for key, value in args.items() if key not in self.VARYING)
        serialized = self.constant.get(constant)
        if serialized is None:  # interned in this packet, before any packet reuses the bytes
            scratch = self.proto.TrackEvent()
            for key, value in constant:
                self._annotate(scratch, packet, key, value)
            serialized = self.constant[constant] = scratch.SerializeToString()
        event.MergeFromString(serialized)
        for key, value in args.items():  # in argument order: the same input makes the same bytes
            if key in self.VARYING:
                self._annotate(event, packet, key, value)
        event.flow_ids.extend(flows_out)
        if flow_in is not None:
            event.terminating_flow_ids.append(flow_in)

    def slice_end(self, track: Track, ts: int) -> None:
        packet = self._packet()
        packet.timestamp = ts + self.offset
        packet.track_event.type = self.proto.TrackEvent.TYPE_SLICE_END
        packet.track_event.track_uuid = track.uuid

    def sample(self, track: Track, ts: int, value: float) -> None:
        packet = self._packet()
        packet.timestamp = ts + self.offset
        packet.track_event.type = self.proto.TrackEvent.TYPE_COUNTER
        packet.track_event.track_uuid = track.uuid
        packet.track_event.double_counter_value = value

    def close(self, metadata: dict[str, Any]) -> None:
        """Write the last batch (a protobuf trace holds no metadata: it is in the command's answer)."""
        self._flush()


def _us(ns: int) -> str:
    """Nanoseconds as JSON microseconds, exactly (the format counts in microseconds)."""
    return f"{ns // 1000}.{ns % 1000:03d}"


class _JsonWriter:
    """Chrome trace-event JSON, one event per line: complete events (X) for slices, flow events (s, f) for launch
    flows, counter events (C), metadata events (M) naming processes and threads."""

    def __init__(self, out: IO[bytes], offset: int) -> None:
        self.out, self.offset, self.first = out, offset, True
        self.out.write(b'{"displayTimeUnit": "ns", "traceEvents": [\n')

    def _write(self, event: str) -> None:
        self.out.write((event if self.first else ",\n" + event).encode("utf-8"))
        self.first = False

    def _metadata(self, pid: int, tid: int | None, name: str, value: Any) -> None:
        key = "sort_index" if name.endswith("sort_index") else "name"
        self._write(json.dumps({"ph": "M", "pid": pid, **({"tid": tid} if tid is not None else {}), "name": name,
                                "args": {key: value}}, ensure_ascii=False))

    def tracks(self, timeline: Timeline) -> None:
        for pid, (name, rank) in timeline.processes.items():
            self._metadata(pid, None, "process_name", name)
            self._metadata(pid, None, "process_sort_index", rank)
        for track in timeline.tracks:
            if track.unit is None:  # a counter is named by its events
                self._metadata(track.pid, track.json_tid, "thread_name", track.name)
                self._metadata(track.pid, track.json_tid, "thread_sort_index", track.rank)

    def slice_begin(self, track: Track, ts: int, end: int, name: str, args: dict[str, Any], flows_out: list[int],
                    flow_in: int | None) -> None:
        where = f'"pid": {track.pid}, "tid": {track.json_tid}'
        self._write(f'{{"ph": "X", "name": {json.dumps(name, ensure_ascii=False)}, "ts": {_us(ts + self.offset)}, '
                    f'"dur": {_us(end - ts)}, {where}, "args": {json.dumps(args, ensure_ascii=False)}}}')
        begin = _us(ts + self.offset)  # a flow event binds to the slice that encloses its time: this one begins there
        for flow in flows_out:
            self._write(f'{{"ph": "s", "name": "launch", "cat": "launch", "id": {flow}, "ts": {begin}, {where}}}')
        if flow_in is not None:
            self._write(f'{{"ph": "f", "bp": "e", "name": "launch", "cat": "launch", "id": {flow_in}, '
                        f'"ts": {begin}, {where}}}')

    def slice_end(self, track: Track, ts: int) -> None:
        """A complete event has its end already."""

    def sample(self, track: Track, ts: int, value: float) -> None:
        self._write(f'{{"ph": "C", "name": {json.dumps(track.name)}, "ts": {_us(ts + self.offset)}, '
                    f'"pid": {track.pid}, "args": {{"percent": {json.dumps(value, allow_nan=False)}}}}}')

    def close(self, metadata: dict[str, Any]) -> None:
        self.out.write(b'\n], "metadata": ')
        self.out.write(json.dumps({"nsight-ingest": metadata}, ensure_ascii=False, allow_nan=False).encode("utf-8"))
        self.out.write(b"}\n")


def _checked(path: Path, protected: list[str]) -> str:
    """The format `path` asks for ('json' or 'perfetto', either gzipped when it ends in .gz), once it is seen to
    name a file that is none of the `protected` ones (the inputs)."""
    output_checked(path, protected, "timeline")
    stem = path.name.removesuffix(".gz") if path.suffix.lower() == ".gz" else path.name
    return "json" if stem.lower().endswith(".json") else "perfetto"


@dataclass
class _Begun:
    """A part's slices of one kind as Python values: what writing their begins needs."""

    tracks: list[int]
    names: list[str]
    ends: list[int]
    columns: list[tuple[str, list[Any]]]  # argument name, its value per slice (None: no such argument)
    flows_out: list[list[int]] | None = None
    flow_in: list[int | None] | None = None

    def args(self, row: int) -> dict[str, Any]:
        """The arguments of one slice (made when it is written: a dict per slice would hold gigabytes)."""
        return {name: values[row] for name, values in self.columns if values[row] is not None}


def _begun(timeline: Timeline, kind: str, table: pa.Table) -> _Begun:
    lanes, ends = _column(table, "lane"), _column(table, "end_ns")
    if kind == "gpu_slices":
        keys: Iterator[tuple[Any, Any]] = zip(_column(table, "device"), _column(table, "stream_id"), strict=True)
    else:
        keys = (_thread_key(pid, tid) for pid, tid in zip(_column(table, "pid"), _column(table, "tid"), strict=True))
    tracks = [timeline.placed[(kind, *key)][lane] for key, lane in zip(keys, lanes, strict=True)]
    if kind == "gpu_slices":
        columns = [("full_name" if name == "name" else name, _column(table, name)) for name in GPU_ARGUMENTS]
        return _Begun(tracks, _column(table, "short_name"), ends, columns, flow_in=_column(table, "flow_id"))
    if kind == "cpu_slices":
        columns = [(name, _column(table, name)) for name in ("kind", "corr_id", "duration_ns")]
        return _Begun(tracks, _column(table, "name"), ends, columns, flows_out=_column(table, "flow_ids"))
    lengths = (_times(table, "end_ns") - _times(table, "start_ns")).tolist()
    return _Begun(tracks, _column(table, "name"), ends, [("level", _column(table, "level")), ("duration_ns", lengths)])


# Where a part's event comes from: the begins of a kind (its number in KINDS), any slice's end, a gap marker's end,
# a counter's samples (SAMPLES + the counter's number).
SLICE_END, MARKER_END, SAMPLES = len(KINDS), len(KINDS) + 1, len(KINDS) + 2
MARKERS = KINDS.index("gap_markers")


def _part(timeline: Timeline, begins: pa.Table, ends: pa.Table, low: int, high: int, before: int
          ) -> tuple[_Part, dict[int, _Begun]]:
    """The events of [low, high) in order, and the slices that begin there."""
    part, begun = _Part(), {}
    for kind in SLICE_KINDS:
        number = KINDS.index(kind)
        table = begins.filter(pc.equal(begins.column("slice_kind"), kind))
        if table.num_rows:
            begun[number] = _begun(timeline, kind, table)
            part.slices(number, 2 * number, _times(table, "start_ns"), _times(table, "end_ns"),
                        _times(table, "depth"), _times(table, "slice_row"), False)
    if ends.num_rows:
        kinds = np.array([KINDS.index(kind) for kind in _column(ends, "kind")], dtype=np.int64)
        part.slices(SLICE_END, 2 * kinds + 1, _times(ends, "start_ns"), _times(ends, "end_ns"), _times(ends, "depth"),
                    _times(ends, "slice_row"), True)
    markers = timeline.markers
    if markers is not None:
        for source, times, is_end in ((MARKERS, markers.start, False), (MARKER_END, markers.end, True)):
            rows = np.flatnonzero((times >= low) & (times < high) & (markers.start < before))
            part.slices(source, 2 * MARKERS + is_end, markers.start[rows], markers.end[rows], markers.depth[rows],
                        rows, is_end, position=rows)
    for number, (times, _, _) in enumerate(timeline.samples):
        rows = np.flatnonzero((times >= low) & (times < high) & (times < before))
        closing = low <= before < high and 0 < np.count_nonzero(times < before) < len(times)
        if closing:  # a counter cut short closes at 0 where the cut falls
            rows = np.append(rows, -1)
        part.samples(SAMPLES + number, 2 * len(KINDS) + number, np.where(rows < 0, before, times[rows]), rows)
    return part, begun


def _written(writer: Any, timeline: Timeline, slices: Any, before: int, split: set[int]) -> dict[str, int]:
    """Write every event, a part at a time; how many of each kind."""
    counts = dict.fromkeys(KINDS, 0) | {"critical_path": 0, "counter_samples": 0}
    for low, high in _parts(timeline, slices):
        ends = slices.ends(low, high, before)
        part, begun = _part(timeline, slices.begins(low, high, before), ends, low, high, before)
        end_tracks: list[int] = []
        if ends.num_rows:
            keys = [("gpu_slices", device, stream) if kind == "gpu_slices" else (kind, *_thread_key(pid, tid))
                    for kind, device, stream, pid, tid in zip(*(_column(ends, name) for name in (
                        "kind", "device", "stream_id", "pid", "tid")), strict=True)]
            end_tracks = [timeline.placed[key][lane] for key, lane in zip(keys, _column(ends, "lane"), strict=True)]
        for source, row, ts in part.ordered():
            if source >= SAMPLES:
                _, values, tracks = timeline.samples[source - SAMPLES]
                writer.sample(timeline.tracks[tracks[0]], ts, 0.0 if row < 0 else float(values[row]))
                counts["counter_samples"] += 1
            elif source == SLICE_END:
                writer.slice_end(timeline.tracks[end_tracks[row]], ts)
            elif source == MARKER_END:
                writer.slice_end(timeline.tracks[timeline.markers.tracks[row]], ts)
            elif source == MARKERS:
                markers = timeline.markers
                writer.slice_begin(timeline.tracks[markers.tracks[row]], ts, int(markers.end[row]), markers.name[row],
                                   markers.args(row), [], None)
                counts[markers.kind[row]] += 1
            else:
                found = begun[source]
                flows_out = [f for f in found.flows_out[row] if f not in split] if found.flows_out else []
                flow_in = found.flow_in[row] if found.flow_in is not None else None
                writer.slice_begin(timeline.tracks[found.tracks[row]], ts, found.ends[row], found.names[row],
                                   found.args(row), flows_out, None if flow_in in split else flow_in)
                counts[KINDS[source]] += 1
    return counts


def write(rows: dict[str, Any], path: Path, max_events: int) -> dict[str, Any]:
    """Write the timeline of `rows` (nsight_ingest.analysis.timeline) to `path` (Chrome JSON for a `.json` path,
    else Perfetto protobuf; gzipped for a `.gz` one), whole or not at all, never over an input; what it holds, and
    a warning when it was cut."""
    form = _checked(path, [i["path"] for i in rows["inputs"]])
    slices = rows["slices"]
    timeline = build(rows)
    where = cut(timeline, slices, max_events)
    earliest = timeline.earliest_ns or 0
    offset = -earliest if earliest < 0 else 0  # both formats count time from 0
    before = NO_CUT_NS if where.at_ns is None else where.at_ns
    flows = slices.flows(before)
    metadata = {"window": rows["window"], "inputs": rows["inputs"], "rule_set": rows["rule_set"],
                "time_offset_ns": offset, "cut_at_ns": where.at_ns}
    try:
        with cache.whole(path) as partial, \
                gzip.open(partial, "wb") if path.suffix.lower() == ".gz" else open(partial, "wb") as out:
            writer = (_JsonWriter if form == "json" else _ProtoWriter)(out, offset)
            writer.tracks(timeline)
            counts = _written(writer, timeline, slices, before, set(flows["split_flows"]))
            writer.close(metadata)
    except OSError as exc:
        raise InputError(f"{path}: cannot write the timeline ({exc.strerror or exc})") from None
    rest = "a higher --max-events" if rows["nvtx_window"] else \
        f"--range {where.at_ns}:{'' if rows['range_end_ns'] is None else rows['range_end_ns']} or a higher --max-events"
    written = sum(counts.values())
    warnings = [] if where.at_ns is None else [
        f"timeline: {where.total:,} slices and counter samples are over --max-events {max_events:,}: cut at "
        f"{where.at_ns:,} ns, {written:,} written (what was launched or started before it, and each counter closed "
        f"at 0 there); see the rest with {rest}"]
    return {"output": str(path), "format": form, "bytes": path.stat().st_size,
            "events": {**counts, "flows": flows["written_flows"]}, "tracks": len(timeline.tracks),
            "processes": len(timeline.processes), **metadata, "warnings": warnings}
