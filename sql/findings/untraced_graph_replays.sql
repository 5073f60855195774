-- finding: untraced_graph_replays | a device's gaps between kernels hold CUDA graph replays whose kernels the
--   capture lacks (captured without --cuda-graph-trace=node): their time (idle_causes.untraced_graph_ns) is at
--   least 1% of the device's span
-- One finding per device (and NVTX group). That time is not idle: the GPU ran the graphs' kernels then, and what
-- they were and how long each took is not in the capture, so every kernel figure leaves them out. Severity by that
-- time's share of the span: high from 20%, medium from 5%, low below. Gain ceiling 0: capture again to see it.
WITH replays AS (
    SELECT coalesce(sum(untraced_graph_launches), 0) AS untraced_graph_launches FROM graph_launches
)
SELECT
    'untraced_graph_replays' AS id,
    CASE WHEN c.untraced_graph_ns >= 0.20 * s.gpu_span_ns THEN 'high'
         WHEN c.untraced_graph_ns >= 0.05 * s.gpu_span_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('CUDA graph replays not traced: gaps holding %.2f ms (%.0f%% of the span) ran replays whose kernels the '
           || 'capture does not have (%d untraced replays in the capture)', c.untraced_graph_ns / 1e6,
           100 * c.untraced_graph_ns / s.gpu_span_ns, r.untraced_graph_launches) AS title,
    {'untraced_graph_ns': c.untraced_graph_ns, 'kernel_idle_ns': c.kernel_idle_ns, 'gpu_span_ns': s.gpu_span_ns,
     'capture_untraced_graph_launches': r.untraced_graph_launches} AS evidence,
    {'nvtx_group': c.nvtx_group, 'device': c.device} AS scope,
    0 AS gain_ceiling_ns,
    'Capture again with nsys profile --cuda-graph-trace=node, so that the graphs'' kernels are in the trace and '
        || 'every kernel, family and idle figure counts them' AS suggestion,
    'Each gap holding a replay counts as the replay''s in full: its time may also hold a wait before the graph ran'
        AS caveat
FROM idle_causes c
CROSS JOIN replays r
JOIN summary s ON s.device = c.device AND s.nvtx_group IS NOT DISTINCT FROM c.nvtx_group
WHERE c.device IS NOT NULL AND s.gpu_span_ns > 0 AND c.untraced_graph_ns >= 0.01 * s.gpu_span_ns
