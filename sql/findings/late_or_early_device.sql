-- finding: late_or_early_device | one device of several runs nothing for at least 10% of the span at its start or
--   end while the others run: it starts late or ends early
-- One finding per such device (and NVTX group) of a scope with several devices, naming it: its first operation
-- starts late_start_ns after the scope's first, its last ends early_end_ns before the scope's last. Until it
-- starts and after it ends the device is idle, and that idle time is in the scope's span and in its idle figures.
-- Severity by the share of the span outside the device's own: high from 50%, medium from 25%, low below. Not a
-- time saving the capture can show (gain ceiling 0): whether the device should have worked then is the workload's.
WITH scopes AS (
    SELECT nvtx_group, first_start_ns, last_end_ns, gpu_span_ns FROM summary WHERE device IS NULL AND device_count > 1
),
outside AS (
    SELECT d.nvtx_group, d.device, d.first_start_ns - s.first_start_ns AS late_start_ns,
           s.last_end_ns - d.last_end_ns AS early_end_ns, s.gpu_span_ns, d.gpu_span_ns AS device_span_ns
    FROM summary d
    JOIN scopes s ON s.nvtx_group IS NOT DISTINCT FROM d.nvtx_group
    WHERE d.device IS NOT NULL AND d.device <> '(no device)' AND s.gpu_span_ns > 0
)
SELECT
    'late_or_early_device' AS id,
    CASE WHEN late_start_ns + early_end_ns >= 0.50 * gpu_span_ns THEN 'high'
         WHEN late_start_ns + early_end_ns >= 0.25 * gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('%s %s: it runs nothing for %.0f%% of the span (%.2f ms)', device,
           CASE WHEN late_start_ns > 0 AND early_end_ns > 0 THEN 'starts late and ends early'
                WHEN late_start_ns > 0 THEN printf('starts %.2f ms late', late_start_ns / 1e6)
                ELSE printf('ends %.2f ms early', early_end_ns / 1e6) END,
           100 * (late_start_ns + early_end_ns) / gpu_span_ns, (late_start_ns + early_end_ns) / 1e6) AS title,
    {'late_start_ns': late_start_ns, 'early_end_ns': early_end_ns, 'device_span_ns': device_span_ns,
     'gpu_span_ns': gpu_span_ns, 'outside_percent_of_span': 100 * (late_start_ns + early_end_ns) / gpu_span_ns}
        AS evidence,
    {'nvtx_group': nvtx_group, 'device': device} AS scope,
    0 AS gain_ceiling_ns,
    'Look at what the device waited for before its first kernel (data loading, a process or rank that started '
        || 'late, work that did not spread to it), or analyse the part every device runs (--range START:END)'
        AS suggestion,
    'Not a time saving the capture can show: the ceiling is 0. '
        || CASE WHEN nvtx_group IS NULL
                THEN 'The idle time of the capture includes this device''s time outside its own span (inactive_ns)'
                ELSE 'In a window the idle time counts only the stretches before the window''s kernels: this '
                     || 'device''s time outside its own span is in the span, not in the idle time' END AS caveat
FROM outside
WHERE late_start_ns + early_end_ns >= 0.10 * gpu_span_ns
