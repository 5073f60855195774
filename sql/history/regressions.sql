-- Regression check of one night against a rolling baseline of the same capture. For each (capture, metric,
-- component, kernel) of the night $day (its latest run) under rule set $rule_set_version (and, for the metrics
-- $family_metrics, family set $family_set_version), the baseline is the previous
-- $baseline_runs runs before that night. A metric regressed when it is worse than
-- median + max($mad_k * 1.4826 * MAD, $min_change * |median|) (1.4826 x MAD estimates a standard deviation),
-- "worse" being up or down as metric_directions says; at least $min_baseline baseline runs are needed to judge.
-- requires: history.rows, history.metric_directions
-- returns: rows
--   capture          capture name
--   metric           metric name
--   component        component or family (NULL for whole-capture metrics)
--   kernel           kernel_key (NULL but for per-kernel metrics)
--   direction        up | down: which change is worse
--   value            tonight's value
--   baseline_runs    runs in the baseline (NULL: none)
--   baseline_median  their median
--   baseline_mad     their median absolute deviation
--   allowed_change   max($mad_k * 1.4826 * MAD, $min_change * |median|)
--   limit            the value past which the metric regressed
--   regressed        true when it is past the limit with at least $min_baseline baseline runs
WITH history AS (
    SELECT * FROM history_rows
    WHERE rule_set_version = $rule_set_version
      AND (NOT list_contains($family_metrics, metric) OR family_set_version = $family_set_version)
),
tonight AS (
    SELECT capture, metric, coalesce(component, '') AS component, coalesce(kernel, '') AS kernel, value, run_id
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
           count(h.value) AS runs, median(h.value) AS median, mad(h.value) AS mad
    FROM history h
    JOIN past_runs p USING (capture, date, run_id)
    WHERE p.age <= $baseline_runs
    GROUP BY ALL
),
judged AS (
    SELECT t.capture, t.metric, nullif(t.component, '') AS component, nullif(t.kernel, '') AS kernel, d.direction, t.value, b.runs AS baseline_runs,
           b.median AS baseline_median, b.mad AS baseline_mad,
           greatest($mad_k * 1.4826 * b.mad, $min_change * abs(b.median)) AS allowed_change
    FROM tonight t
    JOIN metric_directions d USING (metric)
    LEFT JOIN baseline b USING (capture, metric, component, kernel)
)
SELECT *,
       CASE WHEN direction = 'up' THEN baseline_median + allowed_change
            ELSE baseline_median - allowed_change END AS limit,
       coalesce(baseline_runs >= $min_baseline AND value IS NOT NULL AND (
           (direction = 'up' AND value > baseline_median + allowed_change)
        OR (direction = 'down' AND value < baseline_median - allowed_change)), false) AS regressed
FROM judged
ORDER BY regressed DESC, capture, metric, component, kernel
