-- One class per distinct kernel name: lowest priority wins, ties by file order; unmatched names are 'other'.
CREATE OR REPLACE TEMP TABLE kernel_classes AS
WITH ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY name) AS match_count,
           row_number() OVER (PARTITION BY name ORDER BY priority, rule_rank, component) AS pick
    FROM rule_matches
)
SELECT n.name,
       coalesce(r.component, 'other') AS component,
       r.sub_component,
       r.rule_file,
       r.priority,
       coalesce(r.match_count, 0) AS match_count
FROM kernel_names n
LEFT JOIN ranked r ON r.name = n.name AND r.pick = 1;
