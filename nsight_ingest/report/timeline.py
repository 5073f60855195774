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
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from nsight_ingest import cache
from nsight_ingest.errors import InputError
from nsight_ingest.report import output_checked
from nsight_ingest.report.text import duration

GPU_PID_BASE = 1 << 30  # the pid of a device's process: above any Linux pid (pid_max is at most 2^22)
TRACK_TID_BASE = 1 << 30  # in JSON, the thread id of a track that is no thread of the capture (streams, NVTX)
UNKNOWN_PID = GPU_PID_BASE - 1  # API calls or ranges of an export that names no process

# Event order at one timestamp: slices ending, zero-length slices (each begun and ended at once), counter samples,
# slices beginning.
END, ZERO_LENGTH, SAMPLE, BEGIN = range(4)

BUSY = "GPU busy % (union of kernels)"
KINDS = ("gpu_slices", "gap_markers", "cpu_slices", "nvtx_slices")
# The order of a device's tracks: the busy counter, the streams in id order (each with its lanes), the largest gaps,
# the family counters.
BUSY_RANK, STREAM_RANK, LANES, GAPS_RANK, FAMILY_RANK = 0, 1, 1000, 1_000_000_000, 1_500_000_000
CHUNK = 1 << 16  # events turned into Python values at a time


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


@dataclass
class Slices:
    """Slices of one kind, column-wise: times, track per slice, name, arguments and flows, per row."""

    kind: str  # one of KINDS
    start: np.ndarray
    end: np.ndarray
    cut_time: np.ndarray  # the time a cut goes by: a kernel's launch call start (as windows take it), else start
    tracks: np.ndarray  # index into Timeline.tracks
    depth: np.ndarray  # nesting depth on its track (0: outermost)
    name: Values | list[str]
    columns: dict[str, Values | list[Any]]  # argument name -> its value per slice (None: no such argument)
    flows_out: list[list[int]] | None = None
    flow_in: Values | None = None

    def args(self, row: int) -> dict[str, Any]:
        """The arguments of one slice (made when it is written: a dict per slice would hold gigabytes)."""
        return {name: values[row] for name, values in self.columns.items() if values[row] is not None}


@dataclass
class Timeline:
    """Everything to write, tracks first."""

    processes: dict[int, tuple[str, int]] = field(default_factory=dict)  # pid -> (name, rank)
    tracks: list[Track] = field(default_factory=list)
    slices: list[Slices] = field(default_factory=list)
    samples: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)  # (ts, value, track)

    def track(self, pid: int, name: str, rank: int, **kwargs: Any) -> int:
        """Add a track (in JSON a thread of its own unless it is a thread's); its index."""
        json_tid = kwargs.get("tid") if kwargs.get("tid") is not None else TRACK_TID_BASE + len(self.tracks)
        self.tracks.append(Track(len(self.tracks) + 1, pid, name, rank, **kwargs, json_tid=json_tid))
        return len(self.tracks) - 1


def _column(table: pa.Table, name: str) -> list[Any]:
    return table.column(name).to_pylist()


class Values:
    """A column of slice values held compactly, read one at a time: text dictionary-encoded, integers in a numpy
    array with their nulls apart (a Python object per value would take gigabytes for millions of slices)."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        array = column.combine_chunks()
        self.text = pa.types.is_string(array.type) or pa.types.is_large_string(array.type)
        if self.text:
            encoded = array.dictionary_encode()
            self.codes = pc.fill_null(encoded.indices, -1).to_numpy()
            self.words = [*encoded.dictionary.to_pylist(), None]  # code -1: null
        else:
            self.nulls = array.is_null().to_numpy(zero_copy_only=False)
            self.numbers = pc.fill_null(array, 0).to_numpy()

    def __getitem__(self, row: int) -> Any:
        if self.text:
            return self.words[self.codes[row]]
        return None if self.nulls[row] else int(self.numbers[row])


def _values(table: pa.Table, name: str) -> Values:
    return Values(table.column(name))


def _times(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy().astype(np.int64)


def lanes(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For slices of one track sorted by start (then longest first): the lane of each, so that slices on one lane
    nest or follow each other, and its depth on the lane. A slice goes to the first lane where it nests in the open
    slice or follows it."""
    lane = np.zeros(len(start), dtype=np.int64)
    depth = np.zeros(len(start), dtype=np.int64)
    if len(start) and np.all(start[1:] >= np.maximum.accumulate(end)[:-1]):  # one after another: the common case
        return lane, depth
    stacks: list[list[int]] = []  # per lane, the ends of its open slices, innermost last
    for i, (s, e) in enumerate(zip(start.tolist(), end.tolist(), strict=True)):
        chosen = None
        for number, stack in enumerate(stacks):
            while stack and stack[-1] <= s:
                stack.pop()
            if not stack or stack[-1] >= e:
                chosen = number
                break
        if chosen is None:
            chosen = len(stacks)
            stacks.append([])
        lane[i], depth[i] = chosen, len(stacks[chosen])
        stacks[chosen].append(e)
    return lane, depth


