-- The class of each distinct kernel name from name rules alone: lowest priority wins, ties by file order;
-- unmatched names are 'other'. Context rules see these classes for a kernel's neighbours.
CREATE OR REPLACE TEMP TABLE name_winners AS
WITH ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY name) AS match_count,
           row_number() OVER (PARTITION BY name ORDER BY priority, rule_rank, component) AS pick
    FROM rule_matches
    WHERE context_key IS NULL
)
SELECT n.name_id,
       n.name,
       coalesce(r.component, 'other') AS component,
       r.sub_component,
       r.rule_file,
       r.priority,
       coalesce(r.match_count, 0) AS match_count
FROM scope_names n
LEFT JOIN ranked r ON r.name = n.name AND r.pick = 1;
