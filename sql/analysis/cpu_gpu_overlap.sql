-- CPU-GPU launch overlap: the union of kernel-launch API intervals [API Start, API Start + API Dur] from the
-- kern_exec trace, intersected with the union of kernel intervals (kernels only) of the gpu trace.
-- Whole capture (device NULL) and, when the trace has several devices, per device (API rows of its index).
--
-- One sort per set: with intervals ordered by start, the union's length is the sum over intervals of the part
-- that reaches past every earlier end, max(0, e - max(s, running max of earlier ends)); and
-- |API n kernels| = |API| + |kernels| - |API u kernels|.
-- Parameters: $gpu_trace, $kern_exec_trace.
WITH devices AS (
    SELECT DISTINCT coalesce(device, '(no device)') AS device, coalesce(device_index, 0) AS device_index
    FROM kernels WHERE trace_id = $gpu_trace
),
several AS (
    SELECT count(*) > 1 AS per_device FROM devices
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
    SELECT NULL AS scope, 'api' AS kind, s, e FROM api
    UNION ALL SELECT NULL, 'kernel', s, e FROM ker
    UNION ALL SELECT d.device, 'api', a.s, a.e FROM api a JOIN devices d USING (device_index), several
              WHERE several.per_device
    UNION ALL SELECT device, 'kernel', s, e FROM ker, several WHERE several.per_device
),
sets AS (
    SELECT scope, kind, s, e FROM intervals
    UNION ALL SELECT scope, 'either', s, e FROM intervals
),
reach AS (
    SELECT scope, kind, s, e,
           max(e) OVER (PARTITION BY scope, kind ORDER BY s, e
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM sets
),
lengths AS (
    SELECT scope,
           sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))) FILTER (WHERE kind = 'api')    AS api_ns,
           sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))) FILTER (WHERE kind = 'kernel') AS kernel_ns,
           sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))) FILTER (WHERE kind = 'either') AS either_ns
    FROM reach
    GROUP BY scope
)
SELECT scope AS device,
       api_ns AS launch_api_union_ns,
       api_ns + coalesce(kernel_ns, 0) - either_ns AS launch_api_gpu_overlap_ns
FROM lengths
WHERE api_ns IS NOT NULL
UNION ALL  -- one device: its numbers are the whole capture's
SELECT d.device, l.api_ns, l.api_ns + coalesce(l.kernel_ns, 0) - l.either_ns
FROM lengths l, devices d, several
WHERE NOT several.per_device AND l.scope IS NULL AND l.api_ns IS NOT NULL
ORDER BY device NULLS FIRST
