"""The loops over a dependency graph, compiled by numba: the critical path walk (the pass of graph.critical_path
and whatif.critical_path) and the what-if replay (the pass of whatif.replay), which times every event of the graph
(each node's start and end) once its sources are timed. A loop over millions of nodes in Python takes
seconds; compiled, a fraction of one (the compiled code is cached on disk after the first run).

In the replay, events are numbered 2*node (its start) and 2*node + 1 (its end). A start edge makes the node's start
wait for its source's end plus the edge's lag; an end edge makes the node's end wait for its source's end; an edge
`from_start` waits for the source's start instead (a launch; an overlapped communication kernel). A node's end
waits for its start. Events are timed in dependency order (Kahn's algorithm); when what is left waits on itself (a
cycle, possible only through ties), the earliest event left by measured time is timed from the sources timed so far,
and the cycle counted as broken there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE = -1  # no edge


@njit(cache=True)
def _better(found: tuple[int, int, int, int, int], best: tuple[int, int, int, int, int]) -> bool:
    # (time, binding, ready, kind, source): the latest time; ties go to the edge that held the node in the capture
    # (so a replay without edits keeps graph.binding's), then the later ready time, kind (codes in name order),
    # source
    return found > best


@njit(cache=True)
def bindings(dst, src, kind, ready, held, at_end, start, end):
    """What held each node back (graph.binding), from its edges (each with the node's start and end): of the edges
    into its start that let it go no later than its start, the one that held it last (latest `held`, capped at the
    start); of those into its end, the latest that ended while it ran; ties go to the later kind code, then the
    higher source id. Per node with either: its id, each edge's source (NONE: none), the start edge's kind code and
    both ready times."""
    low = dst.min() if len(dst) else 0
    slots = (dst.max() - low + 1) if len(dst) else 0
    start_best = np.full((slots, 4), NONE, dtype=np.int64)  # held, kind, source, ready of the binding start edge
    end_best = np.full((slots, 4), NONE, dtype=np.int64)
    for edge in range(len(dst)):
        slot = dst[edge] - low
        if at_end[edge]:
            if not (start[edge] < ready[edge] <= end[edge]):
                continue
            best, until = end_best, ready[edge]
        elif ready[edge] <= start[edge]:
            best, until = start_best, min(held[edge], start[edge])
        else:
            continue
        found = (until, kind[edge], src[edge])
        if best[slot, 2] == NONE or found > (best[slot, 0], best[slot, 1], best[slot, 2]):
            best[slot, 0], best[slot, 1], best[slot, 2], best[slot, 3] = until, kind[edge], src[edge], ready[edge]
    nodes = np.flatnonzero((start_best[:, 2] != NONE) | (end_best[:, 2] != NONE))
    return (nodes + low, start_best[nodes, 2].copy(), start_best[nodes, 1].copy(), start_best[nodes, 3].copy(),
            end_best[nodes, 2].copy(), end_best[nodes, 3].copy())


@njit(cache=True)
def grouped(node_id, has_edge):
    """The rows of a node list given once per edge into each node (once without an edge when none), grouped: the
    distinct node ids (in order of first row), a row of each, the edge rows grouped by node (node i's are
    edge_rows[first_edge[i]:first_edge[i+1]]), and the lookup of a node's number by its id (number[id - low]) with
    `low`. A counting sort over that lookup: node ids are dense (operation rows, then call numbers)."""
    low, high = node_id.min(), node_id.max()
    number = np.full(high - low + 1, NONE, dtype=np.int64)
    row_node = np.empty(len(node_id), dtype=np.int64)
    ids = np.empty(len(node_id), dtype=np.int64)
    node_row = np.empty(len(node_id), dtype=np.int64)
    nodes = 0
    for row in range(len(node_id)):
        slot = node_id[row] - low
        if number[slot] == NONE:
            number[slot], ids[nodes], node_row[nodes] = nodes, node_id[row], row
            nodes += 1
        row_node[row] = number[slot]
    first_edge = np.zeros(nodes + 1, dtype=np.int64)
    for row in range(len(node_id)):
        if has_edge[row]:
            first_edge[row_node[row] + 1] += 1
    first_edge = np.cumsum(first_edge)
    filled = first_edge[:-1].copy()
    edge_rows = np.empty(first_edge[-1], dtype=np.int64)
    for row in range(len(node_id)):
        if has_edge[row]:
            edge_rows[filled[row_node[row]]] = row
            filled[row_node[row]] += 1
    return ids[:nodes].copy(), node_row[:nodes].copy(), first_edge, edge_rows, number, low


@njit(cache=True)
def timed_events(first_edge, source, from_start, at_end, lag, kind, binding, ordered, windowed, node_id,
                 measured_start, measured_end, duration, tail, has_tail):
    """Each node's start and end in the replay, the edge that held each back last (an index into the edges, or
    NONE) with when its source let it go, how many cycles were broken and the edge the first was broken at (an
    edge into the event timed to break it whose source was not timed yet; NONE: none). Edges are grouped by the
    node that waits: node i's are first_edge[i]:first_edge[i+1]; `source` holds their source nodes' numbers. In a window
    (`windowed`), a node without a stream or program edge (`ordered`) waited for something outside it: it starts no
    earlier than measured."""
    nodes = len(measured_start)
    events = 2 * nodes
    waiting = np.zeros(events, dtype=np.int64)  # sources not timed yet, per event
    out_count = np.zeros(events + 1, dtype=np.int64)
    for node in range(nodes):
        for edge in range(first_edge[node], first_edge[node + 1]):
            before = _source_event(source[edge], from_start[edge])
            waiting[2 * node + 1 if at_end[edge] else 2 * node] += 1
            out_count[before + 1] += 1
        waiting[2 * node + 1] += 1  # its end waits for its start
        out_count[2 * node + 1] += 1
    first_out = np.cumsum(out_count)
    filled = first_out[:-1].copy()
    after = np.empty(first_out[-1], dtype=np.int64)
    for node in range(nodes):
        for edge in range(first_edge[node], first_edge[node + 1]):
            before = _source_event(source[edge], from_start[edge])
            after[filled[before]] = 2 * node + 1 if at_end[edge] else 2 * node
            filled[before] += 1
        after[filled[2 * node]] = 2 * node + 1
        filled[2 * node] += 1

    by_measured = np.zeros(0, dtype=np.int64)  # events by measured time: sorted only when a cycle is met
    time = np.zeros(events, dtype=np.int64)
    held_by = np.full(events, NONE, dtype=np.int64)
    ready = np.zeros(events, dtype=np.int64)
    timed = np.zeros(events, dtype=np.bool_)
    queue = np.empty(events, dtype=np.int64)
    head = queued = 0
    for event in range(events):
        if waiting[event] == 0:
            queue[queued] = event
            queued += 1
    done = broken = cursor = 0
    broken_at = NONE
    while done < events:
        if head < queued:
            event = queue[head]
            head += 1
            if timed[event]:
                continue
        else:  # the rest waits on itself: time its earliest event from what is timed
            if len(by_measured) == 0:
                measured = np.empty(events, dtype=np.int64)
                measured[0::2] = measured_start
                measured[1::2] = measured_end
                by_measured = np.argsort(measured, kind="mergesort")  # a start and end of one time: the start first
            while timed[by_measured[cursor]]:
                cursor += 1
            event = by_measured[cursor]
            broken += 1
            for edge in range(first_edge[event // 2], first_edge[event // 2 + 1]):
                before = _source_event(source[edge], from_start[edge])
                if broken_at == NONE and at_end[edge] == (event % 2 == 1) and not timed[before]:
                    broken_at = edge
        node = event // 2
        best = (np.int64(-1 << 62), np.int64(0), np.int64(0), np.int64(0), np.int64(0))
        chosen = NONE
        if event % 2 == 0:
            cut = windowed
            for edge in range(first_edge[node], first_edge[node + 1]):
                cut = cut and not ordered[edge]
                before = _source_event(source[edge], from_start[edge])
                if at_end[edge] or not timed[before]:
                    continue
                found = (time[before] + lag[edge], np.int64(binding[edge]), time[before], kind[edge],
                         node_id[source[edge]])
                if _better(found, best):
                    best, chosen = found, edge
            time[event] = measured_start[node] if chosen == NONE else best[0]
            if cut:
                time[event] = max(time[event], measured_start[node])
        elif has_tail[node]:
            begin = time[event - 1]
            for edge in range(first_edge[node], first_edge[node + 1]):
                before = _source_event(source[edge], from_start[edge])
                if not at_end[edge] or not timed[before] or time[before] <= begin:
                    continue
                found = (time[before], np.int64(0), time[before], kind[edge], node_id[source[edge]])
                if _better(found, best):
                    best, chosen = found, edge
            time[event] = (begin if chosen == NONE else best[0]) + tail[node]
        else:
            time[event] = time[event - 1] + duration[node]
        held_by[event] = chosen
        ready[event] = best[2]
        timed[event] = True
        done += 1
        for index in range(first_out[event], first_out[event + 1]):
            waiting[after[index]] -= 1
            if waiting[after[index]] == 0 and not timed[after[index]]:
                queue[queued] = after[index]
                queued += 1
    return (time[0::2].copy(), time[1::2].copy(), held_by[0::2].copy(), ready[0::2].copy(), held_by[1::2].copy(),
            ready[1::2].copy(), broken, broken_at)


@njit(cache=True)
def _source_event(source: int, from_start: bool) -> int:
    """The event of the source an edge waits for: its start (a launch; a communication kernel that overlaps) or
    its end."""
    return 2 * source if from_start else 2 * source + 1


# What a segment of the critical path is (the walk's `part`; path_category names each): a node's own time, the wait
# before its start, the wait before its end (a call that returned after the GPU operation it waited for), the time
# before the path's first node.
OWN, START_WAIT, END_WAIT, BEFORE = 0, 1, 2, 3


@njit(cache=True)
def _add(found, count, row, part, start, end):
    """The segments found with one more (the array doubled when full), and their count."""
    if count == len(found):
        grown = np.empty((2 * len(found), 4), dtype=np.int64)
        grown[:count] = found
        found = grown
    found[count, 0], found[count, 1], found[count, 2], found[count, 3] = row, part, start, end
    return found, count + 1


@njit(cache=True)
def walked_back(begin_at, end_at, start_from, start_ready, end_from, end_ready, span_start, last):
    """The critical path's segments, from node row `last` (the GPU operation that ends last) back to the span's
    start through what held each node back (start_from, end_from: a row, or NONE): one row per segment (node row,
    part, start, end; found last first), and whether the walk stopped at its step limit (a cycle in damaged
    data)."""
    limit = 2 * len(begin_at) + 1  # each step goes back to an earlier node: more steps means a cycle
    found = np.empty((1024, 4), dtype=np.int64)
    count = 0
    current, cursor, stopped = last, end_at[last], True
    for _ in range(limit):
        begin, ready = begin_at[current], end_ready[current]
        if end_from[current] != NONE and begin < ready <= cursor:  # its end waited for an operation that ended in it
            found, count = _add(found, count, current, END_WAIT, ready, cursor)
            current, cursor = end_from[current], ready
            continue
        if cursor > max(begin, span_start):
            found, count = _add(found, count, current, OWN, max(begin, span_start), cursor)
        if begin <= span_start:
            stopped = False
            break
        if start_from[current] == NONE:
            found, count = _add(found, count, current, BEFORE, span_start, begin)
            stopped = False
            break
        ready = max(start_ready[current], span_start)
        if begin > ready:
            found, count = _add(found, count, current, START_WAIT, ready, begin)
        if ready <= span_start:
            stopped = False
            break
        current, cursor = start_from[current], ready
    if stopped:
        found, count = _add(found, count, current, BEFORE, span_start, cursor)
    return found[:count], stopped
