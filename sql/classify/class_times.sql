-- Kernel launches and time per (device, kernel name, component, sub-component, family): the scope's kernels summed
-- once (per kernel context first, then joined to their classes), so that the component, family and top-kernel
-- answers read these few rows instead of every kernel.
-- requires: scope.kernels, classify.kernel_classes, classify.kernel_families
-- access: private
-- creates: class_times
--   device         VARCHAR  device label
--   name_id        INTEGER  scope_names.name_id of the kernel name
--   component      VARCHAR  component
--   sub_component  VARCHAR  sub-component (NULL: none)
--   family         VARCHAR  kernel family of the name
--   launches       HUGEINT  kernels
--   time_ns        HUGEINT  summed kernel durations (ns)
--   min_ns         BIGINT   shortest (ns)
--   max_ns         BIGINT   longest (ns)
CREATE OR REPLACE TEMP TABLE class_times AS
WITH per_context AS (
    SELECT device, context_key, name_id, count(*) AS launches, sum(duration_ns) AS time_ns,
           min(duration_ns) AS min_ns, max(duration_ns) AS max_ns
    FROM scope_kernels
    GROUP BY ALL
)
SELECT p.device, p.name_id, c.component, c.sub_component, f.family,
       sum(p.launches) AS launches, sum(p.time_ns) AS time_ns, min(p.min_ns) AS min_ns, max(p.max_ns) AS max_ns
FROM per_context p
JOIN kernel_classes c USING (context_key)
JOIN kernel_families f USING (name_id)
GROUP BY ALL;
