-- Times that split the timeline into $parts parts of about as many slice starts each (the timeline is written a
-- part at a time): the start of the slice at each 1/$parts of them, in order, once each (fewer where many slices
-- start at one time).
-- requires: timeline.slice_times
-- access: public
-- returns: rows
--   edge_ns  BIGINT  a part's first time (ns); the part ends where the next begins
SELECT DISTINCT unnest(quantile_disc(start_ns, list_transform(range(1, $parts), lambda i: i / $parts))) AS edge_ns
FROM timeline_slice_times
ORDER BY edge_ns
