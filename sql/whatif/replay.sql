-- A what-if replay of the scope's dependency graph: every node timed again, in dependency order, from its edited own
-- time (whatif.nodes) and the lags of the edges it follows (whatif.edges). A node starts at the latest of its start
-- edges' sources' ends (a launch: the call's start) plus their lags (ties: the edge that held it in the capture); one
-- without such edges starts when it was measured to, and in a window one without a stream or program edge (its
-- predecessor lies outside) starts no earlier than it was measured to. A call that waited for the GPU ends its tail
-- after the later of its start and what it waited for; any other node ends its own time after its start. Without edits
-- every node keeps its measured times. A cycle (only possible through zero-length nodes and ties) is broken at the
-- earliest event it holds, and counted. The rows are as graph.binding's, in the replay's times, so the critical path
-- walk reads them alike.
-- requires: whatif.nodes, whatif.edges, scope.window_ranges, common.edge_kinds, common.edge_kind_code
-- computed by: nsight_ingest.passes
-- access: public
-- unique: node_id
-- not null: node_id, on_gpu, category, start_ns, end_ns, cycles_broken
-- creates: whatif_binding
--   node_id         BIGINT   the node
--   on_gpu          BOOLEAN  a GPU operation
--   category        VARCHAR  its category (graph_nodes.category)
--   start_ns        BIGINT   start in the replay (ns)
--   end_ns          BIGINT   end in the replay (ns)
--   start_src       BIGINT   the node its start waited for last in the replay (NULL: none)
--   start_kind      VARCHAR  that edge's kind
--   start_ready_ns  BIGINT   when that node let it start (its end; a launch call's start) in the replay (ns)
--   end_src         BIGINT   the node its end waited for in the replay (NULL: none)
--   end_ready_ns    BIGINT   when that node ended in the replay (ns)
--   cycles_broken   BIGINT   how many times the replay broke a cycle (the same on every row)
--   cycle_broken_src  BIGINT the source of the edge the first cycle was broken at (not followed; NULL: none)
--   cycle_broken_dst  BIGINT the node that edge goes into
--   cycle_broken_kind VARCHAR that edge's kind
SELECT n.node_id, n.start_ns, n.end_ns, n.duration_ns, n.tail_ns, e.src, e.from_start, e.at_end,
       e.lag_ns, edge_kind_code(e.kind) AS kind_code, e.binding, e.ordered,
       (SELECT count(*) > 0 FROM scope_window_ranges) AS windowed
FROM whatif_nodes n LEFT JOIN (SELECT * FROM whatif_edges WHERE agrees) e ON e.dst = n.node_id;
CREATE OR REPLACE TEMP TABLE whatif_binding AS
SELECT p.node_id, n.on_gpu, n.category, p.start_ns, p.end_ns, p.start_src,
       edge_kinds()[p.start_kind_code] AS start_kind, p.start_ready_ns, p.end_src,
       p.end_ready_ns, p.cycles_broken, p.cycle_broken_src, p.cycle_broken_dst,
       edge_kinds()[p.cycle_broken_kind_code] AS cycle_broken_kind
FROM whatif_replay_pass p JOIN whatif_nodes n USING (node_id);
