-- finding: transfer_bound | a device runs no kernel while memory transfers run (idle_causes.memory_transfer_ns) for
--   at least 10% of its span: copies and memsets that no compute hides
-- One finding per device (and NVTX group), with the 3 kinds of transfer taking longest (memory_transfers). Severity by
-- that share of the span: high from 40%, medium from 20%, low below. Gain ceiling: memory_transfer_ns, the idle time
-- transfers fill.
WITH transfers AS (
    SELECT nvtx_group, device,
           list({'name': name, 'operations': operations, 'time_ns': time_ns, 'bytes': bytes}
                ORDER BY time_ns DESC, name)[1:3] AS transfers
    FROM (SELECT nvtx_group, device, name, sum(operations) AS operations, sum(time_ns) AS time_ns, sum(bytes) AS bytes
          FROM memory_transfers GROUP BY ALL)
    GROUP BY nvtx_group, device
)
SELECT
    'transfer_bound' AS id,
    CASE WHEN c.memory_transfer_ns >= 0.40 * s.gpu_span_ns THEN 'high'
         WHEN c.memory_transfer_ns >= 0.20 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('Transfer-bound: no kernel ran for %.2f ms (%.0f%% of the span) while memory transfers did, most in %s',
           c.memory_transfer_ns / 1e6, 100 * c.memory_transfer_ns / s.gpu_span_ns, t.transfers[1].name) AS title,
    {'memory_transfer_ns': c.memory_transfer_ns, 'kernel_idle_ns': c.kernel_idle_ns, 'gpu_span_ns': s.gpu_span_ns,
     'memory_transfer_percent_of_span': 100 * c.memory_transfer_ns / s.gpu_span_ns, 'transfers': t.transfers}
        AS evidence,
    {'nvtx_group': c.nvtx_group, 'device': c.device} AS scope,
    c.memory_transfer_ns AS gain_ceiling_ns,
    'Overlap transfers with compute (pinned buffers, cudaMemcpyAsync on a side stream, prefetch the next batch), '
        || 'move less data (keep tensors on the GPU), and batch small copies' AS suggestion,
    'Includes the time of slow_memory_transfers, not in addition to it; a program that only copies (a setup phase, a '
        || 'bandwidth test) is transfer-bound by design' AS caveat
FROM idle_causes c
JOIN summary s ON s.device = c.device AND s.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
JOIN transfers t ON t.device = c.device AND t.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
WHERE c.device IS NOT NULL AND s.gpu_span_ns > 0 AND c.memory_transfer_ns >= 0.10 * s.gpu_span_ns
