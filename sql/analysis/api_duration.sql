-- CPU time of each launch call, per API function. A CUDA-graph launch counts once (its kernels share the call).
WITH calls AS (
    SELECT coalesce(api_function, '(unknown)') AS api_function, api_duration_ns
    FROM scope_launches
    GROUP BY api_function, pid, tid, api_start_ns, api_duration_ns
)
SELECT api_function,
       count(*)                              AS calls,
       quantile_cont(api_duration_ns, 0.50)  AS p50_ns,
       quantile_cont(api_duration_ns, 0.90)  AS p90_ns,
       quantile_cont(api_duration_ns, 0.99)  AS p99_ns,
       max(api_duration_ns)                  AS max_ns
FROM calls
GROUP BY api_function
ORDER BY calls DESC, api_function
