-- Total GPU idle time by (component of the kernel before the gap -> component of the kernel after it).
-- requires: launches.kernel_gaps, classify.kernel_classes
-- access: public
-- unique: before_component, after_component
-- not null: before_component, after_component, gaps, total_ns
-- returns: rows
--   before_component  VARCHAR  component of the kernel that ended last before the gaps
--   after_component   VARCHAR  component of the kernel after them
--   gaps              BIGINT   positive gaps
--   total_ns          HUGEINT  their sum (ns)
SELECT b.component AS before_component, a.component AS after_component,
       count(*) AS gaps, sum(g.gap_ns) AS total_ns
FROM kernel_gaps g
JOIN kernel_classes b ON b.context_key = g.before_key
JOIN kernel_classes a ON a.context_key = g.context_key
WHERE g.gap_ns > 0
GROUP BY ALL
ORDER BY total_ns DESC, before_component, after_component
