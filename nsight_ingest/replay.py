"""The what-if replay's loop (the pass of whatif.replay), compiled by numba: it times every event of a dependency
graph (each node's start and end) once its sources are timed. A loop over millions of events in Python would take
longer than the rest of the replay together; compiled, it takes a fraction of a second (the compiled code is
cached on disk after the first run).

Events are numbered 2*node (its start) and 2*node + 1 (its end). A start edge makes the node's start wait for its
source's end plus the edge's lag; an end edge makes the node's end wait for its source's end; an edge `from_start`
waits for the source's start instead (a launch; an overlapped communication kernel). A node's end waits for its
start. Events are timed in dependency order (Kahn's algorithm); when what is left waits on itself (a cycle,
possible only through ties), the earliest event left by measured time is timed from the sources timed so far, and
the cycle counted as broken there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE = -1  # no edge


@njit(cache=True)
def _better(time: int, ready: int, kind: int, source: int, best: tuple[int, int, int, int]) -> bool:
    # the latest time; ties go to the later ready time, the later edge kind (codes in name order), the higher source
    return (time, ready, kind, source) > best


@njit(cache=True)
def timed_events(first_edge, source, from_start, at_end, lag, kind, node_id, measured_start, measured_end,
                 duration, tail, has_tail):
    """Each node's start and end in the replay, the edge that held each back last (an index into the edges, or
    NONE) with when its source let it go, and how many cycles were broken. Edges are grouped by the node that
    waits: node i's are first_edge[i]:first_edge[i+1]; `source` holds their source nodes' numbers."""
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

    measured = np.empty(events, dtype=np.int64)
    measured[0::2] = measured_start
    measured[1::2] = measured_end
    by_measured = np.argsort(measured, kind="mergesort")  # a start and end of one time: the start first
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
    while done < events:
        if head < queued:
            event = queue[head]
            head += 1
            if timed[event]:
                continue
        else:  # the rest waits on itself: time its earliest event from what is timed
            while timed[by_measured[cursor]]:
                cursor += 1
            event = by_measured[cursor]
            broken += 1
        node = event // 2
        best = (np.int64(-1 << 62), np.int64(0), np.int64(0), np.int64(0))
        chosen = NONE
        if event % 2 == 0:
            for edge in range(first_edge[node], first_edge[node + 1]):
                before = _source_event(source[edge], from_start[edge])
                if at_end[edge] or not timed[before]:
                    continue
                if _better(time[before] + lag[edge], time[before], kind[edge], node_id[source[edge]], best):
                    best = (time[before] + lag[edge], time[before], kind[edge], node_id[source[edge]])
                    chosen = edge
            time[event] = measured_start[node] if chosen == NONE else best[0]
        elif has_tail[node]:
            begin = time[event - 1]
            for edge in range(first_edge[node], first_edge[node + 1]):
                before = _source_event(source[edge], from_start[edge])
                if not at_end[edge] or not timed[before] or time[before] <= begin:
                    continue
                if _better(time[before], time[before], kind[edge], node_id[source[edge]], best):
                    best = (time[before], time[before], kind[edge], node_id[source[edge]])
                    chosen = edge
            time[event] = (begin if chosen == NONE else best[0]) + tail[node]
        else:
            time[event] = time[event - 1] + duration[node]
        held_by[event] = chosen
        ready[event] = best[1]
        timed[event] = True
        done += 1
        for index in range(first_out[event], first_out[event + 1]):
            waiting[after[index]] -= 1
            if waiting[after[index]] == 0 and not timed[after[index]]:
                queue[queued] = after[index]
                queued += 1
    return (time[0::2].copy(), time[1::2].copy(), held_by[0::2].copy(), ready[0::2].copy(), held_by[1::2].copy(),
            ready[1::2].copy(), broken)


@njit(cache=True)
def _source_event(source: int, from_start: bool) -> int:
    """The event of the source an edge waits for: its start (a launch; a communication kernel that overlaps) or
    its end."""
    return 2 * source if from_start else 2 * source + 1
