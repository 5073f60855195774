"""Passes over time-ordered rows: what needs rows in order (running maxima, neighbours, interval unions) computed
with numpy over sorted columns, where a SQL window would sort every row again (and a sort of 1M rows with its
payload costs DuckDB more than everything else such a module does).

A pass is the body of a SQL module whose header says `-- computed by: nsight_ingest.passes`: the module's first
SELECT gives the pass its columns as numpy arrays (masked where NULL, as DuckDB's fetchnumpy gives them), the pass
returns columns the same way, and the module's later statements read them as `<module>_pass`
(`classify.timeline`: `classify_timeline_pass`). Its header documents what it requires and gives like any
module's, and it is tested alone the same way. Rows are sorted here only when they are not in order already (nsys
writes operations in start order; a temporary store does not keep that order).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from itertools import pairwise
from typing import Any, Protocol

import numpy as np

Columns = dict[str, Any]  # numpy arrays by column name (masked arrays where NULL), as DuckDB's fetchnumpy gives
Rows = Columns
Pass = Callable[[Columns], Columns]
STREAM_BATCH = 1 << 18  # rows a streamed pass holds at a time


class Stream(Protocol):
    """A streamed pass: rows a batch at a time, in the order of the module's first SELECT; output as it goes (to a
    Parquet file in the store's spill folder: memory holds one batch whatever the capture's size)."""

    def step(self, rows: Columns) -> Columns | None:
        """Take one batch (numpy arrays, masked where NULL); give the output rows it settles, if any."""

    def finish(self) -> Columns | None:
        """Give the output rows left once every batch was taken."""

# A grouped running maximum shifts each group's values above the previous group's; past this the shifted values
# could overflow int64 (times lie within +-2^61 ns), and ranks stand in for the values.
_SHIFT_LIMIT = 2.0**62


def column(rows: Rows, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Column `name` as plain values (NULL as 0) and the mask of its non-NULL rows."""
    values = rows[name]
    if isinstance(values, np.ma.MaskedArray):
        return values.filled(0), ~np.ma.getmaskarray(values)
    return np.asarray(values), np.ones(len(values), dtype=bool)


def plain(rows: Rows, name: str, dtype: type = np.int64) -> np.ndarray:
    """Column `name` as one contiguous array of `dtype` (NULL as 0), as compiled loops take it."""
    return np.ascontiguousarray(column(rows, name)[0], dtype=dtype)


