-- Kernels no rule matched: their time and the $top names that hold most of it.
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
