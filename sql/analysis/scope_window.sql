-- The scope every analysis reads: the part of a capture inside the time ranges of temp table
-- window_ranges(start_ns, end_ns, tid). As nsys projects NVTX ranges onto the GPU, a kernel belongs to the range
-- that holds the start of its launch call (on the range's thread, when both say); operations without a launch row
-- (memcpy, memset, or no kern_exec trace) belong to the range that holds their GPU start.
-- {gpu_trace} and {kern_exec_trace} are trace ids (or NULL).
CREATE OR REPLACE TEMP TABLE scope_launches AS
    SELECT l.*
    FROM kernel_launches l
    WHERE l.trace_id = {kern_exec_trace}
      AND EXISTS (
          SELECT 1 FROM window_ranges w
          WHERE l.api_start_ns >= w.start_ns AND l.api_start_ns < w.end_ns
            AND (w.tid IS NULL OR l.tid IS NULL OR w.tid = l.tid));

CREATE OR REPLACE TEMP TABLE scope_ops AS
    WITH launched AS (
        SELECT DISTINCT coalesce(device_index, 0) AS device_index, kernel_start_ns
        FROM kernel_launches WHERE trace_id = {kern_exec_trace}
    ),
    launched_inside AS (
        SELECT DISTINCT coalesce(device_index, 0) AS device_index, kernel_start_ns FROM scope_launches
    )
    SELECT o.*
    FROM gpu_ops o
    LEFT JOIN launched a
           ON o.op_kind = 'kernel' AND a.kernel_start_ns = o.start_ns AND a.device_index = coalesce(o.device_index, 0)
    LEFT JOIN launched_inside i
           ON o.op_kind = 'kernel' AND i.kernel_start_ns = o.start_ns AND i.device_index = coalesce(o.device_index, 0)
    WHERE o.trace_id = {gpu_trace}
      AND o.duration_ns BETWEEN 0 AND max_duration_ns()
      AND (i.kernel_start_ns IS NOT NULL
           OR (a.kernel_start_ns IS NULL
               AND EXISTS (SELECT 1 FROM window_ranges w WHERE o.start_ns >= w.start_ns AND o.start_ns < w.end_ns)));
