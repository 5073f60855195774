-- Total GPU idle time by (component of the kernel before the gap -> component of the kernel after it).
-- requires: launches.kernel_gaps, classify.kernel_classes
-- returns: rows
--   before_component  component of the kernel that ended last before the gaps
--   after_component   component of the kernel after them
--   gaps              positive gaps
--   total_ns          their sum (ns)
SELECT b.component AS before_component, a.component AS after_component,
       count(*) AS gaps, sum(g.gap_ns) AS total_ns
FROM kernel_gaps g
JOIN kernel_classes b ON b.context_key = g.before_key
JOIN kernel_classes a ON a.context_key = g.context_key
WHERE g.gap_ns > 0
GROUP BY ALL
ORDER BY total_ns DESC, before_component, after_component
