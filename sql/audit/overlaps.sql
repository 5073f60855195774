-- Names that more than one name rule matched, with every match and the winner.
-- requires: classify.name_winners
-- access: public
-- unique: name
-- not null: name, winner_component
-- returns: rows
--   name              VARCHAR  kernel name
--   winner_rule_file  VARCHAR  the rule file that won
--   winner_component  VARCHAR  the component it gave
--   matches           STRUCT(rule_file VARCHAR, component VARCHAR, priority INTEGER)[]
--                              every match: {rule_file, component, priority}, best first
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
