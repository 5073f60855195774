-- The kernel family of each distinct kernel name of the scope: among the family rules matching it the lowest
-- priority wins, ties by file order; unmatched names are 'other'. Families are a property of the name alone.
-- requires: scope.names, classify.kernel_names, classify.family_matches, common.rule_pick
-- filled by: nsight_ingest.rules (it refuses undeclared families and records each name's family in the store)
-- access: private
-- unique: name_id
-- not null: name_id, name, family
-- creates: kernel_families
--   name_id      INTEGER  scope_names.name_id
--   name         VARCHAR  kernel name
--   short_name   VARCHAR  its short name (kernel_short_name)
--   family       VARCHAR  winning family ('other' when no rule matched)
--   rule_file    VARCHAR  winning rule file (NULL when no rule matched)
--   priority     INTEGER  winning priority
--   match_count  BIGINT   how many family rules matched the name
CREATE OR REPLACE TEMP TABLE kernel_families AS
WITH ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY name) AS match_count,
           rule_pick(name, priority, rule_rank, family) AS pick
    FROM family_rule_matches
)
SELECT n.name_id,
       n.name,
       k.short_name,
       coalesce(r.family, 'other') AS family,
       r.rule_file,
       r.priority,
       coalesce(r.match_count, 0) AS match_count
FROM scope_names n
JOIN kernel_names k USING (name)
LEFT JOIN ranked r ON r.name = n.name AND r.pick = 1;
