-- When the ranks' kernels run, on the aligned clock and clipped to [$span_start, $span_end), as disjoint
-- intervals (the pass nsight_ingest.passes.rank_busy merges them). The union of every rank's is the time some
-- GPU ran a kernel; the span minus it, the time no GPU did.
-- requires: ranks.kernels, ranks.clock_offsets
-- computed by: nsight_ingest.passes
-- access: public
-- returns: rows
--   start_ns  BIGINT  start of a busy interval, aligned clock (ns)
--   end_ns    BIGINT  its end (ns); intervals are ordered by start and do not touch
SELECT greatest(k.start_ns + o.offset_ns, $span_start) AS s, least(k.end_ns + o.offset_ns, $span_end) AS e
FROM rank_kernels k JOIN rank_offsets o USING (rank);
SELECT * FROM ranks_busy_pass