def _runs(keys: list[Any]) -> Iterator[tuple[int, int]]:
    """(first, end) of each run of equal keys, in order."""
    first = 0
    for _, run in groupby(keys):
        length = sum(1 for _ in run)
        yield first, first + length
        first += length


def _place(timeline: Timeline, keys: list[Any], start: np.ndarray, end: np.ndarray,
           new_track: Any) -> tuple[np.ndarray, np.ndarray]:
    """The track index and depth of each slice: slices of one key (rows in order of key, then start) share a
    track, lanes beyond the first get tracks of their own; `new_track(key, lane)` adds a track, its index."""
    tracks = np.zeros(len(start), dtype=np.int64)
    depth = np.zeros(len(start), dtype=np.int64)
    for first, last in _runs(keys):
        lane, depth[first:last] = lanes(start[first:last], end[first:last])
        made = [new_track(keys[first], number) for number in range(int(lane.max()) + 1)]
        tracks[first:last] = np.array(made)[lane]
    return tracks, depth


def _lane_name(name: str, lane: int) -> str:
    return name if lane == 0 else f"{name} (overlapping {lane})"


def _gpu(timeline: Timeline, rows: dict[str, Any], device_pids: dict[str, int]) -> None:
    gpu: pa.Table = rows["gpu_slices"]
    start = _times(gpu, "start_ns")
    end = start + _times(gpu, "duration_ns")
    devices, streams = _column(gpu, "device"), _column(gpu, "stream_id")
    streams_before: dict[str, int] = {}  # per device, its streams placed so far: a stream's place among them

    def stream_track(key: tuple[str, int | None], lane: int) -> int:
        device, stream = key
        if lane == 0:
            streams_before[device] = streams_before.get(device, -1) + 1
        name = _lane_name(f"Stream {stream if stream is not None else '?'}", lane)
        return timeline.track(device_pids[device], name, STREAM_RANK + streams_before[device] * LANES + lane)

    tracks, depth = _place(timeline, list(zip(devices, streams, strict=True)), start, end, stream_track)
    names = ("op_kind", "name", "component", "sub_component", "family", "stream_id", "corr_id", "duration_ns",
             "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "transfer_bytes", "src_mem_kind",
             "dst_mem_kind", "nvtx_group")
    columns = {"full_name" if name == "name" else name: _values(gpu, name) for name in names}
    timeline.slices.append(Slices("gpu_slices", start, end, _times(gpu, "launch_or_start_ns"), tracks, depth,
                                  _values(gpu, "short_name"), columns, flow_in=_values(gpu, "flow_id")))


def _thread_keys(table: pa.Table) -> list[tuple[int, int | None]]:
    """(pid, tid) of each row (UNKNOWN_PID where the export names no process)."""
    return [(UNKNOWN_PID if pid is None else pid, tid)
            for pid, tid in zip(_column(table, "pid"), _column(table, "tid"), strict=True)]


def _threads(timeline: Timeline, rows: dict[str, Any],
             keys: list[list[tuple[int, int | None]]]) -> dict[tuple[int, int | None], str]:
    """Each thread of `keys` with its name (its API trace name, else 'Thread TID'), its process registered."""
    names = {(r["pid"], r["tid"]): r["thread_name"] for r in rows["threads"]}
    found: dict[tuple[int, int | None], str] = {}
    for table_keys in keys:
        for pid, tid in table_keys:
            if (pid, tid) not in found:
                found[(pid, tid)] = names.get((pid, tid)) or f"Thread {tid if tid is not None else '?'}"
                main = names.get((pid, pid))  # the thread whose id is the process's names it
                name = "Unknown process" if pid == UNKNOWN_PID else f"{main} (pid {pid})" if main else f"Process {pid}"
                timeline.processes.setdefault(pid, (name, 1000 + len(timeline.processes)))
    return found


