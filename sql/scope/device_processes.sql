-- The processes working on each device of the capture: those whose CUDA API calls caused one of its operations (an
-- API call and the operation it caused share a correlation id). A capture whose operations correlate with no call at all (no
-- API trace, or one without correlation ids) ties every process of its API calls to every device.
-- requires: scope.capture_ops, scope.capture_api_calls
-- creates: device_processes
--   device  device label
--   pid     process id (NULL when the API trace gives none)
CREATE OR REPLACE TEMP TABLE device_processes AS
WITH linked AS (
    SELECT DISTINCT o.device, c.pid
    FROM capture_ops o JOIN capture_api_calls c ON c.corr_id = o.corr_id
)
SELECT device, pid FROM linked
UNION ALL
SELECT d.device, p.pid
FROM (SELECT DISTINCT device FROM capture_ops) d, (SELECT DISTINCT pid FROM capture_api_calls) p
WHERE NOT EXISTS (SELECT 1 FROM linked);
