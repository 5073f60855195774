-- The slices that begin in [$from_ns, $to_ns) and happen before $before_ns (timeline_slice_times.cut_ns), with their
-- lane and depth: the columns of their table (timeline_gpu_slices, timeline_cpu_slices, timeline_nvtx_slices; see
-- those), NULL where the slice's table has no such column.
-- requires: timeline.gpu_slices, timeline.cpu_slices, timeline.nvtx_slices, timeline.lanes
-- access: public
-- returns: rows
--   slice_kind          VARCHAR   gpu_slices | cpu_slices | nvtx_slices: its table
--   slice_row           BIGINT    its slice_row there
--   start_ns            BIGINT    slice start (ns)
--   end_ns              BIGINT    slice end (ns)
--   lane                BIGINT    its lane (timeline_lanes; 0 where it has no row there)
--   depth               BIGINT    its nesting depth on the lane
--   device              VARCHAR   a GPU operation's device label
--   stream_id           BIGINT    a GPU operation's stream
--   pid                 BIGINT    an API call's or NVTX range's process
--   tid                 BIGINT    an API call's or NVTX range's thread
--   name                VARCHAR   operation name as exported, API function, or NVTX range name
--   duration_ns         BIGINT    a GPU operation's or API call's duration (ns)
--   corr_id             BIGINT    correlation id of a GPU operation or API call
--   op_kind             VARCHAR   a GPU operation's kind: kernel | memcpy | memset | other
--   short_name          VARCHAR   a GPU operation's short name
--   component           VARCHAR   a kernel's component
--   sub_component       VARCHAR   a kernel's sub-component
--   family              VARCHAR   a kernel's family
--   grid_x              INTEGER   a kernel's grid size, x
--   grid_y              INTEGER   grid size, y
--   grid_z              INTEGER   grid size, z
--   block_x             INTEGER   a kernel's block size, x
--   block_y             INTEGER   block size, y
--   block_z             INTEGER   block size, z
--   transfer_bytes      BIGINT    a memcpy's or memset's size (bytes)
--   src_mem_kind        VARCHAR   a memcpy's source memory kind
--   dst_mem_kind        VARCHAR   a memcpy's or memset's destination memory kind
--   flow_id             BIGINT    the flow that ends at a GPU operation
--   nvtx_group          VARCHAR   a GPU operation's group with --by-nvtx
--   launch_or_start_ns  BIGINT    when a GPU operation happened as windows take it (ns)
--   kind                VARCHAR   an API call's kind: launch | synchronization | api
--   flow_ids            BIGINT[]  the flows starting at an API call
--   level               INTEGER   an NVTX range's nesting level, as exported
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
