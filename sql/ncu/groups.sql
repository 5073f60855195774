-- The same kernel profiled several times in the ncu exports $traces: launches and min / median / max of each of
-- the metrics $common (base units).
-- access: public
-- returns: rows
--   name       VARCHAR  kernel name (ncu dialect)
--   metric     VARCHAR  raw metric name
--   base_unit  VARCHAR  unit of the values
--   launches   BIGINT   profiled launches of the kernel
--   min        DOUBLE   smallest value
--   median     DOUBLE   median value
--   max        DOUBLE   largest value
SELECT r.kernel_name AS name, m.metric_key AS metric, any_value(m.base_unit) AS base_unit,
       count(DISTINCT (r.trace_id, r.result_id)) AS launches,
       min(m.base_value) AS min, median(m.base_value) AS median, max(m.base_value) AS max
FROM ncu_results r
JOIN ncu_metrics m USING (trace_id, result_id)
WHERE list_contains($traces, r.trace_id) AND list_contains($common, m.metric_key) AND m.base_value IS NOT NULL
GROUP BY r.kernel_name, m.metric_key
ORDER BY r.kernel_name, m.metric_key
