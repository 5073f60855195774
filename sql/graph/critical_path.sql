-- The critical path of the scope: the chain of waits that ends at the GPU span's end, followed back from the
-- operation that ends last, through what held each node back (graph.binding), to the span's start. Its segments
-- tile the span: their lengths add up to it. A node's own time is a segment of its category; the wait before a
-- node is one of its binding edge's kind: gpu_gap (it started after its stream's earlier operation ended and after
-- its launch), launch_latency (from its launch call's start), cpu_work (after the thread's earlier call returned,
-- the CPU worked between calls), synchronization (a call returned after the GPU operation it waited for ended);
-- idle: nothing in the graph explains the time before the path's first node.
-- requires: graph.binding, common.path_category
-- computed by: nsight_ingest.passes
-- access: public
-- unique: seq
-- not null: seq, node_id, category, start_ns, end_ns
-- creates: graph_critical_path
--   seq          BIGINT   the segment's place on the path, from the span's start
--   node_id      BIGINT   the node it is the time of, or the node that waited
--   category     VARCHAR  a node's category (kernel, memcpy, memset, other, launch_call, sync_call, api_call) or a
--                         wait's (gpu_gap, launch_latency, cpu_work, synchronization, idle)
--   start_ns     BIGINT   segment start (ns)
--   end_ns       BIGINT   segment end (ns)
--   stopped      BOOLEAN  the walk stopped at a step limit (a cycle in damaged data); the rest of the span is idle
SELECT node_id, on_gpu, start_ns, end_ns, start_src, start_ready_ns, end_src, end_ready_ns
FROM graph_binding;
-- the pass gives each segment's part (graph_loops.OWN, START_WAIT, END_WAIT, BEFORE); its category is named here
CREATE OR REPLACE TEMP TABLE graph_critical_path AS
SELECT p.seq, p.node_id, path_category(p.part, b.category, b.start_kind) AS category, p.start_ns, p.end_ns, p.stopped
FROM graph_critical_path_pass p JOIN graph_binding b USING (node_id)
ORDER BY p.seq;
