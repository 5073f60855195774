-- finding: synchronization_stalls | a device sits idle while the host waits in synchronization calls: the time no
--   kernel or memory transfer runs while a host synchronization call of the device's processes is in progress
--   (idle_causes.synchronization_ns) is at least 1% of the device's span
-- One finding per device (and NVTX group), with the synchronization calls behind it (sync_calls: the 3 taking
-- longest). Severity by that share of the span: high from 20%, medium from 5%, low below. Gain ceiling:
-- synchronization_ns.
WITH calls AS (
    SELECT nvtx_group, device,
           list({'name': name, 'calls': calls, 'time_ns': time_ns, 'max_ns': max_ns}
                ORDER BY time_ns DESC, name)[1:3] AS calls
    FROM sync_calls
    GROUP BY nvtx_group, device
)
SELECT
    'synchronization_stalls' AS id,
    CASE WHEN c.synchronization_ns >= 0.20 * s.gpu_span_ns THEN 'high'
         WHEN c.synchronization_ns >= 0.05 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('Synchronization stalls: the GPU sat idle %.2f ms (%.1f%% of the span) while the host waited in %s',
           c.synchronization_ns / 1e6, 100 * c.synchronization_ns / s.gpu_span_ns,
           coalesce(k.calls[1].name, 'synchronization calls')) AS title,
    {'synchronization_ns': c.synchronization_ns, 'kernel_idle_ns': c.kernel_idle_ns, 'gpu_span_ns': s.gpu_span_ns,
     'synchronization_percent_of_span': 100 * c.synchronization_ns / s.gpu_span_ns,
     'calls': coalesce(k.calls, [])} AS evidence,
    {'nvtx_group': c.nvtx_group, 'device': c.device} AS scope,
    c.synchronization_ns AS gain_ceiling_ns,
    'Remove host synchronizations from the hot loop: replace .item(), .cpu(), .tolist() and explicit '
        || 'synchronize calls with device-side logic or non-blocking copies, and synchronize once per step at most'
        AS suggestion,
    'Only idle time no memory transfer covers counts; a synchronization that waits for work still running on the '
        || 'GPU costs nothing here' AS caveat
FROM idle_causes c
JOIN summary s ON s.device = c.device AND s.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
LEFT JOIN calls k ON k.device = c.device AND k.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
WHERE c.device IS NOT NULL AND s.gpu_span_ns > 0 AND c.synchronization_ns >= 0.01 * s.gpu_span_ns
