-- Kernel time and launches per kernel family, within each component and over all of them, per device and for the
-- whole scope.
-- requires: classify.class_times
-- access: public
-- unique: device, component, family
-- not null: family, launches, time_ns
-- returns: rows
--   device     VARCHAR  device label; NULL for the whole scope
--   component  VARCHAR  component; NULL for every component together
--   family     VARCHAR  kernel family
--   launches   HUGEINT  kernels
--   time_ns    HUGEINT  summed kernel durations (ns)
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END       AS device,
    CASE WHEN grouping(component) = 1 THEN NULL ELSE component END AS component,
    family,
    sum(launches) AS launches,
    sum(time_ns)  AS time_ns
FROM class_times
GROUP BY GROUPING SETS ((device, component, family), (device, family), (component, family), (family))
