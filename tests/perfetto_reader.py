"""Independent readers of timeline files for the tests: Perfetto protobuf traces through the perfetto package's
generated proto classes (interned strings resolved, slices paired from their begin and end events), and Chrome
trace-event JSON through `json`. Both give the same shapes: tracks, slices, counter samples and flows."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as proto


@dataclass
class Slice:
    process: str  # the process (device or CPU process) the track belongs to
    track: str
    start_ns: int
    end_ns: int
    name: str
    args: dict[str, Any]
    flows_out: list[int] = field(default_factory=list)
    flows_in: list[int] = field(default_factory=list)
    depth: int = 0  # slices open on its track when it began (Perfetto's nesting; 0 in JSON)


@dataclass
class Read:
    slices: list[Slice]
    samples: dict[tuple[str, str], list[tuple[int, float]]]  # (process, counter track) -> [(ts, value)]
    timestamps_sorted: bool = True

    def on(self, track_prefix: str) -> list[Slice]:
        """The slices of tracks whose name starts with `track_prefix`, by process, track and start."""
        return sorted((s for s in self.slices if s.track.startswith(track_prefix)),
                      key=lambda s: (s.process, s.track, s.start_ns, -s.end_ns))

    def flows(self) -> set[tuple[int, int]]:
        """(start of the slice a flow leaves, start of the slice it reaches) for every flow."""
        out = {f: s.start_ns for s in self.slices for f in s.flows_out}
        into = {f: s.start_ns for s in self.slices for f in s.flows_in}
        assert out.keys() == into.keys(), "a flow without both ends"
        assert len(out) == sum(len(s.flows_out) for s in self.slices), "a flow leaving two slices"
        assert len(into) == sum(len(s.flows_in) for s in self.slices), "a flow reaching two slices"
        return {(out[f], into[f]) for f in out}


def _value(annotation: Any, strings: dict[int, str]) -> Any:
    kind = annotation.WhichOneof("value")
    if kind == "string_value_iid":
        return strings[annotation.string_value_iid]
    return getattr(annotation, kind)


def read_perfetto(path: Path) -> Read:
    """The slices, counter samples and flows of a Perfetto protobuf trace."""
    trace = proto.Trace()
    trace.ParseFromString(path.read_bytes())
    interned: dict[str, dict[int, str]] = defaultdict(dict)
    processes: dict[int, str] = {}  # process track uuid -> name
    tracks: dict[int, tuple[int, str]] = {}  # track uuid -> (parent uuid, name)
    open_slices: dict[int, list[Slice]] = defaultdict(list)
    read = Read([], defaultdict(list))
    last = 0
    for packet in trace.packet:
        if packet.sequence_flags & proto.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            interned.clear()
        for entry in packet.interned_data.event_names:
            interned["event"][entry.iid] = entry.name
        for entry in packet.interned_data.debug_annotation_names:
            interned["arg"][entry.iid] = entry.name
        for entry in packet.interned_data.debug_annotation_string_values:
            interned["value"][entry.iid] = entry.str.decode("utf-8")
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            if d.HasField("process"):
                processes[d.uuid] = d.process.process_name
            else:
                tracks[d.uuid] = (d.parent_uuid, d.thread.thread_name if d.HasField("thread") else d.name)
        if not packet.HasField("track_event"):
            continue
        read.timestamps_sorted &= packet.timestamp >= last
        last = packet.timestamp
        event = packet.track_event
        parent, name = tracks[event.track_uuid]
        if event.type == proto.TrackEvent.TYPE_SLICE_BEGIN:
            args = {interned["arg"][a.name_iid]: _value(a, interned["value"]) for a in event.debug_annotations}
            stack = open_slices[event.track_uuid]
            stack.append(Slice(processes[parent], name, packet.timestamp, -1, interned["event"][event.name_iid], args,
                               list(event.flow_ids), list(event.terminating_flow_ids), len(stack)))
        elif event.type == proto.TrackEvent.TYPE_SLICE_END:
            done = open_slices[event.track_uuid].pop()
            done.end_ns = packet.timestamp
            read.slices.append(done)
        elif event.type == proto.TrackEvent.TYPE_COUNTER:
            read.samples[(processes[parent], name)].append((packet.timestamp, event.double_counter_value))
    assert not any(open_slices.values()), "slices begun and never ended"
    return read


def _ns(us: float) -> int:
    return round(us * 1000)


def read_json(path: Path) -> Read:
    """The slices, counter samples and flows of a Chrome trace-event JSON file."""
    events = json.loads(path.read_text(encoding="utf-8"))["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    read = Read([], defaultdict(list))
    by_place: dict[tuple[int, int], list[Slice]] = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            start = _ns(e["ts"])
            found = Slice(processes[e["pid"]], threads[(e["pid"], e["tid"])], start, start + _ns(e["dur"]),
                          e["name"], e["args"])
            read.slices.append(found)
            by_place[(e["pid"], e["tid"])].append(found)
        elif e["ph"] == "C":
            (value,) = e["args"].values()
            read.samples[(processes[e["pid"]], e["name"])].append((_ns(e["ts"]), value))
    for e in events:  # a flow event binds to the slice of its thread enclosing its time (the innermost)
        if e["ph"] in ("s", "f"):
            ts = _ns(e["ts"])
            enclosing = [s for s in by_place[(e["pid"], e["tid"])] if s.start_ns <= ts <= s.end_ns]
            innermost = max(enclosing, key=lambda s: s.start_ns)
            (innermost.flows_out if e["ph"] == "s" else innermost.flows_in).append(e["id"])
    for samples in read.samples.values():
        samples.sort()
    return read
