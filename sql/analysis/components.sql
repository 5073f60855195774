-- Kernel time and launches per component (from temp table kernel_classes), per device and whole file (device NULL).
-- Parameter: $gpu_trace.
SELECT
    CASE WHEN grouping(k.device) = 1 THEN NULL ELSE k.device END AS device,
    c.component,
    count(*)            AS launches,
    sum(k.duration_ns)  AS time_ns
FROM (SELECT coalesce(device, '(no device)') AS device, name, duration_ns
      FROM kernels WHERE trace_id = $gpu_trace) k
JOIN kernel_classes c ON c.name = k.name
GROUP BY GROUPING SETS ((k.device, c.component), (c.component))
