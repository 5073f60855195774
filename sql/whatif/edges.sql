-- The edges of the scope's dependency graph as a what-if replay follows them, each with the lag it keeps: how long
-- after its source let it go the node starts at the earliest. The replay follows only the edges that agree with the
-- measured times (a start edge whose source let the node go no later than its start; an end edge whose source ended
-- while the call ran): the others come from clock skew or damaged data. The edge that held the node back
-- (graph.binding) keeps its measured lag, so a replay without edits reproduces the capture; another stream or launch
-- edge keeps the capture's typical lag of its kind (the median of the binding ones), or its measured lag when shorter:
-- the node starts that long after it is free to. Edits: with $launch_latency_ns a kernel starts at most that long after
-- its launch call starts, and a launch call follows the thread's previous launch call at once (the CPU work between
-- them is gone: kernels fed as from a CUDA graph; a launch never gets slower); a removed kernel keeps its lags (it
-- takes no time once it is submitted); with $overlap_communication what follows a communication kernel, other than
-- communication kernels, waits only for what the kernel waited for: the edge starts at the kernel's start, lag 0 (the
-- collective's time is hidden; its data dependencies stay).
-- requires: graph.edges, graph.binding, whatif.nodes
-- access: public
-- not null: src, dst, kind, at_end, agrees, binding, ordered, from_start, lag_ns
-- creates: whatif_edges
--   src         BIGINT   the node waited for (graph_nodes.node_id)
--   dst         BIGINT   the node that waits
--   kind        VARCHAR  stream, launch, program, sync, event or collective (graph_edges.kind)
--   at_end      BOOLEAN  the edge holds back dst's end (sync, collective): dst ends tail_ns after src's end (a
--                        collective: start) at the earliest
--   agrees      BOOLEAN  the edge agrees with the measured times (the replay follows it)
--   binding     BOOLEAN  the edge that held dst's start back in the capture (graph.binding): it wins ties
--   ordered     BOOLEAN  a stream or program edge (a node without one in a window waited for something outside it)
--   from_start  BOOLEAN  dst waits for src's start (a launch; a collective's participant; an overlapped
--                        communication kernel), not its end
--   lag_ns      BIGINT   a start edge: dst starts this long after src lets it go at the earliest (ns); 0 for end
--                        edges
CREATE OR REPLACE TEMP TABLE whatif_edges AS
WITH valid AS (
    SELECT e.src, e.dst, e.kind, e.at_end, d.start_ns - e.ready_ns AS measured_lag_ns,
           NOT e.at_end AND e.src = d.start_src AND e.kind = d.start_kind AS binding,
           CASE WHEN e.at_end THEN e.ready_ns > d.start_ns AND e.ready_ns <= d.end_ns
                ELSE e.ready_ns <= d.start_ns END AS agrees
    FROM graph_edges e JOIN graph_binding d ON d.node_id = e.dst
),
typical AS (
    SELECT median(measured_lag_ns) FILTER (WHERE kind = 'stream' AND binding)::BIGINT AS stream_ns,
           median(measured_lag_ns) FILTER (WHERE kind = 'launch' AND binding)::BIGINT AS launch_ns
    FROM valid
)
SELECT v.src, v.dst, v.kind, v.at_end, v.agrees, v.binding, v.kind IN ('stream', 'program') AS ordered,
       v.kind IN ('launch', 'collective') OR overlapped AS from_start,
       CASE WHEN v.at_end OR NOT v.agrees OR overlapped THEN 0
            WHEN $launch_latency_ns IS NOT NULL AND v.kind = 'program' AND s.category = 'launch_call'
                 AND d.category = 'launch_call' THEN 0
            WHEN $launch_latency_ns IS NOT NULL AND v.kind = 'launch' AND d.category = 'kernel'
                 THEN least(kept.lag_ns, $launch_latency_ns)
            ELSE kept.lag_ns END AS lag_ns
FROM valid v
JOIN whatif_nodes d ON d.node_id = v.dst
JOIN whatif_nodes s ON s.node_id = v.src
CROSS JOIN typical t,
LATERAL (SELECT $overlap_communication AND s.communication AND NOT d.communication AS overlapped),
LATERAL (SELECT CASE WHEN v.binding THEN v.measured_lag_ns  -- the lag without edits
                     WHEN v.kind = 'stream' THEN least(v.measured_lag_ns, coalesce(t.stream_ns, 0))
                     WHEN v.kind = 'launch' THEN least(v.measured_lag_ns, coalesce(t.launch_ns, 0))
                     ELSE v.measured_lag_ns END AS lag_ns) kept;
