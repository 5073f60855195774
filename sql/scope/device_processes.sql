-- The processes working on each device of the capture: those that launched its kernels (a launch row names its
-- process and device). A device no launch row ties is tied to the processes whose API calls caused one of its
-- operations (the same correlation id; ids are numbered per process, so with several processes this may tie a
-- process to another's device too); a device neither ties is tied to every process of the API calls.
-- requires: scope.capture_ops, scope.capture_launches, scope.capture_api_calls
-- access: private
-- unique: device, pid
-- not null: device
-- creates: device_processes
--   device  VARCHAR  device label
--   pid     BIGINT   process id (NULL when the export gives none)
CREATE OR REPLACE TEMP TABLE device_processes AS
WITH devices AS (
    SELECT DISTINCT device, coalesce(device_index, 0) AS device_index FROM capture_ops
),
launched AS (
    SELECT DISTINCT d.device, l.pid FROM capture_launches l JOIN devices d USING (device_index)
),
correlated AS (  -- only for the devices without launch rows
    SELECT DISTINCT o.device, c.pid
    FROM capture_ops o
    JOIN capture_api_calls c ON c.corr_id = o.corr_id
    ANTI JOIN launched l ON l.device = o.device
),
linked AS (
    SELECT device, pid FROM launched
    UNION ALL
    SELECT device, pid FROM correlated
)
SELECT device, pid FROM linked
UNION ALL
SELECT d.device, p.pid
FROM (SELECT DISTINCT device FROM devices ANTI JOIN linked USING (device)) d,
     (SELECT DISTINCT pid FROM capture_api_calls) p;
