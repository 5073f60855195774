-- (SQLite dialect, run inside the nsys .sqlite export.) Kernels as gpu_ops columns.
SELECT k.start AS start_ns, k."end" - k.start AS duration_ns, 'kernel' AS op_kind, k.correlationId AS corr_id,
       k.gridX AS grid_x, k.gridY AS grid_y, k.gridZ AS grid_z, k.blockX AS block_x, k.blockY AS block_y,
       k.blockZ AS block_z, k.registersPerThread AS registers_per_thread,
       k.staticSharedMemory AS static_smem_bytes, k.dynamicSharedMemory AS dynamic_smem_bytes,
       NULL AS transfer_bytes, NULL AS throughput_bytes_per_s, NULL AS src_mem_kind, NULL AS dst_mem_kind,
       'GPU (' || k.deviceId || ')' AS device, k.deviceId AS device_index, k.contextId AS context_id,
       k.greenContextId AS green_context_id, k.streamId AS stream_id, s.value AS name
FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName
