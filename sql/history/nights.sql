-- Every night the history holds up to $day, whatever its captures: the nights on the report's trend axes, so that a
-- night without some capture (it failed, or was not there) shows as a hole in that capture's trend.
-- requires: history.rows
-- access: private
-- unique: date
-- not null: date
-- returns: rows
--   date  DATE  night
SELECT DISTINCT date FROM history_rows WHERE date <= $day ORDER BY date
