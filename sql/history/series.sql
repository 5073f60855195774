-- Per capture of $captures and night (latest run of the night) under rule set $rule_set_version: component time
-- and launch-gap p90, for the report's plots.
-- requires: history.rows
-- returns: rows
--   capture    capture name
--   date       night
--   metric     component_ms | launch_gap_p90_ns
--   component  component (component_ms), NULL otherwise
--   value      value (ms or ns)
WITH history AS (
    SELECT * FROM history_rows
    WHERE rule_set_version = $rule_set_version AND list_contains($captures, capture)
),
latest AS (
    SELECT * FROM history QUALIFY run_id = max(run_id) OVER (PARTITION BY capture, date)
)
SELECT capture, date, metric, component, value
FROM latest
WHERE metric IN ('component_ms', 'launch_gap_p90_ns')
ORDER BY capture, date, metric, component
