-- How well the kern_exec rows and the GPU-trace kernels of the scope match on (device index, kernel start).
-- One aggregation over both key sets (cheaper than two aggregations and a full outer join).
-- requires: scope.kernels, scope.launches
-- access: public
-- returns: rows
--   launch_rows                 HUGEINT  kern_exec rows of the scope
--   launch_rows_matched         HUGEINT  of them, those whose key matches a kernel
--   kernels_without_launch_row  HUGEINT  kernels whose key matches no kern_exec row
--   launch_rows_without_kernel  HUGEINT  kern_exec rows whose key matches no kernel
WITH keys AS (
    SELECT coalesce(device_index, 0) AS device_index, start_ns, 1 AS kernel, 0 AS launch_row FROM scope_kernels
    UNION ALL
    SELECT coalesce(device_index, 0), kernel_start_ns, 0, 1 FROM scope_launches
),
matched AS (
    SELECT sum(kernel) AS kernels, sum(launch_row) AS launch_rows FROM keys GROUP BY device_index, start_ns
)
SELECT
    coalesce(sum(launch_rows), 0)                                AS launch_rows,
    coalesce(sum(launch_rows) FILTER (WHERE kernels > 0), 0)     AS launch_rows_matched,
    coalesce(sum(kernels) FILTER (WHERE launch_rows = 0), 0)     AS kernels_without_launch_row,
    coalesce(sum(launch_rows) FILTER (WHERE kernels = 0), 0)     AS launch_rows_without_kernel
FROM matched
