-- Every metric of each capture of the night (history.baselines) per night up to it (the latest run of each night)
-- under rule set $rule_set_version and, for the metrics $family_metrics, family set $family_set_version: the
-- report's trends.
-- requires: history.rows, history.baselines
-- access: public
-- returns: rows
--   capture    VARCHAR  capture name
--   date       DATE     night
--   metric     VARCHAR  metric name
--   component  VARCHAR  component, family, idle cause or finding (NULL for whole-capture metrics)
--   kernel     VARCHAR  kernel_key (NULL but for per-kernel metrics)
--   value      DOUBLE   value, in unit
--   unit       VARCHAR  ms | ns | % | count
WITH history AS (
    SELECT * FROM history_rows
    WHERE rule_set_version = $rule_set_version AND date <= $day
      AND capture IN (SELECT capture FROM metric_baselines)
      AND (NOT list_contains($family_metrics, metric) OR family_set_version = $family_set_version)
),
latest AS (
    SELECT * FROM history QUALIFY run_id = max(run_id) OVER (PARTITION BY capture, date)
)
SELECT capture, date, metric, component, kernel, value, unit
FROM latest
ORDER BY capture, date, metric, component, kernel
