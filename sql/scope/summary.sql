-- Span, operation counts and kernel time of the scope, per device and for the whole scope (device NULL).
-- requires: scope.ops
-- access: public
-- unique: device
-- not null: gpu_span_ns, gpu_operation_count, kernel_count
-- returns: rows
--   device               VARCHAR  device label; NULL for the whole scope
--   gpu_span_ns          BIGINT   last operation end - first operation start (ns)
--   gpu_operation_count  BIGINT   kernels, memcpys and memsets
--   kernel_count         BIGINT   kernels
--   kernel_time_ns       HUGEINT  summed kernel durations (ns)
--   device_count         BIGINT   devices with operations
--   first_start_ns       BIGINT   start of the first operation (ns)
--   last_end_ns          BIGINT   end of the last operation (ns)
SELECT
    CASE WHEN grouping(device) = 1 THEN NULL ELSE device END         AS device,
    max(end_ns) - min(start_ns)                                       AS gpu_span_ns,
    count(*)                                                          AS gpu_operation_count,
    count(*) FILTER (WHERE op_kind = 'kernel')                        AS kernel_count,
    coalesce(sum(duration_ns) FILTER (WHERE op_kind = 'kernel'), 0)   AS kernel_time_ns,
    count(DISTINCT device)                                            AS device_count,
    min(start_ns)                                                     AS first_start_ns,
    max(end_ns)                                                       AS last_end_ns
FROM scope_ops
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST
