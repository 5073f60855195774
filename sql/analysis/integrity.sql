-- Data problems of one capture, counted rather than silently used. Operations with a negative duration or one
-- longer than an hour ($absurd_ns) are left out of every analysis (see scope_*.sql); zero-length kernels and
-- kernels that start before the previous kernel of their stream ended are kept and counted; the match rate says
-- whether the kern_exec trace belongs to this gpu trace. Parameters: $gpu_trace, $kern_exec_trace.
WITH ops AS (
    SELECT * FROM gpu_ops WHERE trace_id = $gpu_trace
),
stream_order AS (
    SELECT start_ns < max(end_ns) OVER (PARTITION BY device, stream_id ORDER BY start_ns, end_ns
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS overlapping
    FROM ops
    WHERE op_kind = 'kernel' AND duration_ns BETWEEN 0 AND 3600000000000
),
launch_keys AS (
    SELECT coalesce(device_index, 0) AS device_index, kernel_start_ns FROM kernel_launches
    WHERE trace_id = $kern_exec_trace
),
kernel_keys AS (
    SELECT DISTINCT coalesce(device_index, 0) AS device_index, start_ns AS kernel_start_ns FROM ops
    WHERE op_kind = 'kernel'
)
SELECT
    (SELECT count(*) FROM ops WHERE duration_ns < 0)                             AS negative_duration_operations,
    (SELECT count(*) FROM ops WHERE duration_ns > 3600000000000)                 AS absurd_duration_operations,
    (SELECT count(*) FROM ops WHERE op_kind = 'kernel' AND duration_ns = 0)      AS zero_duration_kernels,
    (SELECT count(*) FROM stream_order WHERE overlapping)                         AS overlapping_kernels_same_stream,
    (SELECT count(*) FROM launch_keys)                                           AS launch_rows,
    (SELECT count(*) FROM launch_keys l SEMI JOIN kernel_keys k USING (device_index, kernel_start_ns))
                                                                                 AS launch_rows_matched
