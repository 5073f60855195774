-- Distribution of positive GPU idle gaps between kernels, per device and over all devices (device NULL).
-- Percentiles interpolate (quantile_cont).
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
    count(*)                          AS positive_gap_count,
    coalesce(sum(gap_ns), 0)          AS total_ns,
    quantile_cont(gap_ns, 0.50)       AS p50_ns,
    quantile_cont(gap_ns, 0.90)       AS p90_ns,
    quantile_cont(gap_ns, 0.99)       AS p99_ns,
    max(gap_ns)                       AS max_ns
FROM scope_kernel_gaps
WHERE gap_ns > 0
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST
