-- The order in which the variants ran, one variant per trial (trials in order of their first update).
-- requires: compare.timings
-- access: public
-- returns: rows
--   sequence  VARCHAR  the variants, comma-separated
SELECT string_agg(variant, ',' ORDER BY trial_order) AS sequence
FROM (SELECT trial, any_value(variant) AS variant, min(rowid) AS trial_order FROM timings GROUP BY trial)
