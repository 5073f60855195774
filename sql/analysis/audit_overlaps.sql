-- Names that more than one name rule matched, with every match and the winner.
WITH multi AS (
    SELECT name FROM rule_matches WHERE context_key IS NULL GROUP BY name HAVING count(*) > 1
)
SELECT m.name, w.rule_file AS winner_rule_file, w.component AS winner_component,
       list({'rule_file': r.rule_file, 'component': r.component, 'priority': r.priority}
            ORDER BY r.priority, r.rule_rank) AS matches
FROM multi m
JOIN name_winners w USING (name)
JOIN rule_matches r ON r.name = m.name AND r.context_key IS NULL
GROUP BY m.name, w.rule_file, w.component
ORDER BY m.name
