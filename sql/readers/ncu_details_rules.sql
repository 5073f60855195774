-- Rule rows of the details page (trace_id is added by the store).
-- It reads the relation reader_source: the page's columns as text (readers/ncu.py).
SELECT CAST(replace(result_id, ',', '') AS BIGINT) AS result_id, section, rule_name, rule_type, rule_description,
       speedup_type, parse_number(speedup) AS speedup
FROM reader_source
WHERE rule_name IS NOT NULL AND rule_name <> ''
