-- Kernels the CPU launched too late: the launch call ended after every earlier kernel of the device had finished,
-- so the GPU waited for the CPU. Counted over kernels with a launch row and an earlier kernel on their device.
-- requires: launches.kernel_gaps
-- access: public
-- unique: device
-- not null: kernels_considered, cpu_starved_kernels
-- returns: rows
--   device               VARCHAR  device label; NULL for every device together
--   kernels_considered   BIGINT   kernels with a launch row and an earlier kernel
--   cpu_starved_kernels  BIGINT   of them, those whose launch call ended after the earlier kernels
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END AS device,
    count(*)                                          AS kernels_considered,
    count(*) FILTER (WHERE launch_end_ns > earlier_end_ns) AS cpu_starved_kernels
FROM kernel_gaps
WHERE launch_end_ns IS NOT NULL AND earlier_end_ns IS NOT NULL
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST
