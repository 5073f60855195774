-- (DuckDB; run once an nsys export's tables are staged in the database `nsys_export`, see readers/export.py.)
-- What the mapping of every report shares: the CUDA API calls, thread names and device labels.

-- CUDA runtime and driver API calls (event classes 0 and 1). nsys 2022 also writes CUDA backtrace rows (class 67)
-- that repeat a call under its correlation id: they are not calls. The name drops a `_v` and four characters at
-- its end as nsys's reports print it (cudaLaunchKernel_v7000 -> cudaLaunchKernel; cudaGraphLaunch_v10000 stays).
CREATE VIEW nsys_export.api_calls AS
SELECT r.start, r."end", r.correlationId, r.returnValue, r.globalTid,
       (r.globalTid >> 24) & 16777215 AS pid,
       r.globalTid & 16777215 AS tid,
       CASE WHEN s.value[-6:-5] = '_v' THEN s.value[:-7] ELSE s.value END AS name
FROM nsys_export.CUPTI_ACTIVITY_KIND_RUNTIME r
LEFT JOIN nsys_export.StringIds s ON s.id = r.nameId
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
