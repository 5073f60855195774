-- The kernel families of the kernels no component rule matched: where new component rules would take time from.
-- requires: scope.kernels, classify.kernel_classes, classify.kernel_families
-- access: public
-- unique: family
-- not null: family, launches, time_ns
-- returns: rows
--   family    VARCHAR  kernel family
--   launches  BIGINT   unmatched kernels of the family
--   time_ns   HUGEINT  their time (ns)
SELECT f.family, count(*) AS launches, sum(k.duration_ns) AS time_ns
FROM scope_kernels k
JOIN kernel_classes c USING (context_key)
JOIN kernel_families f USING (name_id)
WHERE c.rule_file IS NULL
GROUP BY f.family
ORDER BY time_ns DESC, f.family
