-- The $top largest GPU idle gaps with the kernel that ended last before each and the kernel after it, the gap's
-- time by idle cause (of the idle stretch that ends at the kernel after it: in a whole capture the gap itself; in a
-- window, where kernels of other windows may run in a gap, the time no kernel at all ran before the next one), and
-- the CPU API calls of the device's processes in progress during it (the $calls that overlap it longest, of the
-- whole capture).
-- requires: launches.kernel_gaps, classify.kernel_classes, classify.kernel_names, idle.stretches
-- requires: scope.capture_api_calls
-- requires: scope.device_processes
-- access: public
-- returns: rows
--   gap_ns              BIGINT   gap length (ns)
--   device              VARCHAR  device label
--   stream_id           BIGINT   stream of the kernel after the gap
--   gap_start_ns        BIGINT   when the GPU went idle (ns)
--   gap_end_ns          BIGINT   when the next kernel started (ns)
--   before              VARCHAR  name of the kernel that ended last before the gap
--   before_component    VARCHAR  its component
--   before_short_name   VARCHAR  its short name (kernel_short_name)
--   after               VARCHAR  name of the kernel after the gap
--   after_component     VARCHAR  its component
--   after_short_name    VARCHAR  its short name
--   untraced_graph_ns   HUGEINT  of the gap, its time when it held a CUDA graph replay the capture has no kernels of
--                                (ns)
--   memory_transfer_ns  HUGEINT  time, else, a memcpy or memset ran (ns)
--   synchronization_ns  HUGEINT  time, else, a host synchronization call was in progress (ns)
--   cpu_launch_ns       HUGEINT  time, else, the next kernel's launch call had not returned (ns)
--   other_ns            HUGEINT  the rest (ns)
--   api_calls           STRUCT("name" VARCHAR, start_ns BIGINT, duration_ns BIGINT, overlap_ns BIGINT)[]
--                                the calls overlapping the gap longest: [{name, start_ns, duration_ns, overlap_ns}]
--   api_call_count      BIGINT   how many calls overlap the gap
WITH top AS (
    SELECT * FROM kernel_gaps WHERE gap_ns > 0 ORDER BY gap_ns DESC, start_ns LIMIT $top
),
causes AS (
    SELECT t.device, t.start_ns, sum(s.untraced_graph_ns) AS untraced_graph_ns,
           sum(s.memory_transfer_ns) AS memory_transfer_ns,
           sum(s.synchronization_ns) AS synchronization_ns, sum(s.cpu_launch_ns) AS cpu_launch_ns,
           sum(s.other_ns) AS other_ns
    FROM top t
    JOIN idle_stretches s
      ON s.device = t.device AND s.next_kernel_start_ns = t.start_ns AND s.start_ns >= t.earlier_end_ns
    GROUP BY ALL
),
overlapping AS (
    SELECT t.device, t.start_ns, c.name, c.start_ns AS call_start_ns, c.duration_ns,
           least(c.end_ns, t.start_ns) - greatest(c.start_ns, t.earlier_end_ns) AS overlap_ns
    FROM top t
    JOIN device_processes p ON p.device = t.device
    JOIN capture_api_calls c
      ON c.pid IS NOT DISTINCT FROM p.pid AND c.start_ns < t.start_ns AND c.end_ns > t.earlier_end_ns
),
calls AS (
    SELECT device, start_ns,
           list({'name': name, 'start_ns': call_start_ns, 'duration_ns': duration_ns, 'overlap_ns': overlap_ns}
                ORDER BY overlap_ns DESC, call_start_ns, name)[1:$calls] AS api_calls,
           count(*) AS api_call_count
    FROM overlapping GROUP BY ALL
)
SELECT t.gap_ns, t.device, t.stream_id, t.earlier_end_ns AS gap_start_ns, t.start_ns AS gap_end_ns,
       b.name AS before, b.component AS before_component, bn.short_name AS before_short_name,
       a.name AS after, a.component AS after_component, an.short_name AS after_short_name,
       coalesce(g.untraced_graph_ns, 0) AS untraced_graph_ns, coalesce(g.memory_transfer_ns, 0) AS memory_transfer_ns, coalesce(g.synchronization_ns, 0) AS synchronization_ns,
       coalesce(g.cpu_launch_ns, 0) AS cpu_launch_ns, coalesce(g.other_ns, 0) AS other_ns,
       coalesce(c.api_calls, []) AS api_calls, coalesce(c.api_call_count, 0) AS api_call_count
FROM top t
JOIN kernel_classes b ON b.context_key = t.before_key
JOIN kernel_classes a ON a.context_key = t.context_key
JOIN kernel_names bn ON bn.name = b.name
JOIN kernel_names an ON an.name = a.name
LEFT JOIN causes g ON g.device = t.device AND g.start_ns = t.start_ns
LEFT JOIN calls c ON c.device = t.device AND c.start_ns = t.start_ns
ORDER BY t.gap_ns DESC, t.start_ns
