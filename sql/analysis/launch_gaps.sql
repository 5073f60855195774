-- GPU idle gaps between kernels of one device: kernels ordered by start, gap = start minus the largest end
-- of all earlier kernels (so overlapping kernels give no gap). Statistics over positive gaps, per device and
-- over all per-device gaps (device NULL). Parameter: $gpu_trace.
WITH k AS (
    SELECT coalesce(device, '(no device)') AS device, start_ns, end_ns
    FROM kernels
    WHERE trace_id = $gpu_trace
),
gaps AS (
    SELECT device,
           start_ns - max(end_ns) OVER (
               PARTITION BY device ORDER BY start_ns, end_ns
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap_ns
    FROM k
)
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
    count(*) FILTER (WHERE gap_ns > 0)                         AS positive_gap_count,
    coalesce(sum(gap_ns) FILTER (WHERE gap_ns > 0), 0)         AS total_ns,
    sum(gap_ns) FILTER (WHERE gap_ns > 0) / nullif(count(*) FILTER (WHERE gap_ns > 0), 0) AS average_ns,
    coalesce(max(gap_ns) FILTER (WHERE gap_ns > 0), 0)         AS maximum_ns
FROM gaps
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST
