-- The NVTX push/pop ranges of the capture's $nvtx_trace to draw on their threads: every one, or in a window those
-- overlapping one of its ranges; numbered in order of thread and start.
-- Stored in start order: a stretch of time is read without reading the rest (the timeline is written so).
-- requires: scope.window_ranges
-- access: private
-- unique: slice_row
-- not null: slice_row, start_ns, end_ns
-- creates: timeline_nvtx_slices
--   slice_row  BIGINT   its place among the ranges in order of process, thread, start, longest first (0, 1, ...)
--   pid        BIGINT   process id
--   tid        BIGINT   thread that pushed the range
--   start_ns   BIGINT   range start (ns)
--   end_ns     BIGINT   range end (ns)
--   name       VARCHAR  range name (without a ':' domain prefix)
--   level      INTEGER  nesting level on its thread (0: outermost), as exported
CREATE OR REPLACE TEMP TABLE timeline_nvtx_slices AS
SELECT row_number() OVER (ORDER BY r.pid, r.tid, r.start_ns, r.end_ns DESC, r.range_name, r.level) - 1 AS slice_row,
       r.pid, r.tid, r.start_ns, r.end_ns, r.range_name AS name, r.level
FROM nvtx_ranges r
WHERE r.trace_id = $nvtx_trace AND r.end_ns >= r.start_ns
  AND (NOT EXISTS (SELECT 1 FROM scope_window_ranges)
       OR EXISTS (SELECT 1 FROM scope_window_ranges w WHERE r.start_ns < w.end_ns AND r.end_ns > w.start_ns))
ORDER BY r.start_ns;
