-- Device attributes of the given ncu traces.
SELECT device, attribute, any_value(value_text) AS value_text, any_value(value) AS value
FROM ncu_devices
WHERE list_contains($traces, trace_id)
GROUP BY device, attribute
ORDER BY device, attribute
