-- The scope's critical path as the timeline draws it: each segment in path order with what it is the time of (the
-- node's name, short name and where it ran).
-- requires: graph.critical_path, graph.nodes, common.kernel_short_name
-- access: public
-- unique: seq
-- not null: seq, category, start_ns, end_ns
-- returns: rows
--   seq         BIGINT   the segment's place on the path (graph.critical_path)
--   category    VARCHAR  the segment's category (graph.critical_path)
--   start_ns    BIGINT   segment start (ns)
--   end_ns      BIGINT   segment end (ns)
--   name        VARCHAR  the kernel, operation or API function it is the time of (or that waited); NULL for idle
--   short_name  VARCHAR  its short name (kernel_short_name)
--   device      VARCHAR  a GPU operation's device
--   stream_id   BIGINT   a GPU operation's stream
--   pid         BIGINT   a CPU call's process
--   tid         BIGINT   a CPU call's thread
SELECT p.seq, p.category, p.start_ns, p.end_ns,
       CASE WHEN p.category <> 'idle' THEN n.name END AS name,
       CASE WHEN p.category <> 'idle' THEN kernel_short_name(n.name) END AS short_name,
       n.device, n.stream_id, n.pid, n.tid
FROM graph_critical_path p JOIN graph_nodes n USING (node_id)
ORDER BY p.seq
