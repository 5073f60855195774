-- Launch calls per API function in the scope, with percentiles of their CPU duration. A CUDA-graph replay is one
-- call that launches many kernels: every kernel gets its own kern_exec row, all sharing the call's thread, API
-- start and duration, so a call is a distinct (pid, tid, api_start_ns, api_duration_ns): a thread runs one API call
-- at a time, so the function need not be part of the key (grouping on integers alone is twice as fast).
-- Percentiles come from the calls counted per distinct duration (ns_percentiles).
-- requires: scope.launches, common.percentiles, common.graph_launch
-- access: public
-- unique: api_function
-- not null: api_function, calls, kernels
-- returns: rows
--   api_function  VARCHAR  launch API ('(unknown)' when the export gives none)
--   calls         HUGEINT  distinct launch calls
--   kernels       HUGEINT  kernels they launched (kern_exec rows)
--   is_graph      BOOLEAN  true for CUDA-graph launches (one call, many kernels)
--   p50_ns        DOUBLE   median call duration (ns), interpolated as quantile_cont
--   p90_ns        DOUBLE   90th percentile (ns)
--   p99_ns        DOUBLE   99th percentile (ns)
--   max_ns        BIGINT   largest (ns)
WITH calls AS (
    SELECT coalesce(any_value(api_function), '(unknown)') AS api_function, api_duration_ns, count(*) AS kernels
    FROM scope_launches
    GROUP BY pid, tid, api_start_ns, api_duration_ns
),
durations AS (
    SELECT api_function, api_duration_ns, count(*) AS calls, sum(kernels) AS kernels
    FROM calls
    GROUP BY api_function, api_duration_ns
),
ranked AS (
    SELECT *, sum(calls) OVER (PARTITION BY api_function ORDER BY api_duration_ns) AS upto,
              sum(calls) OVER (PARTITION BY api_function)                           AS n
    FROM durations
)
SELECT api_function,
       sum(calls)                                                    AS calls,
       sum(kernels)                                                  AS kernels,
       is_graph_launch(api_function)                                 AS is_graph,
       unnest(ns_percentiles(api_duration_ns, upto, n))  -- p50_ns, p90_ns, p99_ns, max_ns
FROM ranked
GROUP BY api_function
ORDER BY calls DESC, api_function
