-- The processes working on each device of the capture: those that launched its kernels (a launch row names its
-- process and device). A capture without launch rows ties a device to the processes whose API calls caused one of
-- its operations (the same correlation id; ids are numbered per process, so with several processes this may tie a
-- process to another's device too); a capture where neither ties anything ties every process of its API calls to
-- every device.
-- requires: scope.capture_ops, scope.capture_launches, scope.capture_api_calls
-- creates: device_processes
--   device  device label
--   pid     process id (NULL when the export gives none)
CREATE OR REPLACE TEMP TABLE device_processes AS
WITH devices AS (
    SELECT DISTINCT device, coalesce(device_index, 0) AS device_index FROM capture_ops
),
launched AS (
    SELECT DISTINCT d.device, l.pid FROM capture_launches l JOIN devices d USING (device_index)
),
correlated AS (
    SELECT DISTINCT o.device, c.pid
    FROM capture_ops o JOIN capture_api_calls c ON c.corr_id = o.corr_id
    WHERE NOT EXISTS (SELECT 1 FROM launched)
),
linked AS (
    SELECT device, pid FROM launched
    UNION ALL
    SELECT device, pid FROM correlated
)
SELECT device, pid FROM linked
UNION ALL
SELECT d.device, p.pid
FROM devices d, (SELECT DISTINCT pid FROM capture_api_calls) p
WHERE NOT EXISTS (SELECT 1 FROM linked);
