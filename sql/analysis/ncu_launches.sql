-- Every profiled launch of the scope with its component and bound verdict.
-- Parameters: $latency_below, $bound_at_least, $dominance (percent, percent, ratio).
SELECT r.trace_id, r.result_id AS id, n.name, r.device, w.duration_ns, c.component,
       w.sm_throughput_pct, w.memory_throughput_pct,
       bound_verdict(w.sm_throughput_pct, w.memory_throughput_pct, latency_below := $latency_below,
                     bound_at_least := $bound_at_least, dominance := $dominance) AS verdict
FROM scope_kernels k
JOIN scope_names n USING (name_id)
JOIN kernel_classes c USING (context_key)
-- ncu_scope.sql made each launch a kernel starting at its ID, on device '<trace id>:<device>'
JOIN ncu_results r ON r.result_id = k.start_ns AND k.device = r.trace_id || ':' || coalesce(r.device, '')
JOIN ncu_kernels w ON w.trace_id = r.trace_id AND w.result_id = r.result_id
ORDER BY r.trace_id, r.result_id