def _cpu(timeline: Timeline, rows: dict[str, Any]) -> None:
    tables = ((rows["cpu_slices"], False), (rows["nvtx_slices"], True))
    thread_keys = [_thread_keys(table) for table, _ in tables]
    thread_names = _threads(timeline, rows, thread_keys)
    order = {key: number for number, key in enumerate(sorted(thread_names, key=lambda k: (k[0], k[1] or 0)))}
    for (table, nvtx), keys in zip(tables, thread_keys, strict=True):
        start = _times(table, "start_ns")
        end = _times(table, "end_ns") if nvtx else start + _times(table, "duration_ns")

        def thread_track(key: tuple[int, int | None], lane: int, nvtx: bool = nvtx) -> int:
            pid, tid = key
            thread = thread_names[key]
            rank = 2 * order[key] + (1 if nvtx else 0)
            if nvtx:
                return timeline.track(pid, _lane_name(f"NVTX · {thread}", lane), rank)
            if lane == 0 and tid is not None:  # the thread's own track
                return timeline.track(pid, thread, rank, tid=tid)
            return timeline.track(pid, _lane_name(f"CUDA API · {thread}", lane), rank)

        tracks, depth = _place(timeline, keys, start, end, thread_track)
        if nvtx:
            columns = {"level": _values(table, "level"), "duration_ns": (end - start).tolist()}
            timeline.slices.append(Slices("nvtx_slices", start, end, start, tracks, depth, _values(table, "name"),
                                          columns))
        else:
            columns = {name: _values(table, name) for name in ("kind", "corr_id", "duration_ns")}
            timeline.slices.append(Slices("cpu_slices", start, end, start, tracks, depth, _values(table, "name"),
                                          columns,
                                          flows_out=_column(table, "flow_ids")))


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

    def gap_track(device: str, lane: int) -> int:
        return timeline.track(device_pids[device], _lane_name("Largest idle gaps", lane), GAPS_RANK + lane)

    tracks, depth = _place(timeline, [g["device"] for g in gaps], start, end, gap_track)
    names = [f"idle {duration(g['gap_ns'], precise=True)}: {(g['idle_cause'] or 'unknown').replace('_', ' ')}"
             for g in gaps]
    keys = ("gap_ns", "idle_cause", "memory_transfer_ns", "synchronization_ns", "cpu_launch_ns", "other_ns",
            "before", "before_component", "after", "after_component", "stream_id")
    timeline.slices.append(Slices("gap_markers", start, end, start, tracks, depth, names,
                                  {key: [g[key] for g in gaps] for key in keys}))


def build(rows: dict[str, Any]) -> Timeline:
    """The tracks, slices and counter samples of a timeline's rows (nsight_ingest.analysis.timeline)."""
    timeline = Timeline()
    gpu: pa.Table = rows["gpu_slices"]
    devices = sorted(set(pc.unique(gpu.column("device")).to_pylist())
                     | set(pc.unique(rows["counters"].column("device")).to_pylist()),
                     key=lambda d: (d.rsplit("(", 1)[-1].rstrip(")").zfill(8), d))
    device_pids = {device: GPU_PID_BASE + number for number, device in enumerate(devices)}
    for device, pid in device_pids.items():
        timeline.processes[pid] = (device, pid - GPU_PID_BASE)
    _counters(timeline, rows, device_pids)
    _gpu(timeline, rows, device_pids)
    _gaps(timeline, rows, device_pids)
    _cpu(timeline, rows)
    return timeline


@dataclass(frozen=True)
class Cut:
    """Where a timeline over the limit is cut: slices and samples starting at or after `at_ns` are left out."""

    at_ns: int | None
    total: int  # slices and counter samples of the whole timeline


def cut(timeline: Timeline, max_events: int) -> Cut:
    """The latest time before which the slices and counter samples that start, with a closing sample for each counter
    cut short, are at most `max_events`."""
    starts = np.sort(np.concatenate([s.cut_time for s in timeline.slices] + [ts for ts, _, _ in timeline.samples] or
                                    [np.zeros(0, dtype=np.int64)]))
    if len(starts) <= max_events:
        return Cut(None, len(starts))
    index = max_events
    while True:
        at = int(starts[index])
        closing = sum(1 for ts, _, _ in timeline.samples if len(ts) and ts[0] < at <= ts[-1])
        over = int(np.searchsorted(starts, at)) + closing - max_events
        if over <= 0 or index == 0:
            return Cut(at, len(starts))
        index = max(0, index - over)


def _kept(times: np.ndarray, before: int | None) -> np.ndarray:
    """The rows whose time lies before the cut (all without one)."""
    return np.nonzero(times < before)[0] if before is not None else np.arange(len(times))


