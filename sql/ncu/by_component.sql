-- nsys kernel time of each component of the scope split by the bound verdict of the matching kernel in the ncu
-- exports $ncu_traces (matched on kernel_key, so nsys and ncu spellings of one kernel meet; metrics are the median
-- over its profiled launches), with time-weighted mean SM and memory throughput over the matched time.
-- Thresholds: $latency_below, $bound_at_least (percent), $dominance (ratio), as bound_verdict takes them.
-- requires: scope.kernels, scope.names, classify.kernel_classes, common.bound_verdict, common.kernel_key
-- access: public
-- unique: component
-- not null: component, time_ns
-- returns: rows
--   component              VARCHAR  component
--   time_ns                HUGEINT  its nsys kernel time (ns)
--   profiled_ns            HUGEINT  of it, kernels ncu profiled (ns)
--   compute_bound_ns       HUGEINT  of it, compute-bound kernels (ns)
--   memory_bound_ns        HUGEINT  memory-bound (ns)
--   latency_bound_ns       HUGEINT  latency-bound (ns)
--   balanced_ns            HUGEINT  balanced (ns)
--   sm_throughput_pct      DOUBLE   time-weighted SM throughput of the profiled part (% of peak; Kahan-summed: the order
--                                   rows arrive in hardly moves its last digits)
--   memory_throughput_pct  DOUBLE   time-weighted memory throughput of the profiled part (% of peak)
WITH profiled AS (
    SELECT kernel_key(kernel_name) AS key,
           median(sm_throughput_pct) AS sm_pct,
           median(memory_throughput_pct) AS memory_pct
    FROM ncu_kernels
    WHERE list_contains($ncu_traces, trace_id)
    GROUP BY 1
),
names AS (
    SELECT name_id, kernel_key(name) AS key FROM scope_names
),
timed AS (
    SELECT c.component, k.duration_ns, p.key IS NOT NULL AS matched, p.sm_pct, p.memory_pct,
           bound_verdict(p.sm_pct, p.memory_pct, $latency_below, $bound_at_least, $dominance) AS verdict
    FROM scope_kernels k
    JOIN kernel_classes c USING (context_key)
    JOIN names n USING (name_id)
    LEFT JOIN profiled p ON p.key = n.key
)
SELECT component,
       sum(duration_ns)                                                     AS time_ns,
       coalesce(sum(duration_ns) FILTER (WHERE matched), 0)                 AS profiled_ns,
       coalesce(sum(duration_ns) FILTER (WHERE verdict = 'compute_bound'), 0) AS compute_bound_ns,
       coalesce(sum(duration_ns) FILTER (WHERE verdict = 'memory_bound'), 0)  AS memory_bound_ns,
       coalesce(sum(duration_ns) FILTER (WHERE verdict = 'latency_bound'), 0) AS latency_bound_ns,
       coalesce(sum(duration_ns) FILTER (WHERE verdict = 'balanced'), 0)      AS balanced_ns,
       fsum(duration_ns * sm_pct) FILTER (WHERE sm_pct IS NOT NULL)
           / sum(duration_ns) FILTER (WHERE sm_pct IS NOT NULL)             AS sm_throughput_pct,
       fsum(duration_ns * memory_pct) FILTER (WHERE memory_pct IS NOT NULL)
           / sum(duration_ns) FILTER (WHERE memory_pct IS NOT NULL)         AS memory_throughput_pct
FROM timed
GROUP BY component
