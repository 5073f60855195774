-- A what-if replay in one row: the GPU span measured and replayed, and what the replay could not follow.
-- requires: whatif.replay, whatif.edges, graph.nodes
-- access: public
-- not null: measured_span_ns, predicted_span_ns, edges_followed, edges_disagreeing, edges_overlapped, cycles_broken
-- returns: rows
--   measured_span_ns   BIGINT  the GPU span measured: first GPU operation's start to the last end (ns)
--   predicted_span_ns  BIGINT  from the same start to the last GPU operation's end in the replay (ns): the work
--                              starts when it did
--   edges_followed     BIGINT  edges the replay followed
--   edges_disagreeing  BIGINT  edges it did not follow because they disagree with the measured times (a kernel that
--                              overlaps the one before it on its stream, as programmatic dependent launch lets it;
--                              clock skew; damaged data)
--   edges_overlapped   BIGINT  edges out of communication kernels followed from the kernel's start
--                              (--overlap-communication)
--   cycles_broken      BIGINT  cycles the replay broke (whatif.replay)
--   cycle_broken_src   BIGINT  the first cycle's edge it was broken at: its source (graph_nodes.node_id; NULL: none)
--   cycle_broken_dst   BIGINT  that edge's node that waits
--   cycle_broken_kind  VARCHAR that edge's kind
WITH measured AS (
    SELECT min(start_ns) AS start_ns, max(end_ns) - min(start_ns) AS span_ns FROM graph_nodes WHERE on_gpu
),
replayed AS (
    SELECT max(end_ns) FILTER (WHERE on_gpu) - (SELECT start_ns FROM measured) AS span_ns,
           any_value(cycles_broken) AS cycles_broken, any_value(cycle_broken_src) AS cycle_broken_src,
           any_value(cycle_broken_dst) AS cycle_broken_dst, any_value(cycle_broken_kind) AS cycle_broken_kind
    FROM whatif_binding
),
edges AS (
    SELECT count(*) FILTER (WHERE agrees) AS followed, count(*) FILTER (WHERE NOT agrees) AS disagreeing,
           count(*) FILTER (WHERE agrees AND from_start AND kind <> 'launch') AS overlapped
    FROM whatif_edges
)
SELECT m.span_ns AS measured_span_ns, r.span_ns AS predicted_span_ns, e.followed AS edges_followed,
       e.disagreeing AS edges_disagreeing, e.overlapped AS edges_overlapped,
       coalesce(r.cycles_broken, 0) AS cycles_broken, r.cycle_broken_src, r.cycle_broken_dst, r.cycle_broken_kind
FROM measured m, replayed r, edges e
