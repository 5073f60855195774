-- How big the scope's dependency graph is: its nodes by whether they run on the GPU, its edges by kind, and how many
-- of its calls have a synchronization record (what they waited for; only export databases hold them).
-- requires: graph.nodes, graph.edges
-- access: public
-- unique: part, kind
-- not null: part, kind, count
-- returns: rows
--   part   VARCHAR  nodes, edges or records
--   kind   VARCHAR  gpu or cpu (nodes); an edge kind (edges); synchronization (records)
--   count  BIGINT   how many
SELECT 'nodes' AS part, CASE WHEN on_gpu THEN 'gpu' ELSE 'cpu' END AS kind, count(*) AS count
FROM graph_nodes GROUP BY ALL
UNION ALL
SELECT 'edges', kind, count(*) FROM graph_edges GROUP BY ALL
UNION ALL
SELECT 'records', 'synchronization', count(sync_kind) FROM graph_nodes
ORDER BY part DESC, kind
