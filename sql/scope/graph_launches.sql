-- CUDA-graph replays of the scope (one row) and whether the capture holds their kernels. nsys records a replayed graph's
-- kernels (each carrying its cudaGraphLaunch's correlation id) only under --cuda-graph-trace=node; otherwise a
-- replay is one API call whose GPU work the capture does not hold, and its time reads as idle. Launch calls are
-- counted from the API trace (every call): without one they are NULL, unknown rather than 0 (the kern_exec trace
-- lists only calls that launched a traced kernel). Correlation ids are numbered per process: with several
-- processes an id of another process's operation can make a replay look traced, never the other way round.
-- requires: scope.inputs, scope.api_calls, scope.capture_ops, scope.launches, common.graph_launch
-- access: public
-- returns: rows
--   graph_launches           BIGINT  graph launch calls of the scope (NULL without an API trace)
--   untraced_graph_launches  BIGINT  of them, those no GPU operation of the capture carries the correlation id of (NULL
--                                    without an API trace)
--   graph_kernels            BIGINT  kernels the kern_exec trace says graph launches ran (NULL without a kern_exec
--                                    trace)
WITH replays AS (
    SELECT c.corr_id, EXISTS (SELECT 1 FROM capture_ops o WHERE o.corr_id = c.corr_id) AS traced
    FROM scope_api_calls c
    WHERE is_graph_launch(c.name)
)
SELECT CASE WHEN (SELECT api_trace FROM scope_inputs) IS NOT NULL THEN (SELECT count(*) FROM replays) END
           AS graph_launches,
       CASE WHEN (SELECT api_trace FROM scope_inputs) IS NOT NULL
            THEN (SELECT count(*) FILTER (WHERE NOT traced) FROM replays) END AS untraced_graph_launches,
       CASE WHEN (SELECT kern_exec_trace FROM scope_inputs) IS NOT NULL
            THEN (SELECT count(*) FROM scope_launches WHERE is_graph_launch(api_function)) END AS graph_kernels
