-- The nodes that hold the most of the scope's critical path: its segments grouped by what they are the time of
-- (a kernel, operation or API function by name, with the category; a wait counts for the node that waited), the
-- $top longest in total. The idle time before the path is no node's: it is not here.
-- requires: graph.critical_path, graph.nodes, common.kernel_short_name
-- access: public
-- unique: category, name
-- not null: category, time_ns, segments
-- returns: rows
--   category    VARCHAR  the segments' category (graph.critical_path)
--   name        VARCHAR  the kernel, operation or API function the time is of (or that waited)
--   short_name  VARCHAR  its short name (kernel_short_name)
--   time_ns     HUGEINT  the path's time in them (ns)
--   segments    BIGINT   how many segments
SELECT p.category, n.name, kernel_short_name(n.name) AS short_name, sum(p.end_ns - p.start_ns) AS time_ns,
       count(*) AS segments
FROM graph_critical_path p
JOIN (SELECT node_id, name FROM graph_nodes) n USING (node_id)
WHERE p.category <> 'idle'  -- the time before the path is no node's
GROUP BY ALL
HAVING sum(p.end_ns - p.start_ns) > 0
ORDER BY time_ns DESC, p.category, n.name
LIMIT $top
