-- (DuckDB.) An nsys export's kernel launches with the columns of `nsys stats -r cuda_kern_exec_trace`: each kernel
-- joined to the API call of its correlation id in its process. As that report has it, a kernel queued when it
-- started at or after its call's end: Queue Start = API end, Queue Start + Queue Dur = Kernel Start.
SELECT c.start AS api_start_ns, c."end" - c.start AS api_duration_ns,
       CASE WHEN k.start >= c."end" THEN c."end" END AS queue_start_ns,
       CASE WHEN k.start >= c."end" THEN k.start - c."end" END AS queue_duration_ns,
       k.start AS kernel_start_ns, k."end" - k.start AS kernel_duration_ns,
       greatest(c."end", k."end") - c.start AS total_duration_ns, c.pid, c.tid, k.deviceId AS device_index,
       c.name AS api_function,
       printf('%4d %4d %4d', k.gridX, k.gridY, k.gridZ) AS grid_xyz,
       printf('%4d %4d %4d', k.blockX, k.blockY, k.blockZ) AS block_xyz,
       coalesce(s.value, '[kernel without a name]') AS kernel_name,
       0 AS unparsed_values  -- an export's values are typed
FROM nsys_export.CUPTI_ACTIVITY_KIND_KERNEL k
JOIN nsys_export.api_calls c ON c.correlationId = k.correlationId AND (c.globalTid >> 24) = (k.globalPid >> 24)
LEFT JOIN nsys_export.StringIds s ON s.id = k.demangledName
