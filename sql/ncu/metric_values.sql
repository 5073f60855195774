-- Metric values of the profiled launches of the ncu exports $traces: the metrics $common, or all with $all_metrics.
-- returns: rows
--   trace_id    the ncu export
--   id          the launch's ID
--   metric      raw metric name
--   value_text  value as exported
--   value       its number (NULL for text)
--   unit        unit as exported
--   base_value  value in base_unit (NULL when the unit is unknown)
--   base_unit   base unit
SELECT trace_id, result_id AS id, metric_key AS metric, value_text, value, unit, base_value, base_unit
FROM ncu_metrics
WHERE list_contains($traces, trace_id)
  AND ($all_metrics OR list_contains($common, metric_key))
ORDER BY trace_id, result_id, metric_key
