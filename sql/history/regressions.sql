-- Regression check of one night (history.baselines) against its rolling baseline. A metric regressed when it is
-- worse than median + max($mad_k * 1.4826 * MAD, $min_change * |median|) (1.4826 x MAD estimates a standard
-- deviation), "worse" being up or down as metric_directions says; at least $min_baseline baseline runs are
-- needed to judge. A percentage's limit stays within 0-100: a percentage cannot pass beyond.
-- requires: history.baselines, history.metric_directions
-- returns: rows
--   capture          capture name
--   metric           metric name
--   component        component or family (NULL for whole-capture metrics)
--   kernel           kernel_key (NULL but for per-kernel metrics)
--   unit             ms | ns | % | count
--   direction        up | down: which change is worse
--   value            tonight's value
--   baseline_runs    runs in the baseline (NULL: none)
--   baseline_median  their median
--   baseline_mad     their median absolute deviation
--   allowed_change   max($mad_k * 1.4826 * MAD, $min_change * |median|)
--   limit            the value past which the metric regressed (a percentage's within 0-100)
--   regressed        true when it is past the limit with at least $min_baseline baseline runs
WITH judged AS (
    SELECT b.capture, b.metric, nullif(b.component, '') AS component, nullif(b.kernel, '') AS kernel, b.unit,
           d.direction, b.value, b.baseline_runs, b.baseline_median, b.baseline_mad,
           greatest($mad_k * 1.4826 * b.baseline_mad, $min_change * abs(b.baseline_median)) AS allowed_change
    FROM metric_baselines b
    JOIN metric_directions d USING (metric)
),
limited AS (
    SELECT *,
           CASE WHEN direction = 'up' THEN baseline_median + allowed_change
                ELSE baseline_median - allowed_change END AS raw_limit
    FROM judged
)
SELECT capture, metric, component, kernel, unit, direction, value, baseline_runs, baseline_median, baseline_mad,
       allowed_change,
       CASE WHEN unit = '%' THEN least(greatest(raw_limit, 0), 100) ELSE raw_limit END AS limit,
       coalesce(baseline_runs >= $min_baseline AND value IS NOT NULL AND (
           (direction = 'up' AND value > raw_limit) OR (direction = 'down' AND value < raw_limit)), false)
           AS regressed
FROM limited
ORDER BY regressed DESC, capture, metric, component, kernel
