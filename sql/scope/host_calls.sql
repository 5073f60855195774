-- How often the host launched kernels and how often it synchronized with the GPU, per device: counted over the
-- scope from the CUDA API trace when the capture has one ($api_trace: the calls of the device's processes,
-- scope.device_processes), else from the capture's nsys stats cuda_api_sum ($api_summary: calls per API function
-- over the whole capture and all its processes, whatever the window, so every device gets the same counts), else
-- unknown. A host that synchronizes after (nearly) every launch waits for each kernel: nothing can be
-- graph-captured across those synchronizations.
-- requires: scope.ops, scope.api_calls, scope.device_processes, common.host_sync_call, common.kernel_launch_call
-- access: public
-- unique: device
-- not null: device
-- returns: rows
--   device           VARCHAR  device label
--   launch_calls     BIGINT   kernel launch and graph launch calls (NULL when neither input is there)
--   host_sync_calls  BIGINT   host synchronization calls (common.host_sync_call; NULL when neither input is there)
--   counted_from     VARCHAR  'api_trace', 'api_summary', or NULL
--   synchronized     BOOLEAN  true when the host synchronizes at least once every two launch calls (NULL when unknown)
WITH traced AS (
    SELECT p.device, count(*) FILTER (WHERE is_kernel_launch_call(c.name)) AS launch_calls,
           count(*) FILTER (WHERE is_host_sync_call(c.name)) AS host_sync_calls
    FROM scope_api_calls c
    JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    GROUP BY p.device
),
summarized AS (
    SELECT coalesce(sum(calls) FILTER (WHERE is_kernel_launch_call(name)), 0) AS launch_calls,
           coalesce(sum(calls) FILTER (WHERE is_host_sync_call(name)), 0) AS host_sync_calls
    FROM api_summary WHERE trace_id = $api_summary::INTEGER
),
counted AS (
    SELECT d.device,
           CASE WHEN $api_trace::INTEGER IS NOT NULL THEN coalesce(t.launch_calls, 0)
                WHEN $api_summary::INTEGER IS NOT NULL THEN s.launch_calls END::BIGINT AS launch_calls,
           CASE WHEN $api_trace::INTEGER IS NOT NULL THEN coalesce(t.host_sync_calls, 0)
                WHEN $api_summary::INTEGER IS NOT NULL THEN s.host_sync_calls END::BIGINT AS host_sync_calls,
           CASE WHEN $api_trace::INTEGER IS NOT NULL THEN 'api_trace'
                WHEN $api_summary::INTEGER IS NOT NULL THEN 'api_summary' END AS counted_from
    FROM (SELECT DISTINCT device FROM scope_ops) d
    LEFT JOIN traced t USING (device)
    CROSS JOIN summarized s
)
SELECT *, launch_calls > 0 AND host_sync_calls >= 0.5 * launch_calls AS synchronized
FROM counted
ORDER BY device
