-- Rule rows of the details page (trace_id is added by the store).
SELECT CAST(replace(result_id, ',', '') AS BIGINT) AS result_id, section, rule_name, rule_type, rule_description,
       speedup_type, parse_number(speedup) AS speedup
FROM {source}
WHERE rule_name IS NOT NULL AND rule_name <> ''
