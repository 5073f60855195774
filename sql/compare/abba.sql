-- Matched interleaved runs (e.g. A/B/B/A): per variant, the updates left after dropping the first $warmup and the
-- last $final updates of each trial; their count, mean, min and max seconds.
-- requires: compare.timings
-- access: public
-- unique: variant
-- not null: variant, observations, mean_seconds
-- returns: rows
--   variant       VARCHAR  before | after
--   observations  BIGINT   updates kept
--   mean_seconds  DOUBLE   their mean (s)
--   min_seconds   DOUBLE   shortest (s)
--   max_seconds   DOUBLE   longest (s)
WITH ordered AS (
    SELECT *, row_number() OVER (PARTITION BY trial ORDER BY "update") AS position,
           count(*) OVER (PARTITION BY trial) AS updates
    FROM timings
),
kept AS (
    SELECT * FROM ordered WHERE position > $warmup AND position <= updates - $final
)
SELECT variant, count(*) AS observations, avg(seconds) AS mean_seconds, min(seconds) AS min_seconds,
       max(seconds) AS max_seconds
FROM kept
GROUP BY variant
ORDER BY variant
