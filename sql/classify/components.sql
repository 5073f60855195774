-- Kernel time and launches per (component, sub-component) of the scope, per device and for the whole scope
-- (device NULL).
-- requires: classify.class_times
-- returns: rows
--   device         device label; NULL for the whole scope
--   component      component
--   sub_component  sub-component (NULL: none)
--   launches       kernels
--   time_ns        summed kernel durations (ns)
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
    component,
    sub_component,
    sum(launches) AS launches,
    sum(time_ns)  AS time_ns
FROM class_times
GROUP BY GROUPING SETS ((device, component, sub_component), (component, sub_component))
