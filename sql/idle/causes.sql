-- GPU idle by cause per device and summed over the devices (device NULL): the time no kernel runs, split by cause
-- (idle.stretches says how; the causes sum to kernel_idle_ns). For a whole capture, over the capture's span (its
-- first operation's start to its last operation's end, on any device): every idle stretch of each device's own
-- span, and the time before the device's first operation and after its last (inactive: a device that starts late
-- or ends early), so that each device's kernel union and idle time add up to the span. In a window, the stretches that lie in the window's span on the device and end at one of the
-- window's kernels: the idle time its kernels waited, causes judged over the whole capture (the kernels of other
-- windows are running time, not idle time; a stretch between two windows is neither's), and nothing inactive.
-- requires: idle.stretches, scope.ops, scope.window_ranges
-- access: public
-- unique: device
-- not null: kernel_idle_ns
-- returns: rows
--   device              VARCHAR  device label; NULL for the sum over devices
--   kernel_idle_ns      HUGEINT  time no kernel runs (ns)
--   inactive_ns         HUGEINT  of it, time of the capture's span before the device's first operation or after its
--                                last (ns)
--   untraced_graph_ns   HUGEINT  time of stretches holding a CUDA graph replay the capture has no kernels of (ns)
--   memory_transfer_ns  HUGEINT  of the rest, time a memcpy or memset runs (ns)
--   synchronization_ns  HUGEINT  time, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns       HUGEINT  time, else, the next kernel's launch call has not returned (ns)
--   other_ns            HUGEINT  the rest (ns)
WITH is_window AS (
    SELECT EXISTS (SELECT 1 FROM scope_window_ranges) AS answer
),
window_spans AS (  -- empty for a whole capture
    SELECT device, min(start_ns) AS span_start FROM scope_ops WHERE (SELECT answer FROM is_window) GROUP BY device
),
window_kernel_starts AS (  -- empty for a whole capture
    SELECT DISTINCT device, start_ns FROM scope_ops WHERE op_kind = 'kernel' AND (SELECT answer FROM is_window)
),
counted AS (
    SELECT s.* FROM idle_stretches s WHERE NOT (SELECT answer FROM is_window)
    UNION ALL
    SELECT s.*
    FROM idle_stretches s
    JOIN window_spans w ON w.device = s.device AND s.start_ns >= w.span_start
    SEMI JOIN window_kernel_starts k ON k.device = s.device AND k.start_ns = s.next_kernel_start_ns
),
bounds AS (
    SELECT device, min(start_ns) AS first_start, max(end_ns) AS last_end FROM scope_ops GROUP BY device
),
devices AS (  -- each with its time outside its own span (none in a window)
    SELECT device,
           CASE WHEN (SELECT answer FROM is_window) THEN 0
                ELSE max(last_end) OVER () - min(first_start) OVER () - (last_end - first_start) END AS inactive_ns
    FROM bounds
),
per_device AS (
    SELECT d.device, any_value(d.inactive_ns) AS inactive_ns, sum(c.end_ns - c.start_ns) AS stretch_ns,
           sum(c.untraced_graph_ns) AS untraced_graph_ns, sum(c.memory_transfer_ns) AS memory_transfer_ns,
           sum(c.synchronization_ns) AS synchronization_ns, sum(c.cpu_launch_ns) AS cpu_launch_ns,
           sum(c.other_ns) AS other_ns
    FROM devices d LEFT JOIN counted c USING (device)
    GROUP BY d.device
)
SELECT CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
       coalesce(sum(stretch_ns), 0) + sum(inactive_ns) AS kernel_idle_ns,
       sum(inactive_ns)                        AS inactive_ns,
       coalesce(sum(untraced_graph_ns), 0)     AS untraced_graph_ns,
       coalesce(sum(memory_transfer_ns), 0)    AS memory_transfer_ns,
       coalesce(sum(synchronization_ns), 0)    AS synchronization_ns,
       coalesce(sum(cpu_launch_ns), 0)         AS cpu_launch_ns,
       coalesce(sum(other_ns), 0)              AS other_ns
FROM per_device
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST
