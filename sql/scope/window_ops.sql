-- scope.ops of a window (it stands in for it): the GPU operations of the window, copied once. As nsys projects NVTX ranges onto the GPU, a kernel belongs to the range that
-- holds the start of its launch call (scope_launches); operations without a launch row (memcpy, memset, no
-- kern_exec trace) belong to the range that holds their GPU start. Operations with a negative duration or one over
-- max_duration_ns() are left out (scope.integrity counts them).
-- requires: scope.inputs, scope.window_ranges, scope.launches, common.max_duration
-- creates: scope_ops
--   op_kind         kernel | memcpy | memset | other
--   device          device label ('(no device)' when missing)
--   device_index    the number of the device label (NULL when it has none)
--   stream_id       CUDA stream
--   start_ns        GPU start (ns)
--   end_ns          GPU end (ns)
--   duration_ns     GPU duration (ns)
--   launch_order    NULL (nsys operations have a time)
--   corr_id         correlation id: the API call that caused it has the same (scope.api_calls)
--   name            operation name as exported
CREATE OR REPLACE TEMP TABLE scope_ops AS
    WITH launched AS (
        SELECT DISTINCT coalesce(l.device_index, 0) AS device_index, l.kernel_start_ns
        FROM kernel_launches l, scope_inputs i
        WHERE l.trace_id = i.kern_exec_trace
    ),
    launched_inside AS (
        SELECT DISTINCT device_index, kernel_start_ns FROM scope_launches
    )
    SELECT o.op_kind, coalesce(o.device, '(no device)') AS device, o.device_index, o.stream_id, o.start_ns,
           o.end_ns, o.duration_ns, NULL::BIGINT AS launch_order, o.corr_id, o.name
    FROM gpu_ops o
    JOIN scope_inputs s ON o.trace_id = s.gpu_trace
    LEFT JOIN launched a
           ON o.op_kind = 'kernel' AND a.kernel_start_ns = o.start_ns AND a.device_index = coalesce(o.device_index, 0)
    LEFT JOIN launched_inside i
           ON o.op_kind = 'kernel' AND i.kernel_start_ns = o.start_ns AND i.device_index = coalesce(o.device_index, 0)
    WHERE o.duration_ns BETWEEN 0 AND max_duration_ns()
      AND (i.kernel_start_ns IS NOT NULL
           OR (a.kernel_start_ns IS NULL
               AND in_window(o.start_ns, NULL)));
