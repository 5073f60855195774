-- Units of the ncu exports $traces that the units table does not know: their values are kept, never scaled.
-- access: public
-- unique: unit, metric
-- not null: unit, metric
-- returns: rows
--   unit    VARCHAR  unit as exported
--   metric  VARCHAR  a metric that has it
SELECT DISTINCT unit, metric_key AS metric
FROM ncu_metrics
WHERE list_contains($traces, trace_id) AND base_unit IS NULL AND value IS NOT NULL
ORDER BY unit, metric
