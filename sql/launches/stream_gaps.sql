-- Per (device, stream): kernels, kernel time and the positive idle gaps between consecutive kernels of the stream
-- (start minus the latest end of the stream's earlier kernels, from scope.kernels' sort).
-- Percentiles interpolate as quantile_cont, from the gaps counted per distinct length (ns_percentiles).
-- requires: scope.kernels, common.percentiles
-- access: public
-- unique: device, stream_id
-- not null: device, stream_id, kernel_count
-- returns: rows
--   device              VARCHAR  device label
--   stream_id           BIGINT   CUDA stream
--   kernel_count        BIGINT   kernels on the stream
--   kernel_time_ns      HUGEINT  their summed durations (ns)
--   positive_gap_count  HUGEINT  gaps longer than 0 ns between the stream's kernels
--   gap_total_ns        HUGEINT  their sum (ns)
--   p50_ns              DOUBLE   median (ns), interpolated as quantile_cont
--   p90_ns              DOUBLE   90th percentile (ns)
--   p99_ns              DOUBLE   99th percentile (ns)
--   max_ns              BIGINT   largest (ns)
WITH ordered AS (
    SELECT device, stream_id, duration_ns, start_ns - stream_earlier_end_ns AS gap_ns FROM scope_kernels
),
streams AS (
    SELECT device, stream_id, count(*) AS kernel_count, sum(duration_ns) AS kernel_time_ns
    FROM ordered
    GROUP BY device, stream_id
),
lengths AS (
    SELECT device, stream_id, gap_ns, count(*) AS gaps FROM ordered WHERE gap_ns > 0 GROUP BY ALL
),
ranked AS (
    SELECT *, sum(gaps) OVER (PARTITION BY device, stream_id ORDER BY gap_ns) AS upto,
              sum(gaps) OVER (PARTITION BY device, stream_id)                 AS n
    FROM lengths
),
gaps AS (
    SELECT device, stream_id,
           sum(gaps)                                        AS positive_gap_count,
           sum(CAST(gap_ns AS HUGEINT) * gaps)              AS gap_total_ns,
           unnest(ns_percentiles(gap_ns, upto, n))  -- p50_ns, p90_ns, p99_ns, max_ns
    FROM ranked
    GROUP BY device, stream_id
)
SELECT s.device, s.stream_id, s.kernel_count, s.kernel_time_ns,
       coalesce(g.positive_gap_count, 0) AS positive_gap_count, coalesce(g.gap_total_ns, 0) AS gap_total_ns,
       g.p50_ns, g.p90_ns, g.p99_ns, g.max_ns
FROM streams s LEFT JOIN gaps g USING (device, stream_id)
ORDER BY s.device, s.stream_id
