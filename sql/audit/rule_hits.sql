-- How many distinct names (or contexts) each rule file matched in the scope, and how many contexts it won.
-- requires: classify.kernel_classes
-- access: public
-- unique: rule_file
-- not null: rule_file, matches, contexts_won
-- returns: rows
--   rule_file     VARCHAR  the rule file
--   matches       BIGINT   distinct names (name rules) or contexts (context rules) it matched
--   contexts_won  BIGINT   kernel contexts it classified
SELECT m.rule_file, count(DISTINCT coalesce(CAST(m.context_key AS VARCHAR), m.name)) AS matches,
       count(DISTINCT c.context_key) AS contexts_won
FROM (SELECT rule_file, name, NULL::UBIGINT AS context_key FROM name_rule_matches
      UNION ALL
      SELECT rule_file, name, context_key FROM context_rule_matches) m
LEFT JOIN kernel_classes c ON c.rule_file = m.rule_file AND c.name = m.name
GROUP BY m.rule_file
