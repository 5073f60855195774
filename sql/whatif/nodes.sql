-- Each node of the scope's dependency graph as a what-if replay times it: its own time after the edits and, for a CPU
-- call that waited for the GPU to end (graph.binding's end edge), the time it took after what it waited for ended. A
-- kernel sped up by several edits is sped up by their product; a removed kernel takes no time; with $launch_latency_ns
-- each kernel launch call takes that long at most; a call whose syncs are removed takes only the time it took after its
-- wait.
-- requires: graph.binding, graph.nodes, whatif.matches, whatif.edits, classify.kernel_families
-- access: public
-- unique: node_id
-- not null: node_id, on_gpu, category, start_ns, end_ns, duration_ns, removed, communication
-- creates: whatif_nodes
--   node_id        BIGINT   the node (graph_nodes.node_id)
--   on_gpu         BOOLEAN  a GPU operation
--   category       VARCHAR  its category (graph_nodes.category)
--   start_ns       BIGINT   measured start (ns)
--   end_ns         BIGINT   measured end (ns)
--   duration_ns    BIGINT   its own time in the replay (ns)
--   tail_ns        BIGINT   a call that waited for the GPU: from the end of what it waited for to its return; a
--                           collective's kernel that waited for a participant: from that one's start to its end,
--                           sped up as the kernel is (ns). Its end in the replay is this long after the later of its
--                           start and what it waited for (NULL: its end is its start plus duration_ns)
--   removed        BOOLEAN  a removed kernel
--   communication  BOOLEAN  a kernel of the communication family
CREATE OR REPLACE TEMP TABLE whatif_nodes AS
WITH edited AS (
    SELECT m.node_id, product(e.factor) FILTER (WHERE e.factor IS NOT NULL) AS speedup,
           bool_or(e.edit = 'remove_kernels') AS removed, bool_or(e.edit = 'remove_syncs') AS unsynced
    FROM whatif_matches m JOIN whatif_edits e USING (edit_id)
    GROUP BY m.node_id
),
communication AS (
    SELECT DISTINCT name FROM kernel_families WHERE family = 'communication'
)
SELECT b.node_id, b.on_gpu, b.category, b.start_ns, b.end_ns,
       CASE WHEN e.removed THEN 0
            WHEN e.speedup IS NOT NULL THEN round((b.end_ns - b.start_ns) / e.speedup)::BIGINT  -- factors are bounded
            WHEN b.category = 'launch_call' AND $launch_latency_ns IS NOT NULL
                 THEN least(b.end_ns - b.start_ns, $launch_latency_ns)
            WHEN e.unsynced AND b.end_src IS NOT NULL THEN b.end_ns - b.end_ready_ns
            ELSE b.end_ns - b.start_ns END AS duration_ns,
       CASE WHEN b.end_src IS NOT NULL AND NOT coalesce(e.unsynced OR e.removed, false)
            THEN round((b.end_ns - b.end_ready_ns) / coalesce(e.speedup, 1))::BIGINT END AS tail_ns,
       coalesce(e.removed, false) AS removed,
       b.category = 'kernel' AND c.name IS NOT NULL AS communication
FROM graph_binding b
LEFT JOIN edited e USING (node_id)
LEFT JOIN (SELECT node_id, name FROM graph_nodes WHERE category = 'kernel') n USING (node_id)
LEFT JOIN communication c ON c.name = n.name;
