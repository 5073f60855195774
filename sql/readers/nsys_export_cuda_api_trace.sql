-- (DuckDB.) An nsys export's CUDA API calls with the columns of `nsys stats -r cuda_api_trace`, and what each call
-- that synchronized waited for (the report prints not that).
SELECT c.start AS start_ns, c."end" - c.start AS duration_ns, c.name, c.returnValue AS result,
       c.correlationId AS corr_id, c.pid, c.tid, t.priority AS thread_priority, t.name AS thread_name,
       c.sync_kind, c.sync_stream_id
FROM nsys_export.api_calls c
LEFT JOIN nsys_export.threads t ON t.globalTid = c.globalTid
