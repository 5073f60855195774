-- Per rank on the aligned clock, inside [$span_start, $span_end): kernels, NCCL time, all-gather time, and the
-- length of the union of its kernel intervals (clipped to the span). Kernels partly outside count with their part
-- inside.
-- requires: ranks.kernels, ranks.clock_offsets
-- access: public
-- unique: rank
-- not null: rank, kernel_count
-- returns: rows
--   rank                INTEGER  rank number
--   kernel_count        BIGINT   kernels in the span
--   nccl_kernel_count   BIGINT   of them, NCCL kernels
--   nccl_kernel_ns      HUGEINT  NCCL kernel time in the span (ns)
--   non_nccl_kernel_ns  HUGEINT  other kernel time in the span (ns)
--   all_gather_ns       HUGEINT  all-gather kernel time in the span (ns)
--   kernel_union_ns     HUGEINT  length of the union of the rank's kernel intervals (ns)
WITH aligned AS (
    SELECT k.rank, greatest(k.start_ns + o.offset_ns, $span_start) AS s, least(k.end_ns + o.offset_ns, $span_end) AS e,
           k.collective
    FROM rank_kernels k JOIN rank_offsets o USING (rank)
    WHERE least(k.end_ns + o.offset_ns, $span_end) >= greatest(k.start_ns + o.offset_ns, $span_start)
),
reach AS (
    SELECT *, max(e) OVER (PARTITION BY rank ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                  AS earlier_end
    FROM aligned
)
SELECT rank,
       count(*)                                                            AS kernel_count,
       count(collective)                                                   AS nccl_kernel_count,
       coalesce(sum(e - s) FILTER (WHERE collective IS NOT NULL), 0) AS nccl_kernel_ns,
       coalesce(sum(e - s) FILTER (WHERE collective IS NULL), 0)     AS non_nccl_kernel_ns,
       coalesce(sum(e - s) FILTER (WHERE collective = 'all_gather'), 0) AS all_gather_ns,
       coalesce(sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))) FILTER (WHERE e > s), 0)
                                                                           AS kernel_union_ns
FROM reach
GROUP BY rank
ORDER BY rank