def _events(timeline: Timeline, before: int | None) -> Iterator[tuple[bool, int, int, int]]:
    """(whether it ends a slice, kind index or -1 - counter index for samples, row (-1: a counter's closing 0),
    timestamp) of every event to write, in time order."""
    ts, phase, second, third, kind, row, ends = [], [], [], [], [], [], []
    for number, slices in enumerate(timeline.slices):
        keep = _kept(slices.cut_time, before)
        s, e, d = slices.start[keep], slices.end[keep], slices.depth[keep]
        zero = s == e
        ts += [s, e]
        phase += [np.where(zero, ZERO_LENGTH, BEGIN), np.where(zero, ZERO_LENGTH, END)]
        # the outer of two slices starting together begins first and the inner ends first; a zero-length slice
        # ends right after it begins
        second += [np.where(zero, 2 * keep, -e), np.where(zero, 2 * keep + 1, -s)]
        third += [d, -d]
        kind.append(np.full(2 * len(keep), number))
        row += [keep, keep]
        ends += [np.zeros(len(keep), dtype=bool), np.ones(len(keep), dtype=bool)]
    for number, (times, _, _) in enumerate(timeline.samples):
        keep = _kept(times, before)
        if len(keep) and len(keep) < len(times):  # a counter cut short closes at 0 where the cut falls
            keep = np.append(keep, -1)
        ts.append(np.where(keep < 0, before or 0, times[keep]))
        phase.append(np.full(len(keep), SAMPLE))
        second.append(np.zeros(len(keep), dtype=np.int64))
        third.append(np.zeros(len(keep), dtype=np.int64))
        kind.append(np.full(len(keep), -1 - number))
        row.append(keep)
        ends.append(np.zeros(len(keep), dtype=bool))
    if not ts:
        return
    ts_all, kind_all, row_all, ends_all = (np.concatenate(a) for a in (ts, kind, row, ends))
    order = np.lexsort((np.concatenate(third), np.concatenate(second), np.concatenate(phase), ts_all))
    for first in range(0, len(order), CHUNK):  # Python ints a chunk at a time: millions of them hold gigabytes
        part = order[first:first + CHUNK]
        yield from zip(ends_all[part].tolist(), kind_all[part].tolist(), row_all[part].tolist(),
                       ts_all[part].tolist(), strict=True)


def _kept_flows(timeline: Timeline, before: int | None) -> set[int]:
    """The flows whose launch call and kernel are both written."""
    starts, ends = set(), set()
    for slices in timeline.slices:
        keep = _kept(slices.cut_time, before)
        if slices.flows_out is not None:
            starts.update(f for i in keep.tolist() for f in slices.flows_out[i])
        if slices.flow_in is not None:
            ends.update(slices.flow_in.numbers[keep][~slices.flow_in.nulls[keep]].tolist())
    return starts & ends


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
        for key in self.VARYING.intersection(args):
            self._annotate(event, packet, key, args[key])
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


def write(rows: dict[str, Any], path: Path, max_events: int) -> dict[str, Any]:
    """Write the timeline of `rows` (nsight_ingest.analysis.timeline) to `path` (Chrome JSON for a `.json` path,
    else Perfetto protobuf; gzipped for a `.gz` one), whole or not at all, never over an input; what it holds, and
    a warning when it was cut."""
    form = _checked(path, [i["path"] for i in rows["inputs"]])
    timeline = build(rows)
    where = cut(timeline, max_events)
    starts = [s.start for s in timeline.slices if len(s.start)] + [ts for ts, _, _ in timeline.samples if len(ts)]
    earliest = min((int(a.min()) for a in starts), default=0)
    offset = -earliest if earliest < 0 else 0  # both formats count time from 0
    flows = _kept_flows(timeline, where.at_ns)
    metadata = {"window": rows["window"], "inputs": rows["inputs"], "rule_set": rows["rule_set"],
                "time_offset_ns": offset, "cut_at_ns": where.at_ns}
    counts = dict.fromkeys(KINDS, 0) | {"counter_samples": 0}
    try:
        with cache.whole(path) as partial, \
                gzip.open(partial, "wb") if path.suffix.lower() == ".gz" else open(partial, "wb") as out:
            writer = (_JsonWriter if form == "json" else _ProtoWriter)(out, offset)
            writer.tracks(timeline)
            for is_end, kind, row, ts in _events(timeline, where.at_ns):
                if kind < 0:
                    _, values, tracks = timeline.samples[-1 - kind]
                    writer.sample(timeline.tracks[tracks[0]], ts, 0.0 if row < 0 else float(values[row]))
                    counts["counter_samples"] += 1
                    continue
                slices = timeline.slices[kind]
                track = timeline.tracks[slices.tracks[row]]
                if is_end:
                    writer.slice_end(track, ts)
                    continue
                flows_out = [f for f in slices.flows_out[row] if f in flows] if slices.flows_out else []
                flow_in = slices.flow_in[row] if slices.flow_in is not None and slices.flow_in[row] in flows else None
                writer.slice_begin(track, ts, int(slices.end[row]), slices.name[row], slices.args(row), flows_out,
                                   flow_in)
                counts[slices.kind] += 1
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
            "events": {**counts, "flows": len(flows)}, "tracks": len(timeline.tracks),
            "processes": len(timeline.processes), **metadata, "warnings": warnings}
