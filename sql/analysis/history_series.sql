-- Per capture and night (latest run of the night): component time and launch-gap p90, for the report's plots.
WITH history AS (
    SELECT * FROM {history}
    WHERE rule_set_version = $rule_set_version AND list_contains($captures, capture)
),
latest AS (
    SELECT * FROM history QUALIFY run_id = max(run_id) OVER (PARTITION BY capture, date)
)
SELECT capture, date, metric, component, value
FROM latest
WHERE metric IN ('component_ms', 'launch_gap_p90_ns')
ORDER BY capture, date, metric, component
