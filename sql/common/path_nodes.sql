-- creates: path_nodes
-- requires: common.kernel_short_name
-- The nodes that hold the most of a critical path (the table named by `path`: graph_critical_path or
-- whatif_critical_path): its segments grouped by what they are the time of (a kernel, operation or API function by
-- name, with the category; a wait counts for the node that waited), the `top` longest in total. The idle time
-- before the path is no node's: it is not here. Columns as graph.path_nodes'.
CREATE OR REPLACE MACRO path_nodes(path, top) AS TABLE
SELECT p.category, n.name, kernel_short_name(n.name) AS short_name, sum(p.end_ns - p.start_ns) AS time_ns,
       count(*) AS segments
FROM query_table(path) p
JOIN (SELECT node_id, name FROM graph_nodes) n USING (node_id)
WHERE p.category <> 'idle'  -- the time before the path is no node's
GROUP BY ALL
HAVING sum(p.end_ns - p.start_ns) > 0
ORDER BY time_ns DESC, p.category, n.name
LIMIT top;
