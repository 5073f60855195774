-- Shape one nsys cuda_api_trace into api_calls columns (trace_id is added by the store).
-- It reads the relation reader_source: the report's columns in base units (readers/nsys.py, readers/export.py).
SELECT
    start_ns,
    duration_ns,
    name,
    result,
    corr_id,
    pid,
    tid,
    thread_priority,
    thread_name,
    sync_kind,
    sync_stream_id
FROM reader_source
