-- Time kernels waited in the launch queue. An empty Queue Dur means the kernel was not queued: counted, not timed.
-- Percentiles interpolate as quantile_cont, from the delays counted per distinct length (ns_percentiles).
-- requires: scope.launches, common.percentiles
-- access: public
-- not null: queued_kernels, not_queued_kernels
-- returns: rows
--   queued_kernels      HUGEINT  kern_exec rows with a queue duration
--   not_queued_kernels  HUGEINT  rows without one
--   total_ns            HUGEINT  summed queue time (ns)
--   p50_ns              DOUBLE   median (ns), interpolated as quantile_cont
--   p90_ns              DOUBLE   90th percentile (ns)
--   p99_ns              DOUBLE   99th percentile (ns)
--   max_ns              BIGINT   largest (ns)
WITH lengths AS (
    SELECT queue_duration_ns, count(*) AS kernels FROM scope_launches GROUP BY queue_duration_ns
),
ranked AS (
    SELECT *, sum(kernels) OVER (ORDER BY queue_duration_ns) AS upto, sum(kernels) OVER () AS n
    FROM lengths
    WHERE queue_duration_ns IS NOT NULL
)
SELECT
    coalesce(sum(kernels), 0)                                                    AS queued_kernels,
    coalesce((SELECT sum(kernels) FROM lengths WHERE queue_duration_ns IS NULL), 0) AS not_queued_kernels,
    coalesce(sum(CAST(queue_duration_ns AS HUGEINT) * kernels), 0)               AS total_ns,
    unnest(ns_percentiles(queue_duration_ns, upto, n))  -- p50_ns, p90_ns, p99_ns, max_ns
FROM ranked
