-- Every GPU operation, API call and NVTX range of the timeline, thin: what puts it on a track and in time.
-- requires: timeline.gpu_slices, timeline.cpu_slices, timeline.nvtx_slices
-- access: private
-- unique: kind, slice_row
-- not null: kind, slice_row, start_ns, end_ns
-- creates: timeline_slice_times
--   kind       VARCHAR  gpu_slices | cpu_slices | nvtx_slices: the table that holds the slice (timeline_<kind>)
--   slice_row  BIGINT   its slice_row there
--   device     VARCHAR  its device (a GPU operation's; NULL for the others)
--   stream_id  BIGINT   its stream (a GPU operation's)
--   pid        BIGINT   its process (an API call's or NVTX range's; NULL for GPU operations and where not exported)
--   tid        BIGINT   its thread (an API call's or NVTX range's)
--   start_ns   BIGINT   slice start (ns)
--   end_ns     BIGINT   slice end (ns)
--   cut_ns     BIGINT   when it happened as a cut timeline takes it: a GPU operation's launch_or_start_ns, else its
--                       start (ns)
CREATE OR REPLACE TEMP VIEW timeline_slice_times AS
SELECT 'gpu_slices' AS kind, slice_row, device, stream_id, NULL::BIGINT AS pid, NULL::BIGINT AS tid, start_ns, end_ns,
       launch_or_start_ns AS cut_ns
FROM timeline_gpu_slices
UNION ALL
SELECT 'cpu_slices', slice_row, NULL, NULL, pid, tid, start_ns, end_ns, start_ns FROM timeline_cpu_slices
UNION ALL
SELECT 'nvtx_slices', slice_row, NULL, NULL, pid, tid, start_ns, end_ns, start_ns FROM timeline_nvtx_slices;
