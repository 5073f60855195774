-- Launch calls per API function in the scope. A CUDA-graph replay is one call that launches many kernels: every
-- kernel gets its own kern_exec row, all sharing the call's thread, API start and duration, so a call is a distinct
-- (api_function, pid, tid, api_start_ns, api_duration_ns).
WITH calls AS (
    SELECT api_function, count(*) AS kernels
    FROM scope_launches
    GROUP BY api_function, pid, tid, api_start_ns, api_duration_ns
)
SELECT coalesce(api_function, '(unknown)') AS api_function,
       count(*)                            AS calls,
       sum(kernels)                        AS kernels,
       regexp_matches(coalesce(api_function, ''), '^cu(da)?GraphLaunch') AS is_graph
FROM calls
GROUP BY ALL
ORDER BY calls DESC, api_function
