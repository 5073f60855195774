-- Every GPU operation, API call and NVTX range of the timeline, thin: what puts it on a track and in time.
-- requires: timeline.gpu_slices, timeline.cpu_slices, timeline.nvtx_slices
-- creates: timeline_slice_times
--   kind       gpu_slices | cpu_slices | nvtx_slices: the table that holds the slice (timeline_<kind>)
--   slice_row  its slice_row there
--   device     its device (a GPU operation's; NULL for the others)
--   stream_id  its stream (a GPU operation's)
--   pid        its process (an API call's or NVTX range's; NULL for GPU operations and where not exported)
--   tid        its thread (an API call's or NVTX range's)
--   start_ns   slice start (ns)
--   end_ns     slice end (ns)
--   cut_ns     when it happened as a cut timeline takes it: a GPU operation's launch_or_start_ns, else its start (ns)
CREATE OR REPLACE TEMP VIEW timeline_slice_times AS
SELECT 'gpu_slices' AS kind, slice_row, device, stream_id, NULL::BIGINT AS pid, NULL::BIGINT AS tid, start_ns, end_ns,
       launch_or_start_ns AS cut_ns
FROM timeline_gpu_slices
UNION ALL
SELECT 'cpu_slices', slice_row, NULL, NULL, pid, tid, start_ns, end_ns, start_ns FROM timeline_cpu_slices
UNION ALL
SELECT 'nvtx_slices', slice_row, NULL, NULL, pid, tid, start_ns, end_ns, start_ns FROM timeline_nvtx_slices;
