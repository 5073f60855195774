"""The critical path walk (passes.critical_path, the pass of graph.critical_path) alone: given what held each node
back, the path's segments (a node's own time, the wait before its start or its end, the time before the path),
worked out by hand."""

from __future__ import annotations

from nsight_ingest.graph_loops import BEFORE, END_WAIT, OWN, START_WAIT
from nsight_ingest.passes import critical_path
from tests.sql.conftest import pass_columns

COLUMNS = ("node_id", "on_gpu", "start_ns", "end_ns", "start_src", "start_ready_ns", "end_src", "end_ready_ns")


def binding(*nodes: tuple) -> dict:
    """graph.binding's columns from rows in COLUMNS order (None: NULL)."""
    return pass_columns(COLUMNS, nodes)


def segments(out: dict) -> list[tuple]:
    return list(zip(out["node_id"].tolist(), out["part"].tolist(), out["start_ns"].tolist(),
                    out["end_ns"].tolist(), strict=True))


def test_a_call_waiting_for_the_gpu_and_a_launch():
    """K1 [0,100) on the GPU; a sync call S [10,130) returns 30 ns after K1 ends; the launch call L [140,150) follows S
    on the thread; K2 [160,200) is L's kernel. Back from K2: K2, launch latency [140,160), CPU work [130,140), S's
    wake-up [100,130), K1."""
    out = critical_path(binding(
        (1, True, 0, 100, None, None, None, None),
        (2, True, 160, 200, 4, 140, None, None),
        (3, False, 10, 130, None, None, 1, 100),
        (4, False, 140, 150, 3, 130, None, None),
    ))
    assert segments(out) == [(1, OWN, 0, 100), (3, END_WAIT, 100, 130), (4, START_WAIT, 130, 140),
                             (2, START_WAIT, 140, 160), (2, OWN, 160, 200)]
    assert out["seq"].tolist() == [0, 1, 2, 3, 4] and not out["stopped"].any()


def test_the_time_before_the_first_node_is_idle_and_cpu_time_before_the_span_is_cut():
    """K3 [100,120) waits for a launch call that started at 0, before the GPU span (from K1's start at 10): the wait
    is cut to the span's start and the walk ends there. Without K3, K2 [50,90) ends last and waits for nothing:
    [10,50) is idle."""
    out = critical_path(binding(
        (1, True, 10, 20, None, None, None, None),
        (2, True, 50, 90, None, None, None, None),
        (3, True, 100, 120, 4, 0, None, None),
        (4, False, 0, 5, None, None, None, None),
    ))
    assert segments(out) == [(3, START_WAIT, 10, 100), (3, OWN, 100, 120)]
    whole = critical_path(binding(
        (1, True, 10, 20, None, None, None, None),
        (2, True, 50, 90, None, None, None, None),
    ))
    assert segments(whole) == [(2, BEFORE, 10, 50), (2, OWN, 50, 90)]


def test_a_cycle_stops_the_walk_and_the_span_is_still_tiled():
    """A [10,20) and B [10,10) each held back by the other at 10 (damaged data): the walk stops at its step limit and
    the rest of the span, from C's start at 0, is idle."""
    out = critical_path(binding(
        (1, True, 10, 20, 2, 10, None, None),
        (2, False, 10, 10, 1, 10, None, None),
        (3, True, 0, 5, None, None, None, None),
    ))
    assert out["stopped"].all()
    assert segments(out)[0][1:] == (BEFORE, 0, 10) and segments(out)[-1] == (1, OWN, 10, 20)


def test_no_gpu_operation_gives_no_path():
    out = critical_path(binding((1, False, 0, 10, None, None, None, None)))
    assert len(out["seq"]) == 0
