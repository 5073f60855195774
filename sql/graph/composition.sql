-- What the scope's critical path is made of: its time per category, the kernels' time split by family and
-- component (kernels matched to the scope's kernels by device, stream and start).
-- requires: graph.critical_path, graph.nodes, scope.kernels, classify.kernel_classes, classify.kernel_families
-- access: public
-- unique: category, family, component
-- not null: category, time_ns, segments
-- returns: rows
--   category   VARCHAR  the segments' category (graph.critical_path)
--   family     VARCHAR  for kernels: their family
--   component  VARCHAR  for kernels: their component
--   time_ns    HUGEINT  the path's time in them (ns)
--   segments   BIGINT   how many segments
WITH path AS (
    SELECT p.seq, p.category, p.end_ns - p.start_ns AS time_ns, n.device, n.stream_id, n.start_ns AS node_start_ns
    FROM graph_critical_path p JOIN graph_nodes n USING (node_id)
),
classes AS (  -- each kernel segment's family and component
    SELECT DISTINCT ON (p.seq) p.seq, f.family, c.component
    FROM path p
    JOIN scope_kernels k ON k.device = p.device AND k.stream_id = p.stream_id AND k.start_ns = p.node_start_ns
    JOIN kernel_classes c USING (context_key)
    JOIN kernel_families f USING (name_id)
    WHERE p.category = 'kernel'
    ORDER BY p.seq, f.family, c.component
)
SELECT p.category, c.family, c.component, sum(p.time_ns) AS time_ns, count(*) AS segments
FROM path p LEFT JOIN classes c USING (seq)
GROUP BY ALL
ORDER BY time_ns DESC, p.category, c.family, c.component
