-- What held each node of the scope's dependency graph back: of the edges into its start, the one that let it go
-- last (latest ready_ns no later than its start: the others were done before); of the edges into its end (sync),
-- the latest that ended while it ran. Ties go to the later edge kind in name order, then the higher node id.
-- requires: graph.nodes, graph.edges
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
CREATE OR REPLACE TEMP TABLE graph_binding AS
WITH latest AS (
    SELECT e.dst,
           max({'ready_ns': e.ready_ns, 'kind': e.kind, 'src': e.src})
               FILTER (WHERE NOT e.at_end AND e.ready_ns <= n.start_ns) AS start_edge,
           max({'ready_ns': e.ready_ns, 'kind': e.kind, 'src': e.src})
               FILTER (WHERE e.at_end AND e.ready_ns > n.start_ns AND e.ready_ns <= n.end_ns) AS end_edge
    FROM graph_edges e JOIN graph_nodes n ON n.node_id = e.dst
    GROUP BY e.dst
)
SELECT n.node_id, n.on_gpu, n.category, n.start_ns, n.end_ns,
       l.start_edge.src AS start_src, l.start_edge.kind AS start_kind, l.start_edge.ready_ns AS start_ready_ns,
       l.end_edge.src AS end_src, l.end_edge.ready_ns AS end_ready_ns
FROM graph_nodes n LEFT JOIN latest l ON l.dst = n.node_id;
