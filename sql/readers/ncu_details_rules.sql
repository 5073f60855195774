-- Rule rows of the details page (trace_id is added by the store).
SELECT CAST(replace(result_id, ',', '') AS BIGINT) AS result_id, section, rule_name, rule_type, rule_description,
       speedup_type, TRY_CAST(replace(speedup, ',', '') AS DOUBLE) AS speedup
FROM {source}
WHERE rule_name IS NOT NULL AND rule_name <> ''
