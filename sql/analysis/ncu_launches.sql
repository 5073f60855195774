-- Every profiled launch of the scope with its component and bound verdict.
-- Parameters: $latency_below, $bound_at_least, $dominance (percent, percent, ratio).
SELECT k.trace_id, k.result_id AS id, n.name, r.device, w.duration_ns, c.component,
       w.sm_throughput_pct, w.memory_throughput_pct,
       bound_verdict(w.sm_throughput_pct, w.memory_throughput_pct, latency_below := $latency_below,
                     bound_at_least := $bound_at_least, dominance := $dominance) AS verdict
FROM scope_kernels k
JOIN scope_names n USING (name_id)
JOIN kernel_classes c USING (context_key)
JOIN ncu_results r ON r.trace_id = k.trace_id AND r.result_id = k.result_id
JOIN ncu_kernels w ON w.trace_id = k.trace_id AND w.result_id = k.result_id
ORDER BY k.trace_id, k.result_id
