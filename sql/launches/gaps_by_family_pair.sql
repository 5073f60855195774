-- Total GPU idle time by (kernel family of the kernel before the gap -> family of the kernel after it).
-- requires: launches.kernel_gaps, classify.kernel_classes, classify.kernel_families
-- access: public
-- unique: before_family, after_family
-- not null: before_family, after_family, gaps, total_ns
-- returns: rows
--   before_family  VARCHAR  family of the kernel that ended last before the gaps
--   after_family   VARCHAR  family of the kernel after them
--   gaps           BIGINT   positive gaps
--   total_ns       HUGEINT  their sum (ns)
WITH context_families AS (  -- one row per kernel context: small, so the gaps join integers only
    SELECT c.context_key, f.family FROM kernel_classes c JOIN kernel_families f USING (name)
)
SELECT b.family AS before_family, a.family AS after_family, count(*) AS gaps, sum(g.gap_ns) AS total_ns
FROM kernel_gaps g
JOIN context_families b ON b.context_key = g.before_key
JOIN context_families a ON a.context_key = g.context_key
WHERE g.gap_ns > 0
GROUP BY ALL
ORDER BY total_ns DESC, before_family, after_family
