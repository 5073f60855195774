-- Kernel time and launches per kernel family, within each component and over all of them, per device and for the
-- whole scope.
-- requires: scope.kernels, classify.kernel_classes, classify.kernel_families
-- returns: rows
--   device     device label; NULL for the whole scope
--   component  component; NULL for every component together
--   family     kernel family
--   launches   kernels
--   time_ns    summed kernel durations (ns)
SELECT
    CASE WHEN grouping(k.device) = 1 THEN NULL ELSE k.device END       AS device,
    CASE WHEN grouping(c.component) = 1 THEN NULL ELSE c.component END AS component,
    f.family,
    count(*)           AS launches,
    sum(k.duration_ns) AS time_ns
FROM scope_kernels k
JOIN kernel_classes c USING (context_key)
JOIN kernel_families f USING (name_id)
GROUP BY GROUPING SETS ((k.device, c.component, f.family), (k.device, f.family), (c.component, f.family), (f.family))
