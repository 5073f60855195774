-- finding: cpu_launch_bound | a device waits for the CPU to launch its kernels: the time no kernel runs while the
--   next kernel's launch call has not returned (idle_causes.cpu_launch_ns) is at least 5% of the device's span
-- One finding per device (and NVTX group). Severity by that share of the span: high from 25%, medium from 10%, low
-- below. Gain ceiling: cpu_launch_ns itself, the GPU time spent waiting for launch calls.
SELECT
    'cpu_launch_bound' AS id,
    CASE WHEN c.cpu_launch_ns >= 0.25 * s.gpu_span_ns THEN 'high'
         WHEN c.cpu_launch_ns >= 0.10 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('CPU launch-bound: the GPU waited %.2f ms (%.0f%% of the span) for the CPU to launch the next kernel',
           c.cpu_launch_ns / 1e6, 100 * c.cpu_launch_ns / s.gpu_span_ns) AS title,
    {'cpu_launch_ns': c.cpu_launch_ns, 'kernel_idle_ns': c.kernel_idle_ns, 'gpu_span_ns': s.gpu_span_ns,
     'kernel_count': s.kernel_count, 'cpu_launch_percent_of_span': 100 * c.cpu_launch_ns / s.gpu_span_ns} AS evidence,
    {'nvtx_group': c.nvtx_group, 'device': c.device} AS scope,
    c.cpu_launch_ns AS gain_ceiling_ns,
    'Launch fewer kernels: capture the loop in a CUDA graph (torch.cuda.CUDAGraph, torch.compile mode '
        || '"reduce-overhead"), fuse small kernels, and keep other host work off the launching thread' AS suggestion,
    'The wait runs until the launch call returns, so it includes host work before the call (Python, data loading, '
        || 'scheduling): look at the CPU side (the API calls in the largest gaps, a Python profiler) before fusing; '
        || 'faster launches can expose other waits' AS caveat
FROM idle_causes c
JOIN summary s ON s.device = c.device AND s.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
WHERE c.device IS NOT NULL AND s.gpu_span_ns > 0 AND c.cpu_launch_ns >= 0.05 * s.gpu_span_ns
