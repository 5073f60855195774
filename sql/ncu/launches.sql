-- Every profiled launch of the ncu scope with its component, kernel family and bound verdict.
-- Thresholds: $latency_below, $bound_at_least (percent), $dominance (ratio), as bound_verdict takes them.
-- requires: scope.kernels, scope.names, classify.kernel_classes, classify.kernel_families, common.bound_verdict,
--           common.kernel_short_name
-- access: public
-- unique: trace_id, id
-- not null: trace_id, id, name
-- returns: rows
--   trace_id               INTEGER  the ncu export
--   id                     BIGINT   the launch's ID in it
--   name                   VARCHAR  kernel name
--   short_name             VARCHAR  its short name (kernel_short_name)
--   device                 VARCHAR  device index as ncu prints it
--   duration_ns            DOUBLE   gpu__time_duration (ns)
--   component              VARCHAR  component from the rules
--   family                 VARCHAR  kernel family from the family rules
--   sm_throughput_pct      DOUBLE   SM throughput (% of peak)
--   memory_throughput_pct  DOUBLE   memory throughput (% of peak)
--   verdict                VARCHAR  compute_bound | memory_bound | latency_bound | balanced (NULL: metrics missing)
SELECT r.trace_id, r.result_id AS id, n.name, f.short_name, r.device, w.duration_ns, c.component, f.family,
       w.sm_throughput_pct, w.memory_throughput_pct,
       bound_verdict(w.sm_throughput_pct, w.memory_throughput_pct, $latency_below, $bound_at_least, $dominance) AS verdict
FROM scope_kernels k
JOIN scope_names n USING (name_id)
JOIN kernel_classes c USING (context_key)
JOIN kernel_families f USING (name_id)
-- scope.ops made each launch a kernel in profiling order, on device '<trace id>:<device>'
JOIN ncu_results r ON r.result_id = k.launch_order AND k.device = r.trace_id || ':' || coalesce(r.device, '')
JOIN ncu_kernels w ON w.trace_id = r.trace_id AND w.result_id = r.result_id
ORDER BY r.trace_id, r.result_id
