-- Kernel time and launches per (component, sub-component) of the scope, per device and for the whole scope
-- (device NULL).
-- requires: classify.class_times
-- access: public
-- unique: device, component, sub_component
-- not null: component, launches, time_ns
-- returns: rows
--   device         VARCHAR  device label; NULL for the whole scope
--   component      VARCHAR  component
--   sub_component  VARCHAR  sub-component (NULL: none)
--   launches       HUGEINT  kernels
--   time_ns        HUGEINT  summed kernel durations (ns)
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
    component,
    sub_component,
    sum(launches) AS launches,
    sum(time_ns)  AS time_ns
FROM class_times
GROUP BY GROUPING SETS ((device, component, sub_component), (component, sub_component))
