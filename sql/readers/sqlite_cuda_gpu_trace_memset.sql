-- (SQLite dialect.) Memory sets as gpu_ops columns.
SELECT s.start AS start_ns, s."end" - s.start AS duration_ns, 'memset' AS op_kind, s.correlationId AS corr_id,
       NULL AS grid_x, NULL AS grid_y, NULL AS grid_z, NULL AS block_x, NULL AS block_y, NULL AS block_z,
       NULL AS registers_per_thread, NULL AS static_smem_bytes, NULL AS dynamic_smem_bytes,
       s.bytes AS transfer_bytes,
       CASE WHEN s."end" > s.start THEN s.bytes * 1e9 / (s."end" - s.start) END AS throughput_bytes_per_s,
       NULL AS src_mem_kind, NULL AS dst_mem_kind, 'GPU (' || s.deviceId || ')' AS device, s.deviceId AS device_index,
       s.contextId AS context_id, s.greenContextId AS green_context_id, s.streamId AS stream_id, '[CUDA memset]' AS name
FROM CUPTI_ACTIVITY_KIND_MEMSET s
