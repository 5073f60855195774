-- Data problems, counted rather than silently used. Operations of the capture's $gpu_trace with a negative
-- duration or one longer than max_duration_ns() are left out of every analysis (scope.ops); in the scope,
-- zero-length kernels and kernels that start before an earlier kernel of their stream ended are kept and counted.
-- (How many kern_exec rows match a kernel comes from scope.launch_coverage.)
-- requires: scope.kernels, common.max_duration
-- access: public
-- returns: rows
--   negative_duration_operations     BIGINT  operations of the capture with a negative duration (left out)
--   absurd_duration_operations       BIGINT  operations of the capture longer than max_duration_ns() (left out)
--   zero_duration_kernels            BIGINT  kernels of the scope lasting 0 ns
--   overlapping_kernels_same_stream  BIGINT  kernels of the scope starting before an earlier kernel of their stream
--                                            ended
SELECT *
FROM (
    SELECT count(*) FILTER (WHERE duration_ns < 0)              AS negative_duration_operations,
           count(*) FILTER (WHERE duration_ns > max_duration_ns()) AS absurd_duration_operations
    FROM gpu_ops WHERE trace_id = $gpu_trace
), (
    SELECT count(*) FILTER (WHERE duration_ns = 0)              AS zero_duration_kernels,
           count(*) FILTER (WHERE overlaps_earlier)             AS overlapping_kernels_same_stream
    FROM scope_kernels
)
