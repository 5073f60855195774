-- NVTX ranges of a capture's nvtx_pushpop_trace whose name (without the ':' domain prefix) equals $name or
-- fully matches the regular expression $pattern.
SELECT range_name, start_ns, end_ns, tid
FROM nvtx_ranges
WHERE trace_id = $nvtx_trace
  AND (range_name = $name OR regexp_full_match(range_name, $pattern))
ORDER BY start_ns, end_ns
