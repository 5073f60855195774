-- Kernels that run shorter than the call that launched them, per device and kernel family (Holistic Trace
-- Analysis' short-kernel check): launching each costs the CPU more time than the GPU spends running it, so the GPU
-- waits for the CPU between them; fusing them, or capturing them in a CUDA graph, removes launches. Each launch row
-- is matched to the kernel of its device that starts at its kernel start (of kernels starting together, the first
-- family by name and the shortest duration; of launch rows, the shortest call). Kernels launched by a CUDA-graph
-- launch are left out: one call launches the whole graph. cpu_launch_idle_ns is the CPU-launch idle time of the idle
-- stretches ending at a short kernel (idle.stretches): the GPU time waiting for these launches.
-- requires: scope.kernels, scope.launches, classify.kernel_families, idle.stretches
-- access: public
-- unique: device, family
-- not null: device, family, kernels
-- returns: rows
--   device              VARCHAR  device label
--   family              VARCHAR  kernel family
--   kernels             BIGINT   kernels of the family launched by a launch call that is not a graph launch
--   short_kernels       BIGINT   of them, those whose GPU duration is shorter than their launch call's duration
--   short_kernel_ns     HUGEINT  the short kernels' summed GPU duration (ns)
--   launch_call_ns      HUGEINT  their launch calls' summed duration (ns)
--   cpu_launch_idle_ns  HUGEINT  CPU-launch idle time of the idle stretches that end at a short kernel (ns)
WITH kernel_at AS (
    SELECT any_value(k.device) AS device, coalesce(k.device_index, 0) AS device_index, k.start_ns,
           min(f.family) AS family, min(k.duration_ns) AS duration_ns
    FROM scope_kernels k JOIN kernel_families f USING (name_id)
    GROUP BY coalesce(k.device_index, 0), k.start_ns
),
launch_at AS (
    SELECT device_index, kernel_start_ns, min(api_duration_ns) AS api_duration_ns
    FROM scope_launches
    WHERE NOT regexp_matches(coalesce(api_function, ''), '^cu(da)?GraphLaunch')
    GROUP BY device_index, kernel_start_ns
),
launched AS (
    SELECT k.device, k.family, k.start_ns, k.duration_ns, l.api_duration_ns,
           k.duration_ns < l.api_duration_ns AS is_short
    FROM kernel_at k
    JOIN launch_at l ON l.device_index = k.device_index AND l.kernel_start_ns = k.start_ns
)
SELECT l.device, l.family, count(*) AS kernels, count(*) FILTER (WHERE l.is_short) AS short_kernels,
       coalesce(sum(l.duration_ns) FILTER (WHERE l.is_short), 0) AS short_kernel_ns,
       coalesce(sum(l.api_duration_ns) FILTER (WHERE l.is_short), 0) AS launch_call_ns,
       coalesce(sum(s.cpu_launch_ns) FILTER (WHERE l.is_short), 0) AS cpu_launch_idle_ns
FROM launched l
LEFT JOIN idle_stretches s ON s.device = l.device AND s.next_kernel_start_ns = l.start_ns
GROUP BY l.device, l.family
ORDER BY l.device, cpu_launch_idle_ns DESC, short_kernel_ns DESC, l.family
