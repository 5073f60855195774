-- Metric values of the profiled launches of the ncu exports $traces: the metrics $common, or all with $all_metrics.
-- access: public
-- unique: trace_id, id, metric
-- not null: trace_id, id, metric
-- returns: rows
--   trace_id    INTEGER  the ncu export
--   id          BIGINT   the launch's ID
--   metric      VARCHAR  raw metric name
--   value_text  VARCHAR  value as exported
--   value       DOUBLE   its number (NULL for text)
--   unit        VARCHAR  unit as exported
--   base_value  DOUBLE   value in base_unit (NULL when the unit is unknown)
--   base_unit   VARCHAR  base unit
SELECT trace_id, result_id AS id, metric_key AS metric, value_text, value, unit, base_value, base_unit
FROM ncu_metrics
WHERE list_contains($traces, trace_id)
  AND ($all_metrics OR list_contains($common, metric_key))
ORDER BY trace_id, result_id, metric_key
