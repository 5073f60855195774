-- The NVTX push/pop ranges of the capture's $nvtx_trace to draw on their threads: every one, or in a window those
-- overlapping one of its ranges.
-- requires: scope.window_ranges
-- returns: rows
--   pid       process id
--   tid       thread that pushed the range
--   start_ns  range start (ns)
--   end_ns    range end (ns)
--   name      range name (without a ':' domain prefix)
--   level     nesting level on its thread (0: outermost), as exported
SELECT r.pid, r.tid, r.start_ns, r.end_ns, r.range_name AS name, r.level
FROM nvtx_ranges r
WHERE r.trace_id = $nvtx_trace AND r.end_ns >= r.start_ns
  AND (NOT EXISTS (SELECT 1 FROM scope_window_ranges)
       OR EXISTS (SELECT 1 FROM scope_window_ranges w WHERE r.start_ns < w.end_ns AND r.end_ns > w.start_ns))
ORDER BY r.pid, r.tid, r.start_ns, r.end_ns DESC
