-- (DuckDB; run once an nsys export's tables are staged in the database `nsys_export`, see readers/export.py.)
-- What the mapping of every report shares: the CUDA API calls, thread names and device labels.

-- CUDA runtime and driver API calls (event classes 0 and 1). nsys 2022 also writes CUDA backtrace rows (class 67)
-- that repeat a call under its correlation id: they are not calls. The name drops a `_v` and four characters at
-- its end as nsys's reports print it (cudaLaunchKernel_v7000 -> cudaLaunchKernel; cudaGraphLaunch_v10000 stays).
-- A call that synchronized has its CUPTI synchronization record (matched on correlation id within the process): what
-- it waited for, and the stream that waited or was waited for (CUPTI writes 2^32 - 1 for none).
CREATE VIEW nsys_export.api_calls AS
WITH synchronizations AS (
    SELECT (globalPid >> 24) & 16777215 AS pid, correlationId,
           any_value(CASE syncType WHEN 1 THEN 'event_synchronize' WHEN 2 THEN 'stream_wait_event'
                                   WHEN 3 THEN 'stream_synchronize' WHEN 4 THEN 'context_synchronize' END) AS sync_kind,
           any_value(nullif(streamId, 4294967295)) AS sync_stream_id
    FROM nsys_export.CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
    GROUP BY ALL
)
SELECT r.start, r."end", r.correlationId, r.returnValue, r.globalTid,
       (r.globalTid >> 24) & 16777215 AS pid,
       r.globalTid & 16777215 AS tid,
       CASE WHEN s.value[-6:-5] = '_v' THEN s.value[:-7] ELSE s.value END AS name,
       y.sync_kind, y.sync_stream_id
FROM nsys_export.CUPTI_ACTIVITY_KIND_RUNTIME r
LEFT JOIN nsys_export.StringIds s ON s.id = r.nameId
LEFT JOIN synchronizations y ON y.pid = (r.globalTid >> 24) & 16777215 AND y.correlationId = r.correlationId
WHERE r.eventClass IN (0, 1);

-- One name and priority per thread.
CREATE VIEW nsys_export.threads AS
SELECT t.globalTid, any_value(s.value) AS name, any_value(t.priority) AS priority
FROM nsys_export.ThreadNames t
LEFT JOIN nsys_export.StringIds s ON s.id = t.nameId
GROUP BY t.globalTid;

-- Device labels as nsys prints them: 'NVIDIA H200 (0)'; 'GPU (0)' when the export has no TARGET_INFO_GPU table.
CREATE MACRO nsys_export.device_label(gpu_name, device_id) AS coalesce(gpu_name, 'GPU') || ' (' || device_id || ')';
CREATE VIEW nsys_export.gpus AS
SELECT id AS deviceId, any_value(name) AS gpu_name FROM nsys_export.TARGET_INFO_GPU GROUP BY id;
