-- Data problems, counted rather than silently used. Operations of the capture with a negative duration or one
-- longer than an hour are left out of every analysis (see scope_*.sql); in the analysed scope, zero-length
-- kernels and kernels that start before an earlier kernel of their stream ended are kept and counted.
-- Parameter: $gpu_trace. (How many kern_exec rows match a kernel comes from launch_coverage.sql.)
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
