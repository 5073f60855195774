-- Length of the union of every rank's kernel intervals on the aligned clock, clipped to [$span_start, $span_end):
-- the span minus this is the time no GPU ran any kernel.
-- requires: ranks.kernels, ranks.clock_offsets
-- returns: rows
--   busy_union_ns  time some GPU ran a kernel (ns)
WITH aligned AS (
    SELECT greatest(k.start_ns + o.offset_ns, $span_start) AS s, least(k.end_ns + o.offset_ns, $span_end) AS e
    FROM rank_kernels k JOIN rank_offsets o USING (rank)
),
reach AS (
    SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM aligned WHERE e > s
)
SELECT coalesce(sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))), 0) AS busy_union_ns FROM reach
