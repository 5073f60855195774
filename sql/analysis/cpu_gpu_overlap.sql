-- CPU-GPU launch overlap: the union of kernel-launch API intervals [API Start, API Start + API Dur] from the
-- kern_exec trace, intersected with the union of kernel intervals (kernels only) of the gpu trace.
-- Per device (API rows of that device index) and for the whole capture (device NULL).
-- Unions by sorting (gaps and islands), intersection by a sweep over both unions' boundaries: O(n log n).
-- Parameters: $gpu_trace, $kern_exec_trace.
WITH devices AS (
    SELECT DISTINCT coalesce(device, '(no device)') AS device, coalesce(device_index, 0) AS device_index
    FROM kernels WHERE trace_id = $gpu_trace
),
api AS (
    SELECT coalesce(device_index, 0) AS device_index, api_start_ns AS s, api_end_ns AS e
    FROM kernel_launches WHERE trace_id = $kern_exec_trace
),
ker AS (
    SELECT coalesce(device, '(no device)') AS device, start_ns AS s, end_ns AS e
    FROM kernels WHERE trace_id = $gpu_trace
),
intervals AS (
    SELECT 'api' AS kind, d.device AS scope, a.s, a.e FROM api a JOIN devices d USING (device_index)
    UNION ALL SELECT 'api', NULL, s, e FROM api
    UNION ALL SELECT 'kernel', device, s, e FROM ker
    UNION ALL SELECT 'kernel', NULL, s, e FROM ker
),
marked AS (
    SELECT kind, scope, s, e,
           CASE WHEN s <= max(e) OVER (
                    PARTITION BY kind, scope ORDER BY s, e
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                THEN 0 ELSE 1 END AS starts_island
    FROM intervals
),
islands AS (
    SELECT kind, scope, s, e,
           sum(starts_island) OVER (PARTITION BY kind, scope ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS island
    FROM marked
),
unions AS (
    SELECT kind, scope, min(s) AS s, max(e) AS e FROM islands GROUP BY kind, scope, island
),
events AS (
    SELECT scope, s AS t, 1 AS delta FROM unions
    UNION ALL SELECT scope, e AS t, -1 AS delta FROM unions
),
swept AS (
    SELECT scope, t,
           sum(delta) OVER (PARTITION BY scope ORDER BY t, delta ROWS UNBOUNDED PRECEDING) AS active,
           lead(t) OVER (PARTITION BY scope ORDER BY t, delta) AS next_t
    FROM events
),
both_busy AS (
    SELECT scope, sum(next_t - t) AS overlap_ns FROM swept WHERE active = 2 GROUP BY scope
),
api_union AS (
    SELECT scope, sum(e - s) AS union_ns FROM unions WHERE kind = 'api' GROUP BY scope
)
SELECT u.scope AS device,
       u.union_ns AS launch_api_union_ns,
       coalesce(b.overlap_ns, 0) AS launch_api_gpu_overlap_ns
FROM api_union u
LEFT JOIN both_busy b ON u.scope IS NOT DISTINCT FROM b.scope
ORDER BY device NULLS FIRST
