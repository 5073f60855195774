-- The slices that begin in [$from_ns, $to_ns) and happen before $before_ns (timeline_slice_times.cut_ns), with their
-- lane and depth: the columns of their table (timeline_gpu_slices, timeline_cpu_slices, timeline_nvtx_slices; see
-- those), NULL where the slice's table has no such column.
-- requires: timeline.gpu_slices, timeline.cpu_slices, timeline.nvtx_slices, timeline.lanes
-- returns: rows
--   slice_kind          gpu_slices | cpu_slices | nvtx_slices: its table
--   slice_row           its slice_row there
--   start_ns            slice start (ns)
--   end_ns              slice end (ns)
--   lane                its lane (timeline_lanes; 0 where it has no row there)
--   depth               its nesting depth on the lane
--   device              a GPU operation's device label
--   stream_id           a GPU operation's stream
--   pid                 an API call's or NVTX range's process
--   tid                 an API call's or NVTX range's thread
--   name                operation name as exported, API function, or NVTX range name
--   duration_ns         a GPU operation's or API call's duration (ns)
--   corr_id             correlation id of a GPU operation or API call
--   op_kind             a GPU operation's kind: kernel | memcpy | memset | other
--   short_name          a GPU operation's short name
--   component           a kernel's component
--   sub_component       a kernel's sub-component
--   family              a kernel's family
--   grid_x              a kernel's grid size, x
--   grid_y              grid size, y
--   grid_z              grid size, z
--   block_x             a kernel's block size, x
--   block_y             block size, y
--   block_z             block size, z
--   transfer_bytes      a memcpy's or memset's size (bytes)
--   src_mem_kind        a memcpy's source memory kind
--   dst_mem_kind        a memcpy's or memset's destination memory kind
--   flow_id             the flow that ends at a GPU operation
--   nvtx_group          a GPU operation's group with --by-nvtx
--   launch_or_start_ns  when a GPU operation happened as windows take it (ns)
--   kind                an API call's kind: launch | synchronization | api
--   flow_ids            the flows starting at an API call
--   level               an NVTX range's nesting level, as exported
WITH gpu AS (
    SELECT 'gpu_slices' AS slice_kind, * FROM timeline_gpu_slices
    WHERE start_ns >= $from_ns AND start_ns < $to_ns AND launch_or_start_ns < $before_ns
),
cpu AS (
    SELECT 'cpu_slices' AS slice_kind, * FROM timeline_cpu_slices
    WHERE start_ns >= $from_ns AND start_ns < $to_ns AND start_ns < $before_ns
),
nvtx AS (
    SELECT 'nvtx_slices' AS slice_kind, * FROM timeline_nvtx_slices
    WHERE start_ns >= $from_ns AND start_ns < $to_ns AND start_ns < $before_ns
),
slices AS (
    SELECT * FROM gpu UNION ALL BY NAME SELECT * FROM cpu UNION ALL BY NAME SELECT * FROM nvtx
)
SELECT s.slice_kind, s.slice_row, s.start_ns, s.end_ns, coalesce(l.lane, 0) AS lane, coalesce(l.depth, 0) AS depth,
       s.device, s.stream_id, s.pid, s.tid, s.name, s.duration_ns, s.corr_id, s.op_kind, s.short_name, s.component,
       s.sub_component, s.family, s.grid_x, s.grid_y, s.grid_z, s.block_x, s.block_y, s.block_z, s.transfer_bytes,
       s.src_mem_kind, s.dst_mem_kind, s.flow_id, s.nvtx_group, s.launch_or_start_ns, s.kind, s.flow_ids, s.level
FROM slices s
LEFT JOIN timeline_lanes l ON l.kind = s.slice_kind AND l.slice_row = s.slice_row
