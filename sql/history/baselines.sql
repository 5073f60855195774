-- Every metric of the night $day (its latest run per capture) under rule set $rule_set_version (and, for the
-- metrics $family_metrics, family set $family_set_version), with its rolling baseline: the same capture's metric
-- in the previous $baseline_runs runs before that night.
-- requires: history.rows
-- access: private
-- unique: capture, metric, component, kernel
-- not null: capture, metric
-- creates: metric_baselines
--   capture          VARCHAR  capture name
--   metric           VARCHAR  metric name
--   component        VARCHAR  component or family ('' for whole-capture metrics)
--   kernel           VARCHAR  kernel_key ('' but for per-kernel metrics)
--   unit             VARCHAR  ms | ns | % | count
--   value            DOUBLE   tonight's value
--   baseline_runs    BIGINT   runs in the baseline that hold a value of the metric (NULL: no baseline run holds the
--                             metric; 0: those that do hold no value)
--   baseline_since   DATE     the night of the earliest of them (NULL: none)
--   baseline_median  DOUBLE   their median
--   baseline_mad     DOUBLE   their median absolute deviation
CREATE OR REPLACE TEMP TABLE metric_baselines AS
WITH history AS (
    SELECT * FROM history_rows
    WHERE rule_set_version = $rule_set_version
      AND (NOT list_contains($family_metrics, metric) OR family_set_version = $family_set_version)
),
tonight AS (
    SELECT capture, metric, coalesce(component, '') AS component, coalesce(kernel, '') AS kernel, unit, value
    FROM history
    WHERE date = $day
    QUALIFY run_id = max(run_id) OVER (PARTITION BY capture)
),
past_runs AS (
    SELECT capture, date, run_id,
           row_number() OVER (PARTITION BY capture ORDER BY date DESC, run_id DESC) AS age
    FROM (SELECT DISTINCT capture, date, run_id FROM history WHERE date < $day)
),
baseline AS (
    SELECT h.capture, h.metric, coalesce(h.component, '') AS component, coalesce(h.kernel, '') AS kernel,
           count(h.value) AS runs, min(h.date) FILTER (WHERE h.value IS NOT NULL) AS since, median(h.value) AS median,
           mad(h.value) AS mad
    FROM history h
    JOIN past_runs p USING (capture, date, run_id)
    WHERE p.age <= $baseline_runs
    GROUP BY ALL
)
SELECT t.capture, t.metric, t.component, t.kernel, t.unit, t.value, b.runs AS baseline_runs,
       b.since AS baseline_since, b.median AS baseline_median, b.mad AS baseline_mad
FROM tonight t
LEFT JOIN baseline b USING (capture, metric, component, kernel);
