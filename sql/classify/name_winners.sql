-- The class of each distinct kernel name from name rules alone: lowest priority wins, ties by file order;
-- unmatched names are 'other'. Context rules see these classes for a kernel's neighbours.
-- requires: scope.names, classify.name_matches, common.rule_pick
-- access: private
-- unique: name_id
-- not null: name_id, name, component
-- creates: name_winners
--   name_id        INTEGER  scope_names.name_id
--   name           VARCHAR  kernel name
--   component      VARCHAR  winning component ('other' when no rule matched)
--   sub_component  VARCHAR  winning sub-component
--   rule_file      VARCHAR  winning rule file (NULL when no rule matched)
--   priority       INTEGER  winning priority
--   match_count    BIGINT   how many name rules matched the name
CREATE OR REPLACE TEMP TABLE name_winners AS
WITH ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY name) AS match_count,
           rule_pick(name, priority, rule_rank, component) AS pick
    FROM name_rule_matches
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
