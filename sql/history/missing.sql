-- The captures the history holds for the latest night before $day but not for $day: a capture gone from tonight's
-- set (its pipeline broke, it failed to summarize, or it was removed), which no check of tonight's metrics can show.
-- requires: history.rows
-- access: public
-- unique: capture
-- not null: capture
-- returns: rows
--   capture     VARCHAR  capture name
--   last_night  DATE     the night before $day that held it
WITH previous AS (
    SELECT max(date) AS night FROM history_rows WHERE date < $day
)
SELECT DISTINCT h.capture, h.date AS last_night
FROM history_rows h
JOIN previous p ON h.date = p.night
WHERE h.capture NOT IN (SELECT capture FROM history_rows WHERE date = $day)
ORDER BY h.capture
