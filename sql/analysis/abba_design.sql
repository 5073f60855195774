-- The order in which the variants ran, one letter per trial (trials in order of their first update).
SELECT string_agg(variant, ',' ORDER BY trial_order) AS sequence
FROM (SELECT trial, any_value(variant) AS variant, min(rowid) AS trial_order FROM timings GROUP BY trial)
