-- Kernel time and launches per (component, sub-component) of the scope, per device and for the whole scope
-- (device NULL).
-- requires: scope.kernels, classify.kernel_classes
-- returns: rows
--   device         device label; NULL for the whole scope
--   component      component
--   sub_component  sub-component (NULL: none)
--   launches       kernels
--   time_ns        summed kernel durations (ns)
SELECT
    CASE WHEN grouping(k.device) = 1 THEN NULL ELSE k.device END AS device,
    c.component,
    c.sub_component,
    count(*)                 AS launches,
    sum(k.duration_ns)       AS time_ns
FROM scope_kernels k
JOIN kernel_classes c USING (context_key)
GROUP BY GROUPING SETS ((k.device, c.component, c.sub_component), (c.component, c.sub_component))
