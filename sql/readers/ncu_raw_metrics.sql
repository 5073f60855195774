-- The raw page's metric columns as long rows, with the unit of each column from temp table ncu_header and the
-- value normalized through `units` (trace_id is added by the store).
-- It reads the relation reader_source: the page's columns as text (readers/ncu.py).
WITH long AS (
    UNPIVOT (SELECT * FROM reader_source) ON COLUMNS('^m_') INTO NAME col VALUE value_text
),
parsed AS (
    SELECT CAST(replace(l.result_id, ',', '') AS BIGINT) AS result_id, h.metric, h.unit, l.value_text,
           parse_number(l.value_text) AS value
    FROM long l JOIN ncu_header h USING (col)
)
SELECT p.result_id, NULL AS section, p.metric, p.metric AS metric_key, p.unit, p.value_text, p.value,
       u.base_unit, p.value * u.factor AS base_value
FROM parsed p
LEFT JOIN units u ON u.unit = p.unit
