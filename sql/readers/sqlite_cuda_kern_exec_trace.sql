-- (SQLite dialect.) Kernel launches: runtime API rows joined to their kernel on the correlation id within one
-- process (bits 24-47 of globalTid / globalPid hold the pid).
SELECT r.start AS api_start_ns, r."end" - r.start AS api_duration_ns, NULL AS queue_start_ns,
       NULL AS queue_duration_ns, k.start AS kernel_start_ns, k."end" - k.start AS kernel_duration_ns,
       k."end" - r.start AS total_duration_ns, (k.globalPid >> 24) & 16777215 AS pid, r.globalTid & 16777215 AS tid,
       k.deviceId AS device_index, a.value AS api_function, k.gridX || ' ' || k.gridY || ' ' || k.gridZ AS grid_xyz,
       k.blockX || ' ' || k.blockY || ' ' || k.blockZ AS block_xyz, s.value AS kernel_name
FROM CUPTI_ACTIVITY_KIND_KERNEL k
JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)
JOIN StringIds a ON a.id = r.nameId
JOIN StringIds s ON s.id = k.demangledName
