-- finding: memory_bound_hot_kernel | a kernel holding at least 2% of the kernel time whose Nsight Compute verdict
--   is memory-bound (ncu_verdicts)
-- finding: latency_bound_hot_kernel | a kernel holding at least 2% of the kernel time whose Nsight Compute verdict
--   is latency-bound: neither throughput near its peak (ncu_verdicts)
-- One finding per kernel (and NVTX group). Gain ceiling: the kernel's time less the time it would take at the
-- higher of its two throughputs' peak, total_ns x (1 - max(SM %, memory %) / 100), at most the span. Severity by
-- that ceiling's share of the span: high from 10%, medium from 3%, low below. When ncu's launches ran over twice as
-- long as the traced ones or under half as long (another problem size), the caveat says the verdict may not hold.
WITH whole AS (
    SELECT nvtx_group, gpu_span_ns, kernel_time_ns FROM summary WHERE device IS NULL
),
hot AS (
    SELECT v.*, w.gpu_span_ns, w.kernel_time_ns, v.total_ns / v.launches AS traced_mean_ns,
           least(w.gpu_span_ns, CAST(round(v.total_ns * (1 - greatest(v.sm_throughput_pct,
                                                                      v.memory_throughput_pct) / 100)) AS BIGINT))
               AS ceiling_ns
    FROM ncu_verdicts v
    JOIN whole w ON w.nvtx_group IS NOT DISTINCT FROM v.nvtx_group
    WHERE v.verdict IN ('memory_bound', 'latency_bound') AND v.total_ns >= 0.02 * w.kernel_time_ns
)
SELECT
    replace(verdict, '_bound', '_bound_hot_kernel') AS id,
    CASE WHEN ceiling_ns >= 0.10 * gpu_span_ns THEN 'high'
         WHEN ceiling_ns >= 0.03 * gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('%s hot kernel %s: %.2f ms (%.0f%% of kernel time) at %.0f%% SM and %.0f%% memory throughput',
           CASE verdict WHEN 'memory_bound' THEN 'Memory-bound' ELSE 'Latency-bound' END, short_name,
           total_ns / 1e6, 100 * total_ns / kernel_time_ns, sm_throughput_pct, memory_throughput_pct) AS title,
    {'kernel_key': kernel_key, 'short_name': short_name, 'family': family, 'verdict': verdict, 'launches': launches,
     'total_ns': total_ns, 'kernel_time_ns': kernel_time_ns, 'profiled_launches': profiled_launches,
     'profiled_duration_ns': profiled_duration_ns, 'traced_mean_ns': traced_mean_ns,
     'sm_throughput_pct': sm_throughput_pct, 'memory_throughput_pct': memory_throughput_pct} AS evidence,
    {'nvtx_group': nvtx_group, 'kernel': kernel_key} AS scope,
    greatest(ceiling_ns, 0) AS gain_ceiling_ns,
    CASE verdict
        WHEN 'memory_bound' THEN 'Move fewer bytes: fuse it with its producer or consumer, use a lower-precision or '
                                 || 'packed format, and check coalescing and cache reuse in ncu''s memory workload '
                                 || 'analysis'
        ELSE 'Expose more parallelism: larger tiles or batches, more blocks per SM, fewer dependent loads; check '
             || 'occupancy and warp stall reasons in ncu' END AS suggestion,
    CASE WHEN profiled_duration_ns > 2 * traced_mean_ns OR profiled_duration_ns < traced_mean_ns / 2
         THEN printf('ncu profiled launches of another size (%.1f us each, against %.1f us in the trace): the '
                     || 'verdict may not hold for the traced ones', profiled_duration_ns / 1e3, traced_mean_ns / 1e3)
         ELSE 'Throughputs are medians over the launches ncu profiled, replayed with caches flushed' END AS caveat
FROM hot
