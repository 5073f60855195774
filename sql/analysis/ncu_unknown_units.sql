-- Units the normalization table does not know: their values are kept as exported, never scaled.
SELECT DISTINCT unit, metric_key AS metric
FROM ncu_metrics
WHERE list_contains($traces, trace_id) AND base_unit IS NULL AND value IS NOT NULL
ORDER BY unit, metric
