-- The host synchronization calls behind synchronization idle time: per device, each synchronization call
-- (is_host_sync_call) of the device's processes (scope.device_processes) made in the scope, how often it was made
-- and how long it blocked the host. A process working on several devices has its calls counted for each.
-- requires: scope.api_calls, scope.device_processes, common.host_sync_call
-- access: public
-- unique: device, name
-- not null: name, calls, time_ns
-- returns: rows
--   device   VARCHAR  device label
--   name     VARCHAR  API function, e.g. cudaStreamSynchronize
--   calls    BIGINT   calls made
--   time_ns  HUGEINT  their summed duration (ns)
--   max_ns   BIGINT   the longest (ns)
SELECT p.device, c.name, count(*) AS calls, sum(c.duration_ns) AS time_ns, max(c.duration_ns) AS max_ns
FROM scope_api_calls c
JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
WHERE is_host_sync_call(c.name)
GROUP BY p.device, c.name
ORDER BY p.device, time_ns DESC, c.name
