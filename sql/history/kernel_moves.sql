-- Per capture, the $top kernels whose time moved most against their baseline (history.baselines): tonight's time
-- of each top kernel (metric kernel_ms) next to the median of its baseline runs, largest change either way first.
-- Only the top kernels of each run are kept, so a kernel without a baseline was not among them before: it is listed
-- after those with one, by its time. A kernel gone from tonight's top kernels is not listed.
-- requires: history.baselines
-- access: public
-- returns: rows
--   capture          VARCHAR  capture name
--   kernel           VARCHAR  kernel_key
--   value            DOUBLE   tonight's time (ms)
--   baseline_runs    BIGINT   baseline runs that listed the kernel (NULL: none)
--   baseline_median  DOUBLE   the median of its time in them (ms)
--   change_ms        DOUBLE   value - baseline_median (NULL without a baseline) (ms)
--   change_percent   DOUBLE   100 x change_ms / baseline_median (NULL without a baseline or with a median of 0)
WITH moves AS (
    SELECT capture, kernel, value, baseline_runs, baseline_median, value - baseline_median AS change_ms,
           100 * (value - baseline_median) / nullif(baseline_median, 0) AS change_percent,
           row_number() OVER (PARTITION BY capture ORDER BY baseline_median IS NULL,
                                                           abs(value - baseline_median) DESC, value DESC, kernel)
               AS rank
    FROM metric_baselines
    WHERE metric = 'kernel_ms' AND value IS NOT NULL
)
SELECT capture, kernel, value, baseline_runs, baseline_median, change_ms, change_percent
FROM moves
WHERE rank <= $top
ORDER BY capture, rank
