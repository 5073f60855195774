-- NVTX ranges of the $nvtx_trace whose name (without the ':' domain prefix) equals $name or fully matches the
-- regular expression $pattern, in start order.
-- access: private
-- returns: rows
--   range_name  VARCHAR  range name without the domain prefix
--   start_ns    BIGINT   range start (ns)
--   end_ns      BIGINT   range end (ns)
--   tid         BIGINT   thread that pushed the range
--   group_name  VARCHAR  what $pattern's first capture group matched ('' when it has none)
SELECT range_name, start_ns, end_ns, tid, regexp_extract(range_name, '^(?:' || $pattern || ')$', 1) AS group_name
FROM nvtx_ranges
WHERE trace_id = $nvtx_trace
  AND (range_name = $name OR regexp_full_match(range_name, $pattern))
ORDER BY start_ns, end_ns
