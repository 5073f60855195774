-- The slices that end in [$from_ns, $to_ns) and happen before $before_ns (timeline_slice_times.cut_ns), with their
-- track, lane and depth: what writing their end needs.
-- requires: timeline.slice_times, timeline.lanes
-- access: public
-- returns: rows
--   kind       VARCHAR  gpu_slices | cpu_slices | nvtx_slices
--   slice_row  BIGINT   its slice_row there
--   device     VARCHAR  device (GPU operations)
--   stream_id  BIGINT   stream (GPU operations)
--   pid        BIGINT   process (API calls and NVTX ranges)
--   tid        BIGINT   thread (API calls and NVTX ranges)
--   start_ns   BIGINT   slice start (ns)
--   end_ns     BIGINT   slice end (ns)
--   lane       BIGINT   its lane (timeline_lanes; 0 where it has no row there)
--   depth      BIGINT   its nesting depth on the lane
SELECT t.kind, t.slice_row, t.device, t.stream_id, t.pid, t.tid, t.start_ns, t.end_ns,
       coalesce(l.lane, 0) AS lane, coalesce(l.depth, 0) AS depth
FROM timeline_slice_times t
LEFT JOIN timeline_lanes l USING (kind, slice_row)
WHERE t.end_ns >= $from_ns AND t.end_ns < $to_ns AND t.cut_ns < $before_ns
