-- finding: cpu_launch_bound | a device waits for the CPU to launch its kernels: the time no kernel runs while the
--   next kernel's launch call has not returned (idle_causes.cpu_launch_ns) is at least 5% of the device's span
-- One finding per device (and NVTX group). What the CPU does: when it synchronizes with the GPU after at least
-- every other launch (host_calls: the device's processes' calls in the API trace, or the cuda_api_sum summary's), it
-- is host synchronization
-- (each kernel waits for the launch that follows the host's wait for the kernel before; no CUDA graph can be
-- captured across it: remove or defer the synchronization). Else the wait per kernel (cpu_launch_ns / kernels)
-- tells: up to 100 us a kernel it is launch overhead (the framework's dispatch and the launch calls: CUDA graphs and
-- fusion remove it); beyond, it is host work between launches (copies, allocations, data loading, Python), which
-- graphs do not remove. Severity by the wait's share of the span: high from 25%, medium from 10%, low below. Gain ceiling:
-- cpu_launch_ns itself, the GPU time spent waiting for the CPU. Graphs are advised only to a capture that replays
-- none (graph_launches): one that does is told to bring the rest into them, and one whose replays were not traced
-- (captured without --cuda-graph-trace=node) that part of the wait may be the graphs' own GPU work.
WITH graphs AS (
    SELECT coalesce(sum(graph_launches), 0) + coalesce(sum(graph_kernels), 0) > 0 AS replays_graphs,
           coalesce(sum(untraced_graph_launches), 0) AS untraced_graph_launches,
           bool_or(graph_launches IS NULL) AS without_api_calls
    FROM graph_launches
),
host AS (  -- per device: the calls of its processes
    SELECT nvtx_group AS host_group, device AS host_device, launch_calls, host_sync_calls, counted_from,
           synchronized
    FROM host_calls
),
waits AS (
    SELECT c.nvtx_group, c.device, c.cpu_launch_ns, c.kernel_idle_ns, s.gpu_span_ns, s.kernel_count,
           c.cpu_launch_ns / s.kernel_count AS wait_per_kernel_ns,
           c.cpu_launch_ns / s.kernel_count <= 100000 AS launch_overhead
    FROM idle_causes c
    JOIN summary s ON s.device = c.device AND s.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
    WHERE c.device IS NOT NULL AND s.gpu_span_ns > 0 AND s.kernel_count > 0
      AND c.cpu_launch_ns >= 0.05 * s.gpu_span_ns
)
SELECT
    'cpu_launch_bound' AS id,
    CASE WHEN cpu_launch_ns >= 0.25 * gpu_span_ns THEN 'high'
         WHEN cpu_launch_ns >= 0.10 * gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    CASE WHEN coalesce(synchronized, false)
         THEN printf('Host-synchronized launches: the GPU waited %.2f ms (%.0f%% of the span) for kernel launches '
                     || 'while the host synchronizes with it %d times for %d launch calls', cpu_launch_ns / 1e6,
                     100 * cpu_launch_ns / gpu_span_ns, host_sync_calls, launch_calls)
         WHEN launch_overhead
         THEN printf('CPU launch-bound: the GPU waited %.2f ms (%.0f%% of the span) for kernel launches, %.1f us per '
                     || 'kernel', cpu_launch_ns / 1e6, 100 * cpu_launch_ns / gpu_span_ns, wait_per_kernel_ns / 1e3)
         ELSE printf('Host-bound: the GPU waited %.2f ms (%.0f%% of the span) for the host between launches, %.2f ms '
                     || 'per kernel', cpu_launch_ns / 1e6, 100 * cpu_launch_ns / gpu_span_ns, wait_per_kernel_ns / 1e6)
    END AS title,
    {'cpu_launch_ns': cpu_launch_ns, 'kernel_idle_ns': kernel_idle_ns, 'gpu_span_ns': gpu_span_ns,
     'kernel_count': kernel_count, 'cpu_launch_percent_of_span': 100 * cpu_launch_ns / gpu_span_ns,
     'wait_per_kernel_ns': wait_per_kernel_ns, 'launch_calls': launch_calls, 'host_sync_calls': host_sync_calls,
     'calls_counted_from': counted_from} AS evidence,
    {'nvtx_group': nvtx_group, 'device': device} AS scope,
    cpu_launch_ns AS gain_ceiling_ns,
    CASE WHEN untraced_graph_launches > 0
         THEN printf('Capture again with --cuda-graph-trace=node first: %d CUDA graph replays ran kernels this '
                     || 'capture does not hold, so part of this wait may be their GPU work', untraced_graph_launches)
         WHEN coalesce(synchronized, false)
         THEN 'Remove the host synchronization after each launch (cudaDeviceSynchronize, cudaStreamSynchronize, '
              || 'a tensor''s .item() or .cpu()), or defer it to where the host needs a result: each one makes the '
              || 'GPU wait for the next launch, and no CUDA graph can be captured across it'
         WHEN launch_overhead AND replays_graphs
         THEN 'The loop already replays CUDA graphs: bring the kernels launched outside them into the graphs, fuse '
              || 'small kernels, and keep other host work off the launching thread'
         WHEN launch_overhead
         THEN 'Launch fewer kernels: capture the loop in a CUDA graph (torch.cuda.CUDAGraph, torch.compile mode '
              || '"reduce-overhead"), fuse small kernels, and keep other host work off the launching thread'
         ELSE 'Find the host work between launches: the API calls in the largest gaps (launches), allocations and '
              || 'copies inside the loop, data loading and Python; move it off the critical path or overlap it' END
        AS suggestion,
    'The wait runs until the launch call returns, so it includes whatever the host did before the call; faster '
        || 'launches can expose other waits'
        || CASE WHEN without_api_calls AND counted_from IS NULL
                THEN '. Without the CUDA API trace (cuda_api_trace) neither host synchronization between launches '
                     || 'nor CUDA graph replays nsys did not trace can be seen'
                WHEN without_api_calls
                THEN '. Without the CUDA API trace (cuda_api_trace) CUDA graph replays nsys did not trace cannot be '
                     || 'seen; the calls are counted from the cuda_api_sum summary, over the whole capture'
                ELSE '' END
        AS caveat
FROM waits
CROSS JOIN graphs
LEFT JOIN host ON host_device = device AND host_group IS NOT DISTINCT FROM nvtx_group
