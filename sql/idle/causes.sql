-- GPU idle by cause per device and summed over the devices (device NULL): each device's span, the time some kernel
-- of it runs (the union of its kernel intervals), and the rest, the time no kernel runs, split by cause
-- (idle.segments says how; the four causes sum to kernel_idle_ns).
-- requires: scope.ops, idle.segments
-- returns: rows
--   device              device label; NULL for the sum over devices
--   span_ns             first operation start to last operation end of the device (ns)
--   kernel_union_ns     time some kernel runs (ns)
--   kernel_idle_ns      time no kernel runs: span_ns - kernel_union_ns (ns)
--   memory_transfer_ns  of it, time a memcpy or memset runs (ns)
--   synchronization_ns  time, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns       time, else, the next kernel's launch call has not returned (ns)
--   other_ns            the rest (ns)
WITH spans AS (
    SELECT device, max(end_ns) - min(start_ns) AS span_ns FROM scope_ops GROUP BY device
),
idle AS (
    SELECT device, sum(end_ns - start_ns) AS kernel_idle_ns, sum(memory_transfer_ns) AS memory_transfer_ns,
           sum(synchronization_ns) AS synchronization_ns, sum(cpu_launch_ns) AS cpu_launch_ns, sum(other_ns) AS other_ns
    FROM idle_segments GROUP BY device
)
SELECT CASE WHEN grouping(s.device) = 1 THEN NULL ELSE s.device END AS device,
       sum(s.span_ns)                                        AS span_ns,
       sum(s.span_ns - coalesce(i.kernel_idle_ns, 0))        AS kernel_union_ns,
       coalesce(sum(i.kernel_idle_ns), 0)                    AS kernel_idle_ns,
       coalesce(sum(i.memory_transfer_ns), 0)                AS memory_transfer_ns,
       coalesce(sum(i.synchronization_ns), 0)                AS synchronization_ns,
       coalesce(sum(i.cpu_launch_ns), 0)                     AS cpu_launch_ns,
       coalesce(sum(i.other_ns), 0)                          AS other_ns
FROM spans s LEFT JOIN idle i USING (device)
GROUP BY GROUPING SETS ((s.device), ())
ORDER BY device NULLS FIRST
