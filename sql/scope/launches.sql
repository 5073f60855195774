-- The kern_exec rows of the scope: every launch row of the capture's $kern_exec_trace or, in a window
-- ($windowed), those whose launch call started inside one of its ranges (on the range's thread, when both say).
-- requires: scope.window_ranges
-- creates: scope_launches
--   api_start_ns        launch call start (ns)
--   api_duration_ns     launch call duration (ns)
--   api_end_ns          launch call end (ns)
--   queue_duration_ns   time the kernel waited in the launch queue (ns); NULL when it was not queued
--   kernel_start_ns     GPU start of the kernel launched (ns): with device_index, the key to its kernel
--   pid                 process id of the calling thread
--   tid                 thread id of the calling thread
--   device_index        device number (0 when the export gives none)
--   api_function        the launch API, e.g. cudaLaunchKernel, cudaGraphLaunch
CREATE OR REPLACE TEMP TABLE scope_launches AS
    WITH capture_launches AS (
        SELECT api_start_ns, api_duration_ns, api_end_ns, queue_duration_ns, kernel_start_ns, pid, tid,
               coalesce(device_index, 0) AS device_index, api_function
        FROM kernel_launches
        WHERE trace_id = $kern_exec_trace
    )
    -- the whole capture, or the window's part of it: the branch of the other case filters out every row at once
    SELECT * FROM capture_launches WHERE NOT $windowed
    UNION ALL
    SELECT * FROM capture_launches l
    WHERE $windowed AND EXISTS (
        SELECT 1 FROM scope_window_ranges w
        WHERE l.api_start_ns >= w.start_ns AND l.api_start_ns < w.end_ns
          AND (w.tid IS NULL OR l.tid IS NULL OR w.tid = l.tid));
