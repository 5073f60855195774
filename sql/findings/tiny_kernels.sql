-- finding: tiny_kernels | a kernel family whose kernels run shorter than the calls that launch them
--   (short_kernels): at least 5 such kernels on a device, and the GPU waiting for their launches
--   (cpu_launch_idle_ns) at least 1% of the device's span
-- One finding per device and family (and NVTX group); fusion candidates. Severity by the waiting's share of the
-- span: high from 20%, medium from 5%, low below. Gain ceiling: cpu_launch_idle_ns, the GPU time spent waiting for
-- these launches (part of cpu_launch_bound's time, not in addition to it). As in cpu_launch_bound, CUDA graphs are
-- advised only where the host does not synchronize after at least every other launch (host_calls), and a capture
-- that replays graphs already (graph_launches) is told to bring the kernels into them.
WITH graphs AS (
    SELECT coalesce(sum(graph_launches), 0) + coalesce(sum(graph_kernels), 0) > 0 AS replays_graphs
    FROM graph_launches
)
SELECT
    'tiny_kernels' AS id,
    CASE WHEN k.cpu_launch_idle_ns >= 0.20 * s.gpu_span_ns THEN 'high'
         WHEN k.cpu_launch_idle_ns >= 0.05 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('Tiny kernels: %d %s kernels ran shorter than their launch call; the GPU waited %.2f ms for them',
           k.short_kernels, k.family, k.cpu_launch_idle_ns / 1e6) AS title,
    {'family': k.family, 'kernels': k.kernels, 'short_kernels': k.short_kernels,
     'short_kernel_ns': k.short_kernel_ns, 'launch_call_ns': k.launch_call_ns,
     'cpu_launch_idle_ns': k.cpu_launch_idle_ns, 'gpu_span_ns': s.gpu_span_ns} AS evidence,
    {'nvtx_group': k.nvtx_group, 'device': k.device, 'family': k.family} AS scope,
    k.cpu_launch_idle_ns AS gain_ceiling_ns,
    'Fuse these kernels with their neighbours (torch.compile, a fused kernel from the library, or a custom kernel)'
        || CASE WHEN coalesce(h.synchronized, false)
                THEN ', after removing the host synchronization after each launch'
                WHEN g.replays_graphs THEN ', or bring them into the CUDA graphs the loop already replays'
                ELSE ', or launch them from a CUDA graph' END AS suggestion,
    'Part of the CPU launch-bound time, not in addition to it; kernels launched from CUDA graphs are not counted'
        AS caveat
FROM short_kernels k
CROSS JOIN graphs g
LEFT JOIN host_calls h ON h.device = k.device AND h.nvtx_group IS NOT DISTINCT FROM k.nvtx_group
JOIN summary s ON s.device = k.device AND s.nvtx_group IS NOT DISTINCT FROM k.nvtx_group
WHERE s.gpu_span_ns > 0 AND k.short_kernels >= 5 AND k.cpu_launch_idle_ns >= 0.01 * s.gpu_span_ns
