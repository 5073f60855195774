-- One slice per GPU operation of the scope, numbered in stream order, with the flow arrow that ends at it (from its launch
-- call) and, for a timeline drawn --by-nvtx, its group (the innermost range of timeline_groups holding the time it
-- happened as windows take it: its kern_exec row's launch call start, else its GPU start).
-- Stored in start order: a stretch of time is read without reading the rest (the timeline is written so).
-- requires: timeline.ops, timeline.launch_flows, timeline.groups
-- access: private
-- unique: slice_row
-- not null: slice_row, start_ns, duration_ns
-- creates: timeline_gpu_slices
--   slice_row           BIGINT   its place among the scope's operations in order of device, stream, start (0, 1, ...)
--   op_kind             VARCHAR  kernel | memcpy | memset | other
--   device              VARCHAR  device label
--   device_index        INTEGER  the number of the device label (NULL when it has none)
--   stream_id           BIGINT   CUDA stream
--   start_ns            BIGINT   GPU start (ns)
--   duration_ns         BIGINT   GPU duration (ns)
--   corr_id             BIGINT   correlation id of the API call that caused it
--   name                VARCHAR  operation name as exported
--   short_name          VARCHAR  a kernel's short name; other operations' names as exported
--   component           VARCHAR  a kernel's component; NULL for memcpy and memset
--   sub_component       VARCHAR  a kernel's sub-component, when its rule names one
--   family              VARCHAR  a kernel's family; NULL for memcpy and memset
--   grid_x              INTEGER  grid size in blocks, x
--   grid_y              INTEGER  grid size, y
--   grid_z              INTEGER  grid size, z
--   block_x             INTEGER  block size in threads, x
--   block_y             INTEGER  block size, y
--   block_z             INTEGER  block size, z
--   transfer_bytes      BIGINT   memcpy or memset size (bytes)
--   src_mem_kind        VARCHAR  memcpy source memory kind
--   dst_mem_kind        VARCHAR  memcpy or memset destination memory kind
--   end_ns              BIGINT   GPU end (ns)
--   flow_id             BIGINT   timeline_launch_flows.flow_id of its launch call; NULL when no launch row names it
--   nvtx_group          VARCHAR  its group with --by-nvtx; NULL otherwise
--   launch_or_start_ns  BIGINT   its kern_exec row's launch call start, else its GPU start (ns): when it happened as a
--                                window takes it (a timeline cut at a time keeps the operations launched before it)
CREATE OR REPLACE TEMP TABLE timeline_gpu_slices AS
WITH launched AS (
    SELECT op_id, flow_id, tid, api_start_ns, is_launch_row FROM timeline_launch_flows WHERE op_id IS NOT NULL
),
placed AS (  -- when each operation happened as windows take it: its kern_exec row's call, else its GPU start
    SELECT o.op_id, CASE WHEN l.is_launch_row THEN l.api_start_ns ELSE o.start_ns END AS launch_or_start_ns,
           CASE WHEN l.is_launch_row THEN l.tid END AS tid
    FROM timeline_ops o LEFT JOIN launched l USING (op_id)
),
grouped AS (
    SELECT p.op_id, max_by(g.nvtx_group, g.start_ns) AS nvtx_group
    FROM placed p
    JOIN timeline_groups g
      ON p.launch_or_start_ns >= g.start_ns AND p.launch_or_start_ns < g.end_ns
     AND (g.tid IS NULL OR p.tid IS NULL OR g.tid = p.tid)
    GROUP BY p.op_id
),
numbered AS (  -- apart from the wide rows: a window over all of them would hold them all in memory at once
    SELECT op_id, row_number() OVER (ORDER BY device, stream_id, start_ns, op_id) - 1 AS slice_row FROM timeline_ops
)
SELECT n.slice_row, o.* EXCLUDE (op_id), o.start_ns + o.duration_ns AS end_ns, l.flow_id, g.nvtx_group,
       p.launch_or_start_ns
FROM timeline_ops o
JOIN numbered n USING (op_id)
JOIN placed p USING (op_id)
LEFT JOIN launched l USING (op_id)
LEFT JOIN grouped g USING (op_id)
ORDER BY o.start_ns;
