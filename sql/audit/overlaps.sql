-- Names that more than one name rule matched, with every match and the winner.
-- requires: classify.name_winners
-- returns: rows
--   name              kernel name
--   winner_rule_file  the rule file that won
--   winner_component  the component it gave
--   matches           every match: {rule_file, component, priority}, best first
WITH multi AS (
    SELECT name FROM name_rule_matches GROUP BY name HAVING count(*) > 1
)
SELECT m.name, w.rule_file AS winner_rule_file, w.component AS winner_component,
       list({'rule_file': r.rule_file, 'component': r.component, 'priority': r.priority}
            ORDER BY r.priority, r.rule_rank) AS matches
FROM multi m
JOIN name_winners w USING (name)
JOIN name_rule_matches r ON r.name = m.name
GROUP BY m.name, w.rule_file, w.component
ORDER BY m.name
