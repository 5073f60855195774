-- How well the kern_exec rows and the GPU-trace kernels of the scope match on (device index, kernel start).
WITH kernel_keys AS (
    SELECT coalesce(device_index, 0) AS device_index, start_ns, count(*) AS kernels
    FROM scope_kernels GROUP BY ALL
),
launch_keys AS (
    SELECT coalesce(device_index, 0) AS device_index, kernel_start_ns AS start_ns, count(*) AS launch_rows
    FROM scope_launches GROUP BY ALL
)
SELECT
    coalesce(sum(launch_rows), 0)                                    AS launch_rows,
    coalesce(sum(launch_rows) FILTER (WHERE kernels IS NOT NULL), 0) AS launch_rows_matched,
    coalesce(sum(kernels) FILTER (WHERE launch_rows IS NULL), 0)     AS kernels_without_launch_row,
    coalesce(sum(launch_rows) FILTER (WHERE kernels IS NULL), 0)     AS launch_rows_without_kernel
FROM kernel_keys FULL OUTER JOIN launch_keys USING (device_index, start_ns)
