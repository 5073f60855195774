-- Launch calls per API function in the scope, with percentiles of their CPU duration. A CUDA-graph replay is one
-- call that launches many kernels: every kernel gets its own kern_exec row, all sharing the call's thread, API
-- start and duration, so a call is a distinct (pid, tid, api_start_ns, api_duration_ns): a thread runs one API call
-- at a time, so the function need not be part of the key (grouping on integers alone is twice as fast).
WITH calls AS (
    SELECT coalesce(any_value(api_function), '(unknown)') AS api_function, api_duration_ns, count(*) AS kernels
    FROM scope_launches
    GROUP BY pid, tid, api_start_ns, api_duration_ns
)
SELECT api_function,
       count(*)                              AS calls,
       sum(kernels)                          AS kernels,
       regexp_matches(api_function, '^cu(da)?GraphLaunch') AS is_graph,
       quantile_cont(api_duration_ns, 0.50)  AS p50_ns,
       quantile_cont(api_duration_ns, 0.90)  AS p90_ns,
       quantile_cont(api_duration_ns, 0.99)  AS p99_ns,
       max(api_duration_ns)                  AS max_ns
FROM calls
GROUP BY api_function
ORDER BY calls DESC, api_function
