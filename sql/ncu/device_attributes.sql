-- Device attributes of the ncu exports $traces.
-- access: public
-- unique: device, attribute
-- not null: device, attribute
-- returns: rows
--   device      VARCHAR  device index as ncu prints it
--   attribute   VARCHAR  attribute name without 'device__attribute_'
--   value_text  VARCHAR  value as exported
--   value       DOUBLE   its number (NULL for text)
SELECT device, attribute, any_value(value_text) AS value_text, any_value(value) AS value
FROM ncu_devices
WHERE list_contains($traces, trace_id)
GROUP BY device, attribute
ORDER BY device, attribute
