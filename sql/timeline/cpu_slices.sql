-- One slice per CUDA API call of the scope on its thread: the launch calls of the kern_exec rows (a call that
-- launched several kernels, a CUDA graph's, is one slice with a flow to each), and the calls of the API trace that
-- are no launch call (the same thread and start), synchronization calls told apart; numbered in order of thread and
-- start.
-- Stored in start order: a stretch of time is read without reading the rest (the timeline is written so).
-- requires: timeline.launch_flows, scope.api_calls, common.host_sync_call
-- access: private
-- unique: slice_row
-- not null: slice_row, start_ns, duration_ns
-- creates: timeline_cpu_slices
--   slice_row    BIGINT    its place among the calls in order of process, thread, start, longest first (0, 1, ...)
--   pid          BIGINT    process id
--   tid          BIGINT    thread id
--   start_ns     BIGINT    call start (ns)
--   duration_ns  BIGINT    call duration (ns)
--   end_ns       BIGINT    call end (ns)
--   name         VARCHAR   API function (as the API trace names it, when it has the call)
--   kind         VARCHAR   launch | synchronization (is_host_sync_call) | api
--   flow_ids     BIGINT[]  the flows starting at the call: timeline_launch_flows.flow_id of each kernel of the scope it
--                          launched ([] for the others)
--   corr_id      BIGINT    correlation id (NULL for a launch call the API trace does not have)
CREATE OR REPLACE TEMP TABLE timeline_cpu_slices AS
WITH launch_calls AS (
    SELECT pid, tid, api_start_ns AS start_ns, api_duration_ns AS duration_ns, api_function,
           coalesce(list(flow_id ORDER BY flow_id) FILTER (WHERE op_id IS NOT NULL), []) AS flow_ids
    FROM timeline_launch_flows
    GROUP BY ALL
),
calls AS (
    SELECT *, row_number() OVER (PARTITION BY pid, tid, start_ns ORDER BY duration_ns DESC, name) AS nth
    FROM scope_api_calls
),
slices AS (
    SELECT l.pid, l.tid, l.start_ns, l.duration_ns, coalesce(c.name, l.api_function) AS name, 'launch' AS kind,
           l.flow_ids, c.corr_id
    FROM launch_calls l
    LEFT JOIN calls c
           ON c.pid IS NOT DISTINCT FROM l.pid AND c.tid IS NOT DISTINCT FROM l.tid AND c.start_ns = l.start_ns
          AND c.nth = 1
    UNION ALL
    SELECT c.pid, c.tid, c.start_ns, c.duration_ns, c.name,
           CASE WHEN is_host_sync_call(c.name) THEN 'synchronization' ELSE 'api' END, []::BIGINT[], c.corr_id
    FROM calls c
    ANTI JOIN launch_calls l
           ON c.pid IS NOT DISTINCT FROM l.pid AND c.tid IS NOT DISTINCT FROM l.tid AND c.start_ns = l.start_ns
          AND c.nth = 1
)
SELECT row_number() OVER (ORDER BY pid, tid, start_ns, duration_ns DESC, name, corr_id) - 1 AS slice_row, pid, tid,
       start_ns, duration_ns, start_ns + duration_ns AS end_ns, name, kind, flow_ids, corr_id
FROM slices
ORDER BY start_ns;
