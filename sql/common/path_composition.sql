-- creates: path_composition
-- What a critical path (the table named by `path`: graph_critical_path or whatif_critical_path) is made of: its
-- time per category, the kernels' time split by family and component (kernels matched to the scope's kernels by
-- device, stream and measured start). Columns as graph.composition's.
CREATE OR REPLACE MACRO path_composition(path) AS TABLE
WITH segments AS (
    SELECT p.seq, p.category, p.end_ns - p.start_ns AS time_ns, n.device, n.stream_id, n.start_ns AS node_start_ns
    FROM query_table(path) p JOIN graph_nodes n USING (node_id)
),
classes AS (  -- each kernel segment's family and component
    SELECT DISTINCT ON (s.seq) s.seq, f.family, c.component
    FROM segments s
    JOIN scope_kernels k ON k.device = s.device AND k.stream_id = s.stream_id AND k.start_ns = s.node_start_ns
    JOIN kernel_classes c USING (context_key)
    JOIN kernel_families f USING (name_id)
    WHERE s.category = 'kernel'
    ORDER BY s.seq, f.family, c.component
)
SELECT s.category, c.family, c.component, sum(s.time_ns) AS time_ns, count(*) AS segments
FROM segments s LEFT JOIN classes c USING (seq)
GROUP BY ALL
ORDER BY time_ns DESC, s.category, c.family, c.component;
