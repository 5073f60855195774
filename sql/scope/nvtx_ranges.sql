-- NVTX ranges of the $nvtx_trace whose name (without the ':' domain prefix) equals $name or fully matches the
-- regular expression $pattern, in start order.
-- returns: rows
--   range_name  range name without the domain prefix
--   start_ns    range start (ns)
--   end_ns      range end (ns)
--   tid         thread that pushed the range
SELECT range_name, start_ns, end_ns, tid
FROM nvtx_ranges
WHERE trace_id = $nvtx_trace
  AND (range_name = $name OR regexp_full_match(range_name, $pattern))
ORDER BY start_ns, end_ns
