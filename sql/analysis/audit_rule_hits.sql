-- How many distinct names (or contexts) each rule file matched in this trace, and how many it won.
SELECT m.rule_file, count(DISTINCT coalesce(CAST(m.context_key AS VARCHAR), m.name)) AS matches,
       count(DISTINCT c.context_key) AS contexts_won
FROM rule_matches m
LEFT JOIN kernel_classes c ON c.rule_file = m.rule_file AND c.name = m.name
GROUP BY m.rule_file
