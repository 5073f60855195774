-- Each kernel of the scope that the ncu exports $ncu_traces profiled, with its nsys time and its bound verdict
-- (matched on kernel_key, so nsys and ncu spellings of one kernel meet; metrics are the median over its profiled
-- launches, as in ncu.by_component). Thresholds: $latency_below, $bound_at_least (percent), $dominance (ratio).
-- requires: scope.kernels, classify.kernel_families, common.bound_verdict, common.kernel_key
-- access: public
-- unique: kernel_key
-- not null: kernel_key, launches, total_ns
-- returns: rows
--   kernel_key             VARCHAR  the kernel's dialect-neutral key (kernel_key)
--   short_name             VARCHAR  short name of its nsys name with the most time (kernel_short_name)
--   family                 VARCHAR  kernel family of that name
--   launches               HUGEINT  its nsys kernels
--   total_ns               HUGEINT  their summed duration (ns)
--   profiled_launches      BIGINT   launches ncu profiled
--   profiled_duration_ns   DOUBLE   median duration of the profiled launches (ns; NULL when ncu gives none): far from
--                                   the nsys mean, ncu profiled launches of another size than the traced ones
--   sm_throughput_pct      DOUBLE   median SM throughput (% of peak)
--   memory_throughput_pct  DOUBLE   median memory throughput (% of peak)
--   verdict                VARCHAR  compute_bound | memory_bound | latency_bound | balanced (bound_verdict)
WITH profiled AS (
    SELECT kernel_key(kernel_name) AS key, count(*) AS profiled_launches, median(duration_ns) AS duration_ns,
           median(sm_throughput_pct) AS sm_pct, median(memory_throughput_pct) AS memory_pct
    FROM ncu_kernels
    WHERE list_contains($ncu_traces, trace_id)
    GROUP BY 1
),
timed AS (
    SELECT kernel_key(f.name) AS key, f.short_name, f.family, count(*) AS launches, sum(k.duration_ns) AS total_ns
    FROM scope_kernels k
    JOIN kernel_families f USING (name_id)
    GROUP BY ALL
)
SELECT t.key AS kernel_key, arg_max(t.short_name, t.total_ns) AS short_name, arg_max(t.family, t.total_ns) AS family,
       sum(t.launches) AS launches, sum(t.total_ns) AS total_ns, any_value(p.profiled_launches) AS profiled_launches,
       any_value(p.duration_ns) AS profiled_duration_ns,
       any_value(p.sm_pct) AS sm_throughput_pct, any_value(p.memory_pct) AS memory_throughput_pct,
       bound_verdict(any_value(p.sm_pct), any_value(p.memory_pct), $latency_below, $bound_at_least, $dominance)
           AS verdict
FROM timed t
JOIN profiled p ON p.key = t.key
GROUP BY t.key
ORDER BY total_ns DESC, kernel_key
