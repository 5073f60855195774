-- One class per kernel context: among the name rules matching its name and the context rules matching it,
-- the lowest priority wins, ties by file order; unmatched contexts are 'other'.
CREATE OR REPLACE TEMP TABLE kernel_classes AS
WITH contexts AS (
    SELECT c.context_key, n.name
    FROM (SELECT DISTINCT context_key, name_id FROM scope_kernels) c
    JOIN scope_names n USING (name_id)
),
candidates AS (
    SELECT c.context_key, m.name, m.component, m.sub_component, m.priority, m.rule_rank, m.rule_file,
           m.context_key IS NOT NULL AS by_context
    FROM contexts c
    JOIN rule_matches m ON m.name = c.name AND (m.context_key IS NULL OR m.context_key = c.context_key)
),
ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY context_key) AS match_count,
           row_number() OVER (PARTITION BY context_key ORDER BY priority, rule_rank, component) AS pick
    FROM candidates
)
SELECT c.context_key,
       c.name,
       coalesce(r.component, 'other') AS component,
       r.sub_component,
       r.rule_file,
       r.priority,
       coalesce(r.match_count, 0) AS match_count,
       coalesce(r.by_context, false) AS by_context
FROM contexts c
LEFT JOIN ranked r ON r.context_key = c.context_key AND r.pick = 1;
