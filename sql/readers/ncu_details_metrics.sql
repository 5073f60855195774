-- Metric rows of the details page (rule rows have no metric name); human names keep their text in `metric` and
-- map to raw names in `metric_key` (trace_id is added by the store).
-- It reads the relation reader_source: the page's columns as text (readers/ncu.py).
WITH parsed AS (
    SELECT CAST(replace(result_id, ',', '') AS BIGINT) AS result_id, section, metric,
           coalesce(unit, '') AS unit, value_text,
           parse_number(value_text) AS value
    FROM reader_source
    WHERE metric IS NOT NULL AND metric <> ''
)
SELECT p.result_id, p.section, p.metric, coalesce(a.metric_key, p.metric) AS metric_key, p.unit, p.value_text,
       p.value, u.base_unit, p.value * u.factor AS base_value
FROM parsed p
LEFT JOIN units u ON u.unit = p.unit
LEFT JOIN ncu_metric_aliases a ON a.metric = p.metric AND a.base_unit = u.base_unit
