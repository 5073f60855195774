-- How big the scope's dependency graph is: its nodes by whether they run on the GPU, its edges by kind.
-- requires: graph.nodes, graph.edges
-- access: public
-- unique: part, kind
-- not null: part, kind, count
-- returns: rows
--   part   VARCHAR  nodes or edges
--   kind   VARCHAR  gpu or cpu (nodes); stream, launch, program or sync (edges)
--   count  BIGINT   how many
SELECT 'nodes' AS part, CASE WHEN on_gpu THEN 'gpu' ELSE 'cpu' END AS kind, count(*) AS count
FROM graph_nodes GROUP BY ALL
UNION ALL
SELECT 'edges', kind, count(*) FROM graph_edges GROUP BY ALL
ORDER BY part DESC, kind
