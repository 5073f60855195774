-- Per (device, stream): kernels, kernel time and the positive idle gaps between consecutive kernels of the stream.
WITH ordered AS (
    SELECT device, stream_id, duration_ns,
           start_ns - max(end_ns) OVER (PARTITION BY device, stream_id ORDER BY start_ns, end_ns
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap_ns
    FROM scope_kernels
)
SELECT device, stream_id,
       count(*)                                     AS kernel_count,
       sum(duration_ns)                             AS kernel_time_ns,
       count(*) FILTER (WHERE gap_ns > 0)           AS positive_gap_count,
       coalesce(sum(gap_ns) FILTER (WHERE gap_ns > 0), 0) AS gap_total_ns,
       quantile_cont(gap_ns, 0.50) FILTER (WHERE gap_ns > 0) AS p50_ns,
       quantile_cont(gap_ns, 0.90) FILTER (WHERE gap_ns > 0) AS p90_ns,
       quantile_cont(gap_ns, 0.99) FILTER (WHERE gap_ns > 0) AS p99_ns,
       max(gap_ns) FILTER (WHERE gap_ns > 0)        AS max_ns
FROM ordered
GROUP BY device, stream_id
ORDER BY device, stream_id
