-- Each what-if edit with what it applies to in the scope: how many nodes and their measured own time.
-- requires: whatif.edits, whatif.matches, graph.nodes
-- access: public
-- unique: edit_id
-- not null: edit_id, edit, pattern, nodes, time_ns
-- returns: rows
--   edit_id  BIGINT   the edit (whatif_edits.edit_id)
--   edit     VARCHAR  its kind (whatif_edits.edit)
--   pattern  VARCHAR  the family or regular expression
--   factor   DOUBLE   the speedup (NULL for removals)
--   nodes    BIGINT   how many nodes it applies to (kernels, or CPU calls for remove_syncs)
--   time_ns  HUGEINT  their measured own time (ns)
SELECT e.edit_id, e.edit, e.pattern, e.factor, count(n.node_id) AS nodes,
       coalesce(sum(n.end_ns - n.start_ns), 0)::HUGEINT AS time_ns
FROM whatif_edits e
LEFT JOIN whatif_matches m USING (edit_id)
LEFT JOIN graph_nodes n USING (node_id)
GROUP BY ALL
ORDER BY e.edit_id
