-- The timeline's tracks of slices: per kind, each device and stream (GPU operations) or process and thread (API
-- calls, NVTX ranges) with its slices, the lanes they take and its first start, in order of kind and first slice.
-- requires: timeline.slice_times, timeline.lanes
-- access: public
-- unique: kind, device, stream_id, pid, tid
-- not null: kind, first_row, slices
-- returns: rows
--   kind            VARCHAR  gpu_slices | cpu_slices | nvtx_slices
--   device          VARCHAR  device (GPU operations; NULL for the others)
--   stream_id       BIGINT   stream (GPU operations)
--   pid             BIGINT   process (API calls and NVTX ranges; NULL where not exported)
--   tid             BIGINT   thread (API calls and NVTX ranges)
--   first_row       BIGINT   its first slice_row
--   slices          BIGINT   its slices
--   lanes           BIGINT   the lanes they take (1: one after another or nested)
--   first_start_ns  BIGINT   its earliest slice start (ns)
SELECT t.kind, t.device, t.stream_id, t.pid, t.tid, min(t.slice_row) AS first_row, count(*) AS slices,
       coalesce(max(l.lane), 0) + 1 AS lanes, min(t.start_ns) AS first_start_ns
FROM timeline_slice_times t
LEFT JOIN timeline_lanes l USING (kind, slice_row)
GROUP BY ALL
ORDER BY t.kind, first_row
