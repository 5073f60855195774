-- Kernels no rule matched: their time and the $top names that hold most of it.
-- requires: scope.kernels, scope.names, classify.kernel_classes
-- returns: rows
--   name                kernel name
--   launches            its kernels
--   time_ns             their time (ns)
--   unmatched_time_ns   time of every unmatched kernel (ns)
--   unmatched_launches  every unmatched kernel
WITH unmatched AS (
    SELECT n.name, k.duration_ns
    FROM scope_kernels k
    JOIN kernel_classes c USING (context_key)
    JOIN scope_names n USING (name_id)
    WHERE c.rule_file IS NULL
)
SELECT name, count(*) AS launches, sum(duration_ns) AS time_ns,
       sum(sum(duration_ns)) OVER () AS unmatched_time_ns, sum(count(*)) OVER () AS unmatched_launches
FROM unmatched
GROUP BY name
ORDER BY time_ns DESC, name
LIMIT $top
