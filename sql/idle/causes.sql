-- GPU idle by cause per device and summed over the devices (device NULL): the time no kernel runs, split by cause
-- (idle.stretches says how; the four causes sum to kernel_idle_ns). For a whole capture, every idle stretch of each
-- device's span. In a window, the stretches that lie in the window's span on the device and end at one of the
-- window's kernels: the idle time its kernels waited, causes judged over the whole capture (the kernels of other
-- windows are running time, not idle time; a stretch between two windows is neither's).
-- requires: idle.stretches, scope.ops, scope.window_ranges
-- returns: rows
--   device              device label; NULL for the sum over devices
--   kernel_idle_ns      time no kernel runs (ns)
--   memory_transfer_ns  of it, time a memcpy or memset runs (ns)
--   synchronization_ns  time, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns       time, else, the next kernel's launch call has not returned (ns)
--   other_ns            the rest (ns)
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
devices AS (
    SELECT DISTINCT device FROM scope_ops
)
SELECT CASE WHEN grouping(d.device) = 1 THEN NULL ELSE d.device END AS device,
       coalesce(sum(c.end_ns - c.start_ns), 0)  AS kernel_idle_ns,
       coalesce(sum(c.memory_transfer_ns), 0)   AS memory_transfer_ns,
       coalesce(sum(c.synchronization_ns), 0)   AS synchronization_ns,
       coalesce(sum(c.cpu_launch_ns), 0)        AS cpu_launch_ns,
       coalesce(sum(c.other_ns), 0)             AS other_ns
FROM devices d LEFT JOIN counted c USING (device)
GROUP BY GROUPING SETS ((d.device), ())
ORDER BY device NULLS FIRST
