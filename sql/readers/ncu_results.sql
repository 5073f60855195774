-- One row per profiled launch of an ncu export (trace_id is added by the store).
-- It reads the relation reader_source: the page's columns as text (readers/ncu.py).
SELECT DISTINCT
    CAST(replace(result_id, ',', '') AS BIGINT) AS result_id,
    TRY_CAST(replace(process_id, ',', '') AS BIGINT) AS process_id,
    process_name,
    host_name,
    kernel_name,
    TRY_CAST(replace(context_id, ',', '') AS BIGINT) AS context_id,
    TRY_CAST(replace(stream_id, ',', '') AS BIGINT) AS stream_id,
    block_size,
    grid_size,
    device,
    compute_capability
FROM reader_source
WHERE result_id IS NOT NULL
