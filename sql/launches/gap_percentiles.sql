-- Distribution of positive GPU idle gaps between kernels, per device and over all devices (device NULL).
-- Percentiles interpolate as quantile_cont, from the gaps counted per distinct length (ns_percentiles).
-- requires: launches.kernel_gaps, common.percentiles
-- access: public
-- unique: device
-- not null: positive_gap_count, total_ns
-- returns: rows
--   device              VARCHAR  device label; NULL for every device together
--   positive_gap_count  HUGEINT  gaps longer than 0 ns
--   total_ns            HUGEINT  their sum (ns)
--   p50_ns              DOUBLE   median (ns), interpolated as quantile_cont
--   p90_ns              DOUBLE   90th percentile (ns)
--   p99_ns              DOUBLE   99th percentile (ns)
--   max_ns              BIGINT   largest (ns)
WITH lengths AS (
    SELECT device, gap_ns, count(*) AS gaps FROM kernel_gaps WHERE gap_ns > 0 GROUP BY device, gap_ns
),
scopes AS (
    SELECT device, gap_ns, gaps FROM lengths
    UNION ALL
    SELECT NULL, gap_ns, sum(gaps) FROM lengths GROUP BY gap_ns
),
ranked AS (
    SELECT *, sum(gaps) OVER (PARTITION BY device ORDER BY gap_ns) AS upto,
              sum(gaps) OVER (PARTITION BY device)                 AS n
    FROM scopes
)
SELECT
    device,
    sum(gaps)                                        AS positive_gap_count,
    sum(CAST(gap_ns AS HUGEINT) * gaps)              AS total_ns,
    unnest(ns_percentiles(gap_ns, upto, n))  -- p50_ns, p90_ns, p99_ns, max_ns
FROM ranked
GROUP BY device
ORDER BY device NULLS FIRST
