-- Regression check of one night (history.baselines) against its rolling baseline. A metric regressed when it is
-- worse than median + max($mad_k * 1.4826 * MAD, $min_change * |median|) (1.4826 x MAD estimates a standard
-- deviation), "worse" being up or down as metric_directions says; at least $min_baseline baseline runs and a value
-- tonight are needed to judge. The metrics $bounded_metrics are shares within 0-100: their band and limit stay
-- there (a share cannot pass beyond, so the limit judges as the unbounded one would).
-- requires: history.baselines, history.metric_directions
-- access: public
-- unique: capture, metric, component, kernel
-- not null: capture, metric, regressed
-- returns: rows
--   capture          VARCHAR  capture name
--   metric           VARCHAR  metric name
--   component        VARCHAR  component or family (NULL for whole-capture metrics)
--   kernel           VARCHAR  kernel_key (NULL but for per-kernel metrics)
--   unit             VARCHAR  ms | ns | % | count
--   direction        VARCHAR  up | down: which change is worse
--   value            DOUBLE   tonight's value (NULL: the capture has no such value tonight)
--   baseline_runs    BIGINT   runs in the baseline (NULL: none)
--   baseline_since   DATE     the night of the baseline's earliest run (NULL: none)
--   baseline_median  DOUBLE   their median (NULL: no baseline)
--   baseline_mad     DOUBLE   their median absolute deviation
--   allowed_change   DOUBLE   max($mad_k * 1.4826 * MAD, $min_change * |median|)
--   band_low         DOUBLE   median - allowed_change (a share's at least 0)
--   band_high        DOUBLE   median + allowed_change (a share's at most 100)
--   limit            DOUBLE   the value past which the metric regressed: band_high when up is worse, band_low when down
--   regressed        BOOLEAN  true when tonight's value is past the limit with at least $min_baseline baseline runs
WITH judged AS (
    SELECT b.capture, b.metric, nullif(b.component, '') AS component, nullif(b.kernel, '') AS kernel, b.unit,
           d.direction, b.value, b.baseline_runs, b.baseline_since, b.baseline_median, b.baseline_mad,
           greatest($mad_k * 1.4826 * b.baseline_mad, $min_change * abs(b.baseline_median)) AS allowed_change,
           list_contains($bounded_metrics, b.metric) AS bounded
    FROM metric_baselines b
    JOIN metric_directions d USING (metric)
),
banded AS (
    -- greatest() and least() skip NULLs: without a baseline the band stays NULL only through the CASE
    SELECT *,
           CASE WHEN bounded AND baseline_median IS NOT NULL
                THEN greatest(baseline_median - allowed_change, 0) ELSE baseline_median - allowed_change END
               AS band_low,
           CASE WHEN bounded AND baseline_median IS NOT NULL
                THEN least(baseline_median + allowed_change, 100) ELSE baseline_median + allowed_change END
               AS band_high
    FROM judged
),
limited AS (
    SELECT *, CASE WHEN direction = 'up' THEN band_high ELSE band_low END AS "limit" FROM banded
)
SELECT capture, metric, component, kernel, unit, direction, value, baseline_runs, baseline_since, baseline_median,
       baseline_mad, allowed_change, band_low, band_high, "limit",
       coalesce(baseline_runs >= $min_baseline AND (
           (direction = 'up' AND value > "limit") OR (direction = 'down' AND value < "limit")), false) AS regressed
FROM limited
ORDER BY regressed DESC, capture, metric, component, kernel
