-- (SQLite dialect, run inside the nsys .sqlite export.) Kernels, memcpys and memsets as gpu_ops columns.
SELECT k.start AS start_ns, k."end" - k.start AS duration_ns, 'kernel' AS op_kind, k.correlationId AS corr_id,
       k.gridX AS grid_x, k.gridY AS grid_y, k.gridZ AS grid_z, k.blockX AS block_x, k.blockY AS block_y,
       k.blockZ AS block_z, k.registersPerThread AS registers_per_thread,
       k.staticSharedMemory AS static_smem_bytes, k.dynamicSharedMemory AS dynamic_smem_bytes,
       NULL AS transfer_bytes, NULL AS throughput_bytes_per_s, NULL AS src_mem_kind, NULL AS dst_mem_kind,
       'GPU (' || k.deviceId || ')' AS device, k.deviceId AS device_index, k.contextId AS context_id,
       k.greenContextId AS green_context_id, k.streamId AS stream_id, s.value AS name
FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName
UNION ALL
SELECT m.start, m."end" - m.start, 'memcpy', m.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       m.bytes, CASE WHEN m."end" > m.start THEN m.bytes * 1e9 / (m."end" - m.start) END, NULL, NULL,
       'GPU (' || m.deviceId || ')', m.deviceId, m.contextId, m.greenContextId, m.streamId,
       '[CUDA memcpy ' || coalesce(e.label, 'Unknown') || ']'
FROM CUPTI_ACTIVITY_KIND_MEMCPY m LEFT JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind
UNION ALL
SELECT s.start, s."end" - s.start, 'memset', s.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       s.bytes, CASE WHEN s."end" > s.start THEN s.bytes * 1e9 / (s."end" - s.start) END, NULL, NULL,
       'GPU (' || s.deviceId || ')', s.deviceId, s.contextId, s.greenContextId, s.streamId, '[CUDA memset]'
FROM CUPTI_ACTIVITY_KIND_MEMSET s
