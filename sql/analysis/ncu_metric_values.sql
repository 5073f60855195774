-- Metric values of the profiled launches of the given traces: the common metrics, or all with $all_metrics.
SELECT trace_id, result_id AS id, metric_key AS metric, value_text, value, unit, base_value, base_unit
FROM ncu_metrics
WHERE list_contains($traces, trace_id)
  AND ($all_metrics OR list_contains($common, metric_key))
ORDER BY trace_id, result_id, metric_key
