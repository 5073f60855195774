-- Shape one nsys cuda_gpu_trace into gpu_ops columns (trace_id is added by the store).
-- It reads the relation reader_source, the report's columns already in base units: a CSV report's
-- (readers/nsys.py) or an nsys export's (readers/nsys_export_cuda_gpu_trace.sql).
SELECT
    start_ns,
    duration_ns,
    CASE
        WHEN grid_x IS NOT NULL THEN 'kernel'
        WHEN name LIKE '[CUDA memcpy%' THEN 'memcpy'
        WHEN name LIKE '[CUDA memset%' THEN 'memset'
        ELSE 'other'
    END AS op_kind,
    corr_id,
    grid_x, grid_y, grid_z, block_x, block_y, block_z,
    registers_per_thread,
    static_smem_bytes,
    dynamic_smem_bytes,
    transfer_bytes,
    throughput_bytes_per_s,
    src_mem_kind,
    dst_mem_kind,
    device,
    TRY_CAST(nullif(regexp_extract(device, '\((\d+)\)\s*$', 1), '') AS INTEGER) AS device_index,
    context_id,
    green_context_id,
    stream_id,
    name,
    unparsed_values
FROM reader_source
