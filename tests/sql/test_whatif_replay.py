"""The what-if replay (passes.replay, the pass of whatif.replay) alone: nodes with their edited times and the lags
of their edges in, each node's replayed start and end and what held it back out, worked out by hand."""

from __future__ import annotations

from nsight_ingest.passes import replay
from tests.sql.conftest import pass_columns

COLUMNS = ("node_id", "start_ns", "end_ns", "duration_ns", "tail_ns", "src", "from_start", "at_end", "lag_ns",
           "kind_code", "binding", "ordered", "windowed")
LAUNCH, PROGRAM, STREAM, SYNC = 1, 2, 3, 4  # whatif.replay's kind codes (the kinds in name order, from 1)


def rows(*given: tuple, windowed: bool = False) -> dict:
    """whatif.replay's first SELECT from rows in COLUMNS order (None: NULL); a node once per edge into it."""
    return pass_columns(COLUMNS, [(*row, windowed) for row in given])


def node(node_id, start, end, duration=None, tail=None):
    """A node without edges into it."""
    return (node_id, start, end, end - start if duration is None else duration, tail, None, None, None, None, None,
            None, None)


def edge(node_id, start, end, src, lag, kind, duration=None, tail=None, at_end=False, binding=False):
    """A node's row with one edge into it (of `kind`, from node `src`, `lag` ns)."""
    return (node_id, start, end, end - start if duration is None else duration, tail, src, kind == LAUNCH, at_end,
            lag, kind, binding, kind in (PROGRAM, STREAM))


def timed(out: dict) -> dict:
    return {n: (s, e) for n, s, e in zip(out["node_id"].tolist(), out["start_ns"].tolist(), out["end_ns"].tolist(),
                                         strict=True)}


def test_a_chain_with_a_faster_kernel_and_a_waiting_call():
    """Call 10 [0,10) launches K1 (lag 20) and K2; K1 runs 100 -> 50 (edited); K2 [120,280) follows K1 on the
    stream (lag 0) and its launch (lag 25 after call 11's start at 30); call 12 [50,300) waits for K2 and returns
    20 after it. Replayed: K1 [20,70), K2 [70,230), call 12 returns at 250, held by K2."""
    out = replay(rows(
        node(10, 0, 10),
        edge(11, 30, 40, 10, 20, PROGRAM),
        edge(1, 20, 120, 10, 20, LAUNCH, duration=50),
        edge(2, 120, 280, 1, 0, STREAM), edge(2, 120, 280, 11, 25, LAUNCH),
        edge(12, 50, 300, 11, 10, PROGRAM, tail=20), edge(12, 50, 300, 2, 0, SYNC, tail=20, at_end=True),
    ))
    assert timed(out) == {1: (20, 70), 2: (70, 230), 10: (0, 10), 11: (30, 40), 12: (50, 250)}
    by_node = {name: dict(zip(out["node_id"].tolist(), out[name].tolist(), strict=True))
               for name in ("start_src", "start_kind_code", "end_src", "end_ready_ns")}
    assert by_node["start_src"] == {1: 10, 2: 1, 10: None, 11: 10, 12: 11}  # K2: its stream, not its launch (55)
    assert by_node["start_kind_code"][2] == STREAM
    assert (by_node["end_src"][12], by_node["end_ready_ns"][12]) == (2, 230)
    assert out["cycles_broken"].tolist() == [0] * 5


def test_without_edits_every_node_keeps_its_times():
    """The binding edge's lag is the measured one; the other edge's lag is no longer than its measured lag."""
    given = rows(node(1, 0, 100), node(3, 5, 8),
                 edge(2, 130, 150, 1, 30, STREAM), edge(2, 130, 150, 3, 10, LAUNCH))
    assert timed(replay(given)) == {1: (0, 100), 2: (130, 150), 3: (5, 8)}


def test_a_cycle_through_ties_is_broken_and_counted():
    """Two zero-length nodes at 50, each waiting for the other's end (damaged data): the earlier event by measured
    time is timed first from what is timed (nothing: its measured start), the other follows."""
    out = replay(rows(edge(1, 50, 50, 2, 0, STREAM), edge(2, 50, 50, 1, 0, STREAM)))
    assert timed(out) == {1: (50, 50), 2: (50, 50)}
    assert out["cycles_broken"].tolist() == [1, 1]
    # broken at node 1's start: the edge it does not follow is the one from node 2
    assert (out["cycle_broken_src"][0], out["cycle_broken_dst"][0], out["cycle_broken_kind_code"][0]) == (2, 1, STREAM)


def test_ties_go_to_the_edge_that_held_the_node_in_the_capture():
    """K2 at 100 is let go at 100 by both its stream (K1's end, lag 0) and its launch (call at 40, lag 60): the
    launch held it in the capture, so it holds it in the replay, though the stream's source let it go later."""
    out = replay(rows(node(1, 0, 100), node(3, 40, 50),
                      edge(2, 100, 150, 1, 0, STREAM), edge(2, 100, 150, 3, 60, LAUNCH, binding=True)))
    held = dict(zip(out["node_id"].tolist(), out["start_src"].tolist(), strict=True))
    assert held[2] == 3 and timed(out)[2] == (100, 150)


def test_in_a_window_a_node_cut_from_its_predecessor_starts_no_earlier():
    """K1 [500,600) waited for a kernel before the window; inside it only its launch call [0,10) remains, 500 ns
    before it (its lag). Halving that lag moves K1 earlier in a whole capture, not in a window."""
    given = (node(3, 0, 10), edge(1, 500, 600, 3, 250, LAUNCH, binding=True))
    assert timed(replay(rows(*given)))[1] == (250, 350)
    assert timed(replay(rows(*given, windowed=True)))[1] == (500, 600)
