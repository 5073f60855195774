-- Kernels no component rule matched (they fall to component 'other', beside the kernels a rule gave 'other'): their
-- time and the $top names that hold most of it, with the whole of component 'other' to set them against.
-- requires: scope.kernels, scope.names, classify.kernel_classes
-- access: public
-- unique: name
-- not null: launches, time_ns
-- returns: rows
--   name                VARCHAR  kernel name (NULL on the one row of a scope where every kernel matched a rule)
--   launches            BIGINT   its kernels
--   time_ns             HUGEINT  their time (ns)
--   unmatched_time_ns   HUGEINT  time of every unmatched kernel (ns)
--   unmatched_launches  HUGEINT  every unmatched kernel
--   other_time_ns       HUGEINT  time of every kernel of component 'other', unmatched or given 'other' by a rule (ns)
--   other_launches      BIGINT   every kernel of component 'other'
WITH classed AS (
    SELECT n.name, k.duration_ns, c.rule_file IS NULL AS unmatched, c.component = 'other' AS is_other
    FROM scope_kernels k
    JOIN kernel_classes c USING (context_key)
    JOIN scope_names n USING (name_id)
),
other AS (
    SELECT coalesce(sum(duration_ns) FILTER (WHERE is_other), 0) AS other_time_ns,
           count(*) FILTER (WHERE is_other) AS other_launches
    FROM classed
),
names AS (
    SELECT name, count(*) AS launches, sum(duration_ns) AS time_ns,
           sum(sum(duration_ns)) OVER () AS unmatched_time_ns, sum(count(*)) OVER () AS unmatched_launches
    FROM classed WHERE unmatched
    GROUP BY name
)
SELECT n.name, coalesce(n.launches, 0) AS launches, coalesce(n.time_ns, 0) AS time_ns,
       coalesce(n.unmatched_time_ns, 0) AS unmatched_time_ns, coalesce(n.unmatched_launches, 0) AS unmatched_launches,
       o.other_time_ns, o.other_launches
FROM other o LEFT JOIN names n ON true
ORDER BY n.time_ns DESC, n.name
LIMIT $top
