-- What held each node of the scope's dependency graph back: of the edges into its start (ready_ns no later than its
-- start), the one that held it last (latest held_ns, capped at its start: a launch call holds its operation until
-- it returns, an earlier operation of the stream until it ends); of the edges into its end (sync), the latest that
-- ended while it ran. Ties go to the later edge kind in name order, then the higher node id.
-- requires: graph.nodes, graph.edges, common.edge_kinds, common.edge_kind_code
-- computed by: nsight_ingest.passes
-- access: public
-- unique: node_id
-- not null: node_id, on_gpu, category, start_ns, end_ns
-- creates: graph_binding
--   node_id         BIGINT   the node
--   on_gpu          BOOLEAN  a GPU operation
--   category        VARCHAR  its category (graph_nodes.category)
--   start_ns        BIGINT   start (ns)
--   end_ns          BIGINT   end (ns)
--   start_src       BIGINT   the node its start waited for last (NULL: none)
--   start_kind      VARCHAR  that edge's kind
--   start_ready_ns  BIGINT   when it let the node start (ns)
--   end_src         BIGINT   the node its end waited for (NULL: none)
--   end_ready_ns    BIGINT   when that node ended (ns)
SELECT e.dst, e.src, edge_kind_code(e.kind) AS kind_code, e.ready_ns, e.held_ns, e.at_end, n.start_ns, n.end_ns
FROM graph_edges e JOIN graph_nodes n ON n.node_id = e.dst;
CREATE OR REPLACE TEMP TABLE graph_binding AS
SELECT n.node_id, n.on_gpu, n.category, n.start_ns, n.end_ns, b.start_src,
       edge_kinds()[b.start_kind_code] AS start_kind, b.start_ready_ns, b.end_src, b.end_ready_ns
FROM graph_nodes n LEFT JOIN graph_binding_pass b ON b.node_id = n.node_id;
