-- finding: exposed_communication | a device's communication kernels run while no other kernel of the device does:
--   their exposed time (communication time_ns - overlapped_ns, breakdown 'device') is at least 5% of the device's
--   span
-- One finding per device (and NVTX group), with the exposed time of each collective and, in a capture of several
-- GPUs (communication_arrivals), the time the device waited at it for the last device to arrive and the device
-- whose late arrivals made the others wait longest (NULL with one GPU). Severity by the exposed share of the span: high from 20%, medium from
-- 10%, low below. Gain ceiling: the exposed time.
WITH late AS (  -- per collective, the device whose late arrivals made the others wait longest
    SELECT nvtx_group, collective, arg_max(device, caused_wait_ns) AS late_device
    FROM communication_arrivals
    WHERE arrived_last > 0
    GROUP BY nvtx_group, collective
),
collectives AS (
    SELECT c.nvtx_group, c.device,
           list({'collective': c.label, 'kernels': c.kernels, 'time_ns': c.time_ns, 'overlapped_ns': c.overlapped_ns,
                 'exposed_ns': c.time_ns - c.overlapped_ns, 'waited_ns': a.wait_ns, 'late_device': l.late_device}
                ORDER BY c.time_ns - c.overlapped_ns DESC, c.label) AS collectives
    FROM communication c
    LEFT JOIN communication_arrivals a
           ON a.nvtx_group IS NOT DISTINCT FROM c.nvtx_group AND a.device = c.device AND a.collective = c.label
    LEFT JOIN late l ON l.nvtx_group IS NOT DISTINCT FROM c.nvtx_group AND l.collective = c.label
    WHERE c.breakdown = 'collective'
    GROUP BY c.nvtx_group, c.device
),
exposed AS (
    SELECT nvtx_group, device, kernels, time_ns, overlapped_ns, time_ns - overlapped_ns AS exposed_ns
    FROM communication
    WHERE breakdown = 'device'
)
SELECT
    'exposed_communication' AS id,
    CASE WHEN e.exposed_ns >= 0.20 * s.gpu_span_ns THEN 'high'
         WHEN e.exposed_ns >= 0.10 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('Exposed communication: %.2f ms (%.0f%% of the span) of communication with no compute beside it, most '
           || 'in %s', e.exposed_ns / 1e6, 100 * e.exposed_ns / s.gpu_span_ns, k.collectives[1].collective)
        || CASE WHEN k.collectives[1].late_device <> e.device AND k.collectives[1].waited_ns > 0
                THEN printf(', %.2f ms of it waiting for later GPUs (most for %s)', k.collectives[1].waited_ns / 1e6,
                            k.collectives[1].late_device)
                ELSE '' END AS title,
    {'exposed_ns': e.exposed_ns, 'time_ns': e.time_ns, 'overlapped_ns': e.overlapped_ns, 'kernels': e.kernels,
     'gpu_span_ns': s.gpu_span_ns, 'exposed_percent_of_span': 100 * e.exposed_ns / s.gpu_span_ns,
     'by_collective': k.collectives} AS evidence,
    {'nvtx_group': e.nvtx_group, 'device': e.device} AS scope,
    e.exposed_ns AS gain_ceiling_ns,
    'Overlap communication with compute: bucket gradients so all-reduces start during the backward pass, prefetch '
        || 'FSDP/ZeRO all-gathers, or run collectives on their own stream beside independent work' AS suggestion,
    'Exposed time includes waiting for a late rank (waited_ns, late_device: GPUs of this capture only; several '
        || 'captures of one job: the ranks command): then the fix is the late rank''s work, not overlap' AS caveat
FROM exposed e
JOIN summary s ON s.device = e.device AND s.nvtx_group IS NOT DISTINCT FROM e.nvtx_group
JOIN collectives k ON k.device = e.device AND k.nvtx_group IS NOT DISTINCT FROM e.nvtx_group
WHERE s.gpu_span_ns > 0 AND e.exposed_ns >= 0.05 * s.gpu_span_ns