def masked(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Values NULL where not valid, as DuckDB reads a registered column."""
    return values if valid.all() else np.ma.masked_array(values, mask=~valid)


def is_sorted(keys: list[np.ndarray]) -> bool:
    """True when the rows are ordered by `keys` (the first the most significant)."""
    if len(keys[0]) < 2:
        return True
    undecided = np.ones(len(keys[0]) - 1, dtype=bool)  # rows whose keys so far equal the previous row's
    for key in keys:
        before, after = key[:-1], key[1:]
        if np.any(undecided & (after < before)):
            return False
        undecided &= after == before
    return True


def sort_order(keys: list[np.ndarray]) -> np.ndarray | None:
    """The permutation that orders rows by `keys` (the first the most significant), None when they are ordered."""
    return None if is_sorted(keys) else np.lexsort(keys[::-1])


def group_firsts(keys: list[np.ndarray]) -> np.ndarray:
    """In rows ordered by `keys`, true for the first row of each run of equal keys."""
    count = len(keys[0])
    first = np.zeros(count, dtype=bool)
    if count:
        first[0] = True
        for key in keys:
            first[1:] |= key[1:] != key[:-1]
    return first


def _grouped_cummax(values: np.ndarray, group: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The running maximum of `values` within each group (groups are runs: `group` numbers them, `starts` are their
    first rows). One accumulate over the whole array: each group's values are moved above the previous group's."""
    low, high = np.minimum.reduceat(values, starts), np.maximum.reduceat(values, starts)
    widths = high - low + 1  # within int64: values lie within +-2^61
    if float(widths.astype(np.float64).sum()) < _SHIFT_LIMIT:
        shift = (np.concatenate(([0], np.cumsum(widths)[:-1])) - low)[group]
        return np.maximum.accumulate(values + shift) - shift
    unique, rank = np.unique(values, return_inverse=True)
    key = group.astype(np.int64) * len(unique) + rank.reshape(-1)
    return unique[np.maximum.accumulate(key) - group * len(unique)]


def earlier_max(values: np.ndarray, first: np.ndarray, valid: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the largest of the valid `values` of the earlier rows of its group (groups are runs that begin
    where `first` is true), and whether there is one (false for a group's first row)."""
    count = len(values)
    if count == 0:
        return values.copy(), np.zeros(0, dtype=bool)
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    if valid is None or valid.all():
        inclusive = _grouped_cummax(values, group, starts)
        has = ~first
    else:
        filled = np.where(valid, values, values[valid].min() if valid.any() else 0)  # changes no maximum
        inclusive = _grouped_cummax(filled, group, starts)
        seen = np.cumsum(valid) - valid  # valid rows before each row, then within its group
        has = (seen - seen[starts][group]) > 0
    earlier = np.empty_like(inclusive)
    earlier[0] = 0
    earlier[1:] = inclusive[:-1]
    return earlier, has


def shifted(values: np.ndarray, group: np.ndarray, by: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the value `by` rows earlier (by > 0) or later (by < 0) in its group (`group` numbers the rows'
    groups), and whether there is one."""
    count = len(values)
    out, found = np.zeros(count, dtype=values.dtype), np.zeros(count, dtype=bool)
    step = abs(by)
    if step < count:
        if by > 0:
            out[step:], found[step:] = values[:-step], group[step:] == group[:-step]
        else:
            out[:-step], found[:-step] = values[step:], group[:-step] == group[step:]
    return out, found


def _one_group(count: int) -> np.ndarray:
    """`first` for rows that form one group."""
    first = np.zeros(count, dtype=bool)
    first[:1] = True
    return first


NEIGHBOURS = 4  # name ids of the kernels either side on the stream that scope.kernels gives
KERNEL_COLUMNS = ("device_key", "device_index", "stream_id", "start_ns", "end_ns", "duration_ns", "launch_order",
                  "name_id")


class StreamKernels:
    """The kernels in stream order, each with the name ids of its 4 neighbours either side on its stream and the
    latest end of its stream's earlier kernels, a batch at a time. The rows of a batch are taken with the last
    rows before them (neighbours back) and the last 4 are held until the next batch (neighbours on); the latest
    end of the stream's rows before a batch is carried over."""

    def __init__(self) -> None:
        self.tail: dict[str, tuple[np.ndarray, np.ndarray]] | None = None  # the rows kept from the batch before
        self.done = 0  # of the tail's rows, those already given (the rest are held)
        self.carried: tuple[int, bool] = (0, False)  # latest end of the earlier rows of the tail's first stream

    def step(self, rows: Rows) -> Rows | None:
        """Take the next batch; the rows it settles."""
        batch = {name: column(rows, name) for name in KERNEL_COLUMNS}
        return self._settled(batch, final=False)

    def finish(self) -> Rows:
        """The rows held back."""
        empty = {name: (np.zeros(0, dtype=self.tail[name][0].dtype if self.tail else np.int64),
                        np.zeros(0, dtype=bool)) for name in KERNEL_COLUMNS}
        return self._settled(empty, final=True)

    def _settled(self, batch: dict[str, tuple[np.ndarray, np.ndarray]], final: bool) -> Rows:
        rows = batch if self.tail is None else {
            name: (np.concatenate((self.tail[name][0], values)), np.concatenate((self.tail[name][1], valid)))
            for name, (values, valid) in batch.items()}
        (device, _), (stream, stream_valid) = rows["device_key"], rows["stream_id"]
        (end, end_valid), (name_id, _) = rows["end_ns"], rows["name_id"]
        first = group_firsts([device, ~stream_valid, stream])
        group = np.cumsum(first)
        earlier, has = earlier_max(end, first, end_valid)
        latest, seen = self.carried
        if seen and len(end):  # the first stream's rows before these
            lead = group == group[0]
            earlier = np.where(lead & has, np.maximum(earlier, latest), np.where(lead, latest, earlier))
            has = has | lead
        count = len(end)
        settled_end = count if final else max(self.done, count - NEIGHBOURS)
        keep = max(0, settled_end - NEIGHBOURS)  # the next batch's first row: neighbours back and the held rows
        self.tail = {name: (values[keep:], valid[keep:]) for name, (values, valid) in rows.items()}
        self.carried = (int(earlier[keep]), bool(has[keep])) if keep < count else (0, False)
        given = slice(self.done, settled_end)
        self.done = settled_end - keep
        out = {name: masked(values[given], valid[given]) for name, (values, valid) in rows.items()}
        for by in (1, 2, 3, 4, -1, -2, -3, -4):
            out[f"prev_{by}" if by > 0 else f"next_{-by}"] = masked(*(a[given] for a in shifted(name_id, group, by)))
        out["stream_earlier_end_ns"] = masked(earlier[given], has[given])
        return out


def _in_order(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Intervals ordered by start, then end."""
    order = sort_order([starts, ends])
    return (starts, ends) if order is None else (starts[order], ends[order])


class _Reach:
    """The latest end of the intervals seen so far, in start order, and the length of their union."""

    def __init__(self) -> None:
        self.reach: int | None = None
        self.union_ns = 0

    def earlier(self, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per interval of a batch (the next in start order), the latest end of all earlier ones, and whether
        there is one."""
        earlier, has = earlier_max(ends, _one_group(len(ends)))
        if self.reach is not None and len(ends):
            earlier, has = np.where(has, np.maximum(earlier, self.reach), self.reach), np.ones(len(ends), dtype=bool)
        return earlier, has

    def add(self, starts: np.ndarray, ends: np.ndarray) -> None:
        """Take the next intervals in start order into the union."""
        earlier, has = self.earlier(ends)
        self.union_ns += _length(np.where(has, np.maximum(starts, earlier), starts), ends)
        if len(ends):
            self.reach = int(ends.max()) if self.reach is None else max(self.reach, int(ends.max()))


class LaunchTimeline:
    """Launch gaps and the unions of kernel and launch-call intervals, a batch of intervals in start order at a
    time: one row at the end."""

    def __init__(self) -> None:
        self.kernels, self.calls, self.either = _Reach(), _Reach(), _Reach()
        self.gaps = [0, 0, 0]  # count, total, maximum (ns)

    def step(self, rows: Rows) -> None:
        """Take the next intervals."""
        (is_api, _), (start, _), (end, _) = column(rows, "is_api"), column(rows, "s"), column(rows, "e")
        kernel_start, kernel_end = start[~is_api], end[~is_api]
        earlier, has = self.kernels.earlier(kernel_end)
        gaps = (kernel_start - earlier)[has & (kernel_start > earlier)]
        if len(gaps):
            self.gaps = [self.gaps[0] + len(gaps), self.gaps[1] + int(gaps.sum()), max(self.gaps[2], int(gaps.max()))]
        self.kernels.add(kernel_start, kernel_end)
        self.calls.add(start[is_api], end[is_api])
        self.either.add(start, end)

    def finish(self) -> Rows:
        """The one row."""
        called = self.calls.reach is not None
        return {"positive_gap_count": np.array([self.gaps[0]]), "gap_total_ns": np.array([self.gaps[1]]),
                "gap_maximum_ns": np.array([self.gaps[2]]),
                "api_union_ns": masked(np.array([self.calls.union_ns], dtype=np.int64), np.array([called])),
                "kernel_union_ns": np.array([self.kernels.union_ns], dtype=np.int64),
                "either_union_ns": np.array([self.either.union_ns], dtype=np.int64)}


def _length(part_starts: np.ndarray, part_ends: np.ndarray) -> int:
    """The summed length of disjoint parts (empty ones count 0)."""
    return int(np.maximum(part_ends - part_starts, 0).sum())


class IdleStretches:
    """Per device, the kernels that start after every earlier kernel of the device ended (and each device's first
    kernel), with that latest earlier end and the latest end of the pieces that start before them, a batch at a
    time: rows in order of device and start, kernels before the pieces that start with them. The latest kernel and
    piece ends of the device a batch ends in are carried to the next."""

    def __init__(self) -> None:
        self.carried: tuple[int, tuple[int, bool], tuple[int, bool]] | None = None  # device, kernel, piece

    def step(self, rows: Rows) -> Rows:
        """Take the next rows; the stretch ends among them."""
        (device, _), (device_index, _), (is_kernel, _) = (column(rows, "device_key"), column(rows, "device_index"),
                                                          column(rows, "is_kernel"))
        (start, _), (end, _) = column(rows, "start_ns"), column(rows, "end_ns")
        is_kernel = is_kernel.astype(bool)
        first = group_firsts([device])
        kernel, piece = earlier_max(end, first, is_kernel), earlier_max(end, first, ~is_kernel)
        if self.carried is not None and len(device) and self.carried[0] == device[0]:
            lead = np.cumsum(first) == 1  # the rows of the device the batch before ended in
            kernel, piece = (_folded(*found, lead, carried)
                             for found, carried in ((kernel, self.carried[1]), (piece, self.carried[2])))
        if len(device):
            self.carried = (device[-1], _through(*kernel, end, is_kernel), _through(*piece, end, ~is_kernel))
        (earlier, has), (piece_end, has_piece) = kernel, piece
        begins = is_kernel & (~has | (start > earlier))  # a stretch may end at it
        return {"device_key": device[begins].astype(np.uint64), "device_index": device_index[begins].astype(np.int64),
                "start_ns": start[begins].astype(np.int64),
                "earlier_end_ns": masked(earlier[begins].astype(np.int64), has[begins]),
                "piece_end_ns": masked(piece_end[begins].astype(np.int64), has_piece[begins])}

    def finish(self) -> Rows:
        """No rows left: an empty batch (it gives the output its columns when there were no rows at all)."""
        empty = np.zeros(0, dtype=np.int64)
        return {"device_key": empty.astype(np.uint64), "device_index": empty, "start_ns": empty,
                "earlier_end_ns": masked(empty, np.zeros(0, dtype=bool)),
                "piece_end_ns": masked(empty, np.zeros(0, dtype=bool))}


def _folded(earlier: np.ndarray, has: np.ndarray, lead: np.ndarray, carried: tuple[int, bool]
            ) -> tuple[np.ndarray, np.ndarray]:
    """A running maximum of a batch with that of the rows before it (`carried`) folded into its `lead` rows."""
    latest, seen = carried
    if not seen:
        return earlier, has
    return np.where(lead & has, np.maximum(earlier, latest), np.where(lead, latest, earlier)), has | lead


def _through(earlier: np.ndarray, has: np.ndarray, values: np.ndarray, valid: np.ndarray) -> tuple[int, bool]:
    """The running maximum after the last row: its earlier maximum and its own value, where valid."""
    found = [int(earlier[-1])] if has[-1] else []
    found += [int(values[-1])] if valid[-1] else []
    return (max(found), True) if found else (0, False)


BREAKDOWNS = ("device", "collective", "stream")  # the groups of a device's communication kernels


class _Group:
    """One group of a device's communication kernels: its kernels, the union of their intervals, and the union of
    theirs with the device's compute intervals (from the device's first row on)."""

    def __init__(self, compute: _Reach) -> None:
        self.kernels = 0
        self.own = _Reach()
        self.with_compute = copy.copy(compute)  # the compute intervals before the group's first kernel


class CommunicationOverlap:
    """Per device and per group of its communication kernels (all, each collective, each stream): the union of
    their intervals and the part of it some other kernel of the device runs in, a batch of rows in order of device
    and start at a time. The part is |G| + |C| - |G + C|: G the group's union, C the compute union, G + C the union
    of both, each a running union that carries from batch to batch. Labels travel as hashes."""

    def __init__(self) -> None:
        self.device: int | None = None
        self.compute = _Reach()
        self.groups: dict[tuple[int, int], _Group] = {}  # (breakdown, label) -> group, of the current device
        self.out: dict[str, list[int]] = {"device_key": [], "breakdown": [], "label_key": [], "kernels": [],
                                          "time_ns": [], "overlapped_ns": []}

    def step(self, rows: Rows) -> None:
        """Take the next rows; the answer comes at the end."""
        device, _ = column(rows, "device_key")
        bounds = [*np.flatnonzero(group_firsts([device])).tolist(), len(device)]
        for first, last in pairwise(bounds):
            self._take(int(device[first]), {name: column(rows, name)[0][first:last] for name in
                                            ("start_ns", "end_ns", "is_communication", "collective_key",
                                             "stream_key")})

    def _take(self, device: int, rows: Rows) -> None:
        """The next rows of one device."""
        if device != self.device:
            self._settle()
            self.device, self.compute, self.groups = device, _Reach(), {}
        start, end, talking = rows["start_ns"], rows["end_ns"], rows["is_communication"].astype(bool)
        labels = {1: rows["collective_key"], 2: rows["stream_key"]}
        for breakdown, key in ((0, 0), *((b, int(label)) for b in (1, 2) for label in np.unique(labels[b][talking]))):
            if talking.any() and (breakdown, key) not in self.groups:
                self.groups[(breakdown, key)] = _Group(self.compute)
        computing = ~talking
        for (breakdown, key), group in self.groups.items():
            chosen = talking if breakdown == 0 else talking & (labels[breakdown] == key)
            group.kernels += int(chosen.sum())
            group.own.add(start[chosen], end[chosen])
            group.with_compute.add(start[chosen | computing], end[chosen | computing])
        self.compute.add(start[computing], end[computing])

    def _settle(self) -> None:
        """The rows of the device whose rows ended."""
        for (breakdown, key), group in self.groups.items():
            overlapped = group.own.union_ns + self.compute.union_ns - group.with_compute.union_ns
            for name, value in (("device_key", self.device), ("breakdown", breakdown), ("label_key", key),
                                ("kernels", group.kernels), ("time_ns", group.own.union_ns),
                                ("overlapped_ns", overlapped)):
                self.out[name].append(value)

    def finish(self) -> Rows:
        """Every device's rows."""
        self._settle()
        self.groups = {}
        return {"device_key": np.array(self.out["device_key"], dtype=np.uint64),
                "breakdown": np.array([BREAKDOWNS[b] for b in self.out["breakdown"]], dtype=str),
                "label_key": np.array(self.out["label_key"], dtype=np.uint64),
                **{key: np.array(self.out[key], dtype=np.int64) for key in ("kernels", "time_ns", "overlapped_ns")}}


def merged(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of intervals [start, end) as disjoint ones that do not touch, ordered by start (empty ones go)."""
    keep = ends > starts
    return _joined(*_in_order(starts[keep], ends[keep]))


def merged_unions(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The union of two unions of intervals (starts, ends), each as `merged` gives it, the same way."""
    starts, ends = np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1]])
    order = np.argsort(starts, kind="stable")  # two ordered runs: one merge
    return _joined(starts[order], ends[order])


def _joined(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-empty intervals ordered by start joined where they overlap or touch (the order of ends does not
    matter)."""
    if not len(starts):
        return starts, ends
    reach = np.maximum.accumulate(ends)
    firsts = np.flatnonzero(np.concatenate(([True], starts[1:] > reach[:-1])))
    return starts[firsts], np.maximum.reduceat(ends, firsts)


def rank_busy(rows: Rows) -> Rows:
    """The ranks' kernel intervals merged into disjoint busy intervals."""
    starts, ends = merged(column(rows, "s")[0], column(rows, "e")[0])
    return {"start_ns": starts.astype(np.int64), "end_ns": ends.astype(np.int64)}


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


def timeline_lanes(rows: Rows) -> Rows:
    """The lane and depth of each slice of the tracks whose slices overlap (rows in order of track, then slice)."""
    (track, _), (start, _), (end, _) = column(rows, "track"), column(rows, "start_ns"), column(rows, "end_ns")
    lane = np.zeros(len(track), dtype=np.int64)
    depth = np.zeros(len(track), dtype=np.int64)
    bounds = [*np.flatnonzero(group_firsts([track])).tolist(), len(track)]
    for first, last in pairwise(bounds):
        lane[first:last], depth[first:last] = lanes(start[first:last], end[first:last])
    return {"kind": np.asarray(rows["kind"], dtype=object), "slice_row": column(rows, "slice_row")[0],
            "lane": lane, "depth": depth}


def critical_path(rows: Columns) -> Columns:
    """The critical path walk over a dependency graph (graph.critical_path, whatif.critical_path): from the GPU
    operation that ends last, back through what held each node back (graph.binding), to the GPU span's start (the
    first GPU start, or the column span_start_ns where given). Its segments, from the span's start (seq, node_id,
    part, start_ns, end_ns, stopped), tile the span."""
    from nsight_ingest.graph_loops import NONE, walked_back  # numba: imported where a walk runs

    node, (on_gpu, _) = column(rows, "node_id")[0], column(rows, "on_gpu")
    if not on_gpu.any():
        empty = np.zeros(0, dtype=np.int64)
        return {"seq": empty, "node_id": empty, "part": empty, "start_ns": empty, "end_ns": empty,
                "stopped": np.zeros(0, dtype=bool)}
    order = np.argsort(node, kind="stable")
    ids = node[order]

    def row_of(name: str) -> np.ndarray:  # the row of each node's source (NONE: none; every source is a node)
        source, valid = column(rows, name)
        return np.where(valid, order[np.searchsorted(ids, source).clip(max=len(ids) - 1)], NONE)

    start, end = plain(rows, "start_ns"), plain(rows, "end_ns")
    gpu = np.flatnonzero(on_gpu)
    last = int(gpu[np.lexsort((node[gpu], end[gpu]))[-1]])  # ends last (ties: the highest node id)
    span_start = int(plain(rows, "span_start_ns")[0]) if "span_start_ns" in rows else int(start[on_gpu].min())
    found, stopped = walked_back(start, end, row_of("start_src"), plain(rows, "start_ready_ns"), row_of("end_src"),
                                 plain(rows, "end_ready_ns"), span_start, last)
    found = found[::-1]  # from the span's start
    return {"seq": np.arange(len(found), dtype=np.int64), "node_id": node[found[:, 0]],
            **{name: np.ascontiguousarray(found[:, i]) for i, name in enumerate(("part", "start_ns", "end_ns"), 1)},
            "stopped": np.full(len(found), stopped)}


def binding(rows: Columns) -> Columns:
    """What held each node of a dependency graph back (graph.binding), from its edges: per node held by any, the
    source, kind code and ready time of its binding start edge and the source and ready time of its end edge."""
    from nsight_ingest.graph_loops import NONE, bindings  # numba: imported where a graph is walked

    node, start_src, start_kind, start_ready, end_src, end_ready = bindings(
        *(plain(rows, name) for name in ("dst", "src", "kind_code", "ready_ns", "held_ns")),
        plain(rows, "at_end", np.bool_), plain(rows, "start_ns"), plain(rows, "end_ns"))
    held, released = start_src != NONE, end_src != NONE
    return {"node_id": node, "start_src": masked(start_src, held), "start_kind_code": masked(start_kind, held),
            "start_ready_ns": masked(start_ready, held), "end_src": masked(end_src, released),
            "end_ready_ns": masked(end_ready, released)}


def replay(rows: Columns) -> Columns:
    """The what-if replay (whatif.replay): each node timed again from its edited own time and the lags of the edges
    it follows; rows are the nodes, each once per edge into it (once with NULL edge columns when none)."""
    from nsight_ingest.graph_loops import NONE, grouped, timed_events  # numba: imported where a replay runs

    (source, has_edge), node = column(rows, "src"), plain(rows, "node_id")
    ids, row, first_edge, edges, number, low = grouped(node, has_edge)
    del node
    sources = number[source[edges] - low]
    del source, has_edge, number

    def taken(name: str, picked: np.ndarray, dtype: type = np.int64) -> np.ndarray:
        # each column leaves the rows once picked: a replay of 1M operations holds 3M rows of them
        return np.ascontiguousarray(column({name: rows.pop(name)}, name)[0][picked], dtype=dtype)

    has_tail = column(rows, "tail_ns")[1][row]
    windowed = bool(len(ids)) and bool(plain(rows, "windowed", np.bool_)[0])
    kinds = taken("kind_code", edges)
    start, end, start_edge, start_ready, end_edge, end_ready, broken, broken_at = timed_events(
        first_edge, sources, *(taken(name, edges, np.bool_) for name in ("from_start", "at_end")),
        taken("lag_ns", edges), kinds, *(taken(name, edges, np.bool_) for name in ("binding", "ordered")),
        windowed, ids, *(taken(name, row) for name in ("start_ns", "end_ns", "duration_ns", "tail_ns")), has_tail)
    held, released = start_edge != NONE, end_edge != NONE
    edge_source = np.append(ids[sources], 0)  # [NONE]: the 0 appended, masked
    edge_kind = np.append(kinds, 0)
    broken_into = ids[np.searchsorted(first_edge, broken_at, side="right") - 1]  # the node that edge goes into
    return {"node_id": ids, "start_ns": start, "end_ns": end,
            "start_src": masked(edge_source[start_edge], held), "start_kind_code": masked(edge_kind[start_edge], held),
            "start_ready_ns": masked(start_ready, held), "end_src": masked(edge_source[end_edge], released),
            "end_ready_ns": masked(end_ready, released), "cycles_broken": np.full(len(ids), broken),
            **{name: masked(np.full(len(ids), value), np.full(len(ids), broken_at != NONE))
               for name, value in (("cycle_broken_src", edge_source[broken_at]),
                                   ("cycle_broken_dst", broken_into),
                                   ("cycle_broken_kind_code", edge_kind[broken_at]))}}


# The pass of each module whose header says `-- computed by: nsight_ingest.passes`: a function from its first
# SELECT's columns to the columns its later statements read, or a Stream class (its instances take the rows a batch
# at a time).
PASSES: dict[str, Pass | type[Stream]] = {
    "scope.kernels": StreamKernels,
    "classify.timeline": LaunchTimeline,
    "idle.stretches": IdleStretches,
    "communication.overlap": CommunicationOverlap,
    "ranks.busy": rank_busy,
    "timeline.lanes": timeline_lanes,
    "graph.binding": binding,
    "graph.critical_path": critical_path,
    "whatif.replay": replay,
    "whatif.critical_path": critical_path,
}
