-- finding: slow_memory_transfers | a device runs pageable copies (host memory not pinned: staged through a driver
--   buffer, never overlapping kernels) or transfers the host waited for (issued by synchronous calls) for at least
--   1% of its span (memory_transfers)
-- One finding per device (and NVTX group). Severity by that time's share of the span: high from 20%, medium from
-- 5%, low below. Gain ceiling: those transfers' time, or the device's idle time during memory transfers
-- (idle_causes.memory_transfer_ns) when that is less: only idle time can be won back.
WITH flagged AS (
    SELECT nvtx_group, device,
           coalesce(sum(operations) FILTER (WHERE pageable), 0) AS pageable_operations,
           coalesce(sum(time_ns) FILTER (WHERE pageable), 0) AS pageable_ns,
           coalesce(sum(operations) FILTER (WHERE synchronous), 0) AS synchronous_operations,
           coalesce(sum(time_ns) FILTER (WHERE synchronous), 0) AS synchronous_ns,
           coalesce(sum(time_ns) FILTER (WHERE pageable OR synchronous), 0) AS flagged_ns,
           coalesce(sum(operations) FILTER (WHERE synchronous IS NULL), 0) AS unknown_operations,
           list({'name': name, 'pageable': pageable, 'synchronous': synchronous, 'operations': operations,
                 'time_ns': time_ns, 'bytes': bytes} ORDER BY time_ns DESC, name)
               FILTER (WHERE pageable OR synchronous) AS transfers
    FROM memory_transfers
    GROUP BY nvtx_group, device
)
SELECT
    'slow_memory_transfers' AS id,
    CASE WHEN f.flagged_ns >= 0.20 * s.gpu_span_ns THEN 'high'
         WHEN f.flagged_ns >= 0.05 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    CASE WHEN f.unknown_operations > 0 AND f.synchronous_operations = 0
         THEN printf('Slow memory transfers: %d pageable transfers took %.2f ms (%.1f%% of the span); whether %d '
                     || 'were synchronous is unknown', f.pageable_operations, f.flagged_ns / 1e6,
                     100 * f.flagged_ns / s.gpu_span_ns, f.unknown_operations)
         ELSE printf('Slow memory transfers: %d pageable and %d synchronous transfers took %.2f ms (%.1f%% of the '
                     || 'span)', f.pageable_operations, f.synchronous_operations, f.flagged_ns / 1e6,
                     100 * f.flagged_ns / s.gpu_span_ns) END AS title,
    {'pageable_operations': f.pageable_operations, 'pageable_ns': f.pageable_ns,
     'synchronous_operations': f.synchronous_operations, 'synchronous_ns': f.synchronous_ns,
     'operations_not_known_synchronous': f.unknown_operations,
     'flagged_ns': f.flagged_ns, 'memory_transfer_idle_ns': c.memory_transfer_ns, 'gpu_span_ns': s.gpu_span_ns,
     'transfers': f.transfers} AS evidence,
    {'nvtx_group': f.nvtx_group, 'device': f.device} AS scope,
    least(f.flagged_ns, c.memory_transfer_ns) AS gain_ceiling_ns,
    'Pin host buffers (pin_memory=True, cudaHostAlloc) and issue copies with cudaMemcpyAsync / '
        || 'tensor.to(non_blocking=True) on a side stream, so that they overlap compute' AS suggestion,
    CASE WHEN f.unknown_operations > 0
         THEN printf('Whether the host waited for %d of the transfers is unknown (no API trace, or no call with their '
                     || 'correlation id): they count only when pageable', f.unknown_operations)
         ELSE 'Only the GPU''s idle time counts; a synchronous transfer also holds the host thread, which can '
              || 'delay the launches after it' END AS caveat
FROM flagged f
JOIN summary s ON s.device = f.device AND s.nvtx_group IS NOT DISTINCT FROM f.nvtx_group
JOIN idle_causes c ON c.device = f.device AND c.nvtx_group IS NOT DISTINCT FROM f.nvtx_group
WHERE s.gpu_span_ns > 0 AND f.flagged_ns >= 0.01 * s.gpu_span_ns
