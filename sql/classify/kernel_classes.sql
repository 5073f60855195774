-- One class per kernel context: among the name rules matching its name and the context rules matching it,
-- the lowest priority wins, ties by file order; unmatched contexts are 'other'.
-- requires: scope.kernels, scope.names, classify.name_matches, classify.context_matches, common.rule_pick
-- filled by: nsight_ingest.rules (it refuses undeclared components and records each name's class in the store)
-- access: private
-- unique: context_key
-- not null: context_key, name, component
-- creates: kernel_classes
--   context_key    UBIGINT  scope_kernels.context_key
--   name           VARCHAR  kernel name
--   component      VARCHAR  winning component ('other' when no rule matched)
--   sub_component  VARCHAR  winning sub-component
--   rule_file      VARCHAR  winning rule file (NULL when no rule matched)
--   priority       INTEGER  winning priority
--   match_count    BIGINT   how many rules (name and context) matched
--   by_context     BOOLEAN  true when a context rule won
CREATE OR REPLACE TEMP TABLE kernel_classes AS
WITH contexts AS (
    SELECT c.context_key, n.name
    FROM (SELECT DISTINCT context_key, name_id FROM scope_kernels) c
    JOIN scope_names n USING (name_id)
),
candidates AS (
    SELECT c.context_key, m.name, m.component, m.sub_component, m.priority, m.rule_rank, m.rule_file,
           false AS by_context
    FROM contexts c JOIN name_rule_matches m ON m.name = c.name
    UNION ALL
    SELECT context_key, name, component, sub_component, priority, rule_rank, rule_file, true
    FROM context_rule_matches
),
ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY context_key) AS match_count,
           rule_pick(context_key, priority, rule_rank, component) AS pick
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
