-- Device attributes of the ncu exports $traces.
-- returns: rows
--   device      device index as ncu prints it
--   attribute   attribute name without 'device__attribute_'
--   value_text  value as exported
--   value       its number (NULL for text)
SELECT device, attribute, any_value(value_text) AS value_text, any_value(value) AS value
FROM ncu_devices
WHERE list_contains($traces, trace_id)
GROUP BY device, attribute
ORDER BY device, attribute
