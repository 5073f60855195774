-- The GPU operations an analysis looks at: those of the capture's $gpu_trace (operations with a negative duration
-- or one over max_duration_ns() are left out; scope.integrity counts them), or the launches profiled in the ncu
-- exports $ncu_traces, each a kernel in profiling order.
-- In a window ($windowed), as nsys projects NVTX ranges onto the GPU, a kernel belongs to the range that holds the
-- start of its launch call (scope_launches); operations without a launch row (memcpy, memset, no kern_exec trace)
-- belong to the range that holds their GPU start.
-- requires: scope.window_ranges, scope.launches
-- creates: scope_ops
--   op_kind         kernel | memcpy | memset | other
--   device          device label, e.g. 'NVIDIA H200 (0)' ('(no device)' when missing; '<trace id>:<device>' for ncu)
--   device_index    the number of the device label (NULL when it has none)
--   stream_id       CUDA stream
--   start_ns        GPU start (ns); NULL for ncu launches, whose time is unknown
--   end_ns          GPU end (ns)
--   duration_ns     GPU duration (ns); 0 for ncu launches
--   name            operation name as exported
--   launch_order    position of an ncu launch in profiling order (its ID); NULL for nsys operations
CREATE OR REPLACE TEMP TABLE scope_ops AS
    WITH capture_ops AS (
        SELECT op_kind, coalesce(device, '(no device)') AS device, device_index, stream_id, start_ns, end_ns,
               duration_ns, name
        FROM gpu_ops
        WHERE trace_id = $gpu_trace AND duration_ns BETWEEN 0 AND max_duration_ns()
    ),
    launched AS (
        SELECT DISTINCT coalesce(device_index, 0) AS device_index, kernel_start_ns
        FROM kernel_launches WHERE $windowed AND trace_id = $kern_exec_trace
    ),
    launched_inside AS (
        SELECT DISTINCT device_index, kernel_start_ns FROM scope_launches WHERE $windowed
    ),
    window_ops AS (
        SELECT o.*
        FROM capture_ops o
        LEFT JOIN launched a
               ON o.op_kind = 'kernel' AND a.kernel_start_ns = o.start_ns AND a.device_index = coalesce(o.device_index, 0)
        LEFT JOIN launched_inside i
               ON o.op_kind = 'kernel' AND i.kernel_start_ns = o.start_ns AND i.device_index = coalesce(o.device_index, 0)
        WHERE $windowed
          AND (i.kernel_start_ns IS NOT NULL
               OR (a.kernel_start_ns IS NULL
                   AND EXISTS (SELECT 1 FROM scope_window_ranges w WHERE o.start_ns >= w.start_ns AND o.start_ns < w.end_ns)))
    )
    -- the whole capture, or the window's part of it: the branch of the other case filters out every row at once
    SELECT *, NULL::BIGINT AS launch_order FROM capture_ops WHERE NOT $windowed
    UNION ALL
    SELECT *, NULL::BIGINT FROM window_ops
    UNION ALL
    SELECT 'kernel', trace_id || ':' || coalesce(device, ''), NULL, stream_id, NULL, NULL, 0, kernel_name, result_id
    FROM ncu_results
    WHERE list_contains($ncu_traces, trace_id);
