-- (SQLite dialect.) Memory copies as gpu_ops columns, named as nsys names them ('[CUDA memcpy Host-to-Device]').
SELECT m.start AS start_ns, m."end" - m.start AS duration_ns, 'memcpy' AS op_kind, m.correlationId AS corr_id,
       NULL AS grid_x, NULL AS grid_y, NULL AS grid_z, NULL AS block_x, NULL AS block_y, NULL AS block_z,
       NULL AS registers_per_thread, NULL AS static_smem_bytes, NULL AS dynamic_smem_bytes,
       m.bytes AS transfer_bytes,
       CASE WHEN m."end" > m.start THEN m.bytes * 1e9 / (m."end" - m.start) END AS throughput_bytes_per_s,
       NULL AS src_mem_kind, NULL AS dst_mem_kind, 'GPU (' || m.deviceId || ')' AS device, m.deviceId AS device_index,
       m.contextId AS context_id, m.greenContextId AS green_context_id, m.streamId AS stream_id,
       '[CUDA memcpy ' || coalesce(e.label, 'Unknown') || ']' AS name
FROM CUPTI_ACTIVITY_KIND_MEMCPY m LEFT JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind
