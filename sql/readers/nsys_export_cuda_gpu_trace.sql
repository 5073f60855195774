-- (DuckDB.) An nsys export's kernels, memory copies and memory sets with the columns of `nsys stats -r
-- cuda_gpu_trace` in base units: the source of readers/cuda_gpu_trace.sql, as a CSV report's would be.
SELECT k.start AS start_ns, k."end" - k.start AS duration_ns, k.correlationId AS corr_id,
       k.gridX AS grid_x, k.gridY AS grid_y, k.gridZ AS grid_z, k.blockX AS block_x, k.blockY AS block_y,
       k.blockZ AS block_z, k.registersPerThread AS registers_per_thread,
       k.staticSharedMemory AS static_smem_bytes, k.dynamicSharedMemory AS dynamic_smem_bytes,
       NULL::BIGINT AS transfer_bytes, NULL::DOUBLE AS throughput_bytes_per_s,
       NULL AS src_mem_kind, NULL AS dst_mem_kind,
       nsys_export.device_label(g.gpu_name, k.deviceId) AS device, k.contextId AS context_id,
       nullif(k.greenContextId, 0) AS green_context_id, k.streamId AS stream_id,
       coalesce(s.value, '[kernel without a name]') AS name,  -- a name id missing from StringIds keeps its kernel
       0 AS unparsed_values  -- an export's values are typed
FROM nsys_export.CUPTI_ACTIVITY_KIND_KERNEL k
LEFT JOIN nsys_export.StringIds s ON s.id = k.demangledName
LEFT JOIN nsys_export.gpus g ON g.deviceId = k.deviceId
UNION ALL
SELECT m.start, m."end" - m.start, m.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       m.bytes, CASE WHEN m."end" > m.start THEN m.bytes * 1e9 / (m."end" - m.start) END,
       src.label, dst.label, nsys_export.device_label(g.gpu_name, m.deviceId), m.contextId,
       nullif(m.greenContextId, 0), m.streamId, '[CUDA memcpy ' || coalesce(kind.label, 'Unknown') || ']', 0
FROM nsys_export.CUPTI_ACTIVITY_KIND_MEMCPY m
LEFT JOIN nsys_export.ENUM_CUDA_MEMCPY_OPER kind ON kind.id = m.copyKind
LEFT JOIN nsys_export.ENUM_CUDA_MEM_KIND src ON src.id = m.srcKind
LEFT JOIN nsys_export.ENUM_CUDA_MEM_KIND dst ON dst.id = m.dstKind
LEFT JOIN nsys_export.gpus g ON g.deviceId = m.deviceId
UNION ALL
SELECT m.start, m."end" - m.start, m.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       m.bytes, CASE WHEN m."end" > m.start THEN m.bytes * 1e9 / (m."end" - m.start) END,
       kind.label, NULL, nsys_export.device_label(g.gpu_name, m.deviceId), m.contextId,
       nullif(m.greenContextId, 0), m.streamId, '[CUDA memset]', 0
FROM nsys_export.CUPTI_ACTIVITY_KIND_MEMSET m
LEFT JOIN nsys_export.ENUM_CUDA_MEM_KIND kind ON kind.id = m.memKind
LEFT JOIN nsys_export.gpus g ON g.deviceId = m.deviceId
