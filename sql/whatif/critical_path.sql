-- The critical path of a what-if replay: the walk of graph.critical_path over the replay's times and what held each
-- node back in it (whatif.replay), from the measured GPU span's start (whatif.summary's predicted span). Columns as
-- graph.critical_path's.
-- requires: whatif.replay, graph.nodes, common.path_category
-- computed by: nsight_ingest.passes
-- access: public
-- unique: seq
-- not null: seq, node_id, category, start_ns, end_ns
-- creates: whatif_critical_path
--   seq          BIGINT   the segment's place on the path, from the measured span's start
--   node_id      BIGINT   the node it is the time of, or the node that waited
--   category     VARCHAR  as graph.critical_path's
--   start_ns     BIGINT   segment start in the replay (ns)
--   end_ns       BIGINT   segment end in the replay (ns)
--   stopped      BOOLEAN  the walk stopped at a step limit; the rest of the span is idle
SELECT node_id, on_gpu, start_ns, end_ns, start_src, start_ready_ns, end_src, end_ready_ns,
       (SELECT min(start_ns) FROM graph_nodes WHERE on_gpu) AS span_start_ns
FROM whatif_binding;
CREATE OR REPLACE TEMP TABLE whatif_critical_path AS
SELECT p.seq, p.node_id, path_category(p.part, b.category, b.start_kind) AS category, p.start_ns, p.end_ns, p.stopped
FROM whatif_critical_path_pass p JOIN whatif_binding b USING (node_id)
ORDER BY p.seq;
