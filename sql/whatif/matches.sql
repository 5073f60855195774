-- The nodes of the scope's dependency graph each what-if edit applies to: kernels of the family or whose name
-- matches (speedups, removals), CPU calls other than launches whose API function matches and that waited for the
-- GPU (removed syncs: graph.binding's end edge). Names are matched once each, then joined back to the nodes.
-- requires: whatif.edits, graph.nodes, graph.binding, classify.kernel_families
-- access: public
-- unique: node_id, edit_id
-- not null: node_id, edit_id
-- creates: whatif_matches
--   node_id  BIGINT  the node (graph_nodes.node_id)
--   edit_id  BIGINT  the edit (whatif_edits.edit_id)
CREATE OR REPLACE TEMP TABLE whatif_matches AS
WITH names AS (
    SELECT DISTINCT n.category, n.name, f.family
    FROM graph_nodes n LEFT JOIN kernel_families f ON n.category = 'kernel' AND f.name = n.name
    WHERE n.category IN ('kernel', 'sync_call', 'api_call')
),
matched AS (
    SELECT n.category, n.name, e.edit_id, e.edit
    FROM whatif_edits e JOIN names n
      ON CASE e.edit WHEN 'kernel_speedup_family' THEN n.category = 'kernel' AND n.family = e.pattern
                     WHEN 'remove_syncs' THEN n.category <> 'kernel' AND regexp_matches(n.name, e.pattern)
                     ELSE n.category = 'kernel' AND regexp_matches(n.name, e.pattern) END
)
SELECT n.node_id, m.edit_id
FROM graph_nodes n
JOIN matched m ON m.category = n.category AND m.name = n.name
LEFT JOIN graph_binding b ON m.edit = 'remove_syncs' AND b.node_id = n.node_id
WHERE m.edit <> 'remove_syncs' OR b.end_src IS NOT NULL;
