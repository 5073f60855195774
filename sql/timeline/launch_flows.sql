-- The launch calls of the scope, each numbered, with the kernel it launched: a flow arrow of the timeline goes from
-- the call to that kernel. The launch calls are the kern_exec rows, which name their kernel by device and GPU start
-- (rows and kernels alike in both, a kernel of each of two streams starting in the same ns, pair up in order).
-- Without kern_exec rows (a CSV set without its cuda_kern_exec_trace) they are the API calls that caused a kernel:
-- its correlation id, from a process of its device. Each process numbers its own ids and a cuda_gpu_trace names no
-- process: a kernel whose id calls of several processes carry gets no flow rather than a wrong one.
-- requires: timeline.ops, scope.launches, scope.api_calls, scope.device_processes
-- access: private
-- unique: flow_id
-- not null: flow_id, op_id
-- creates: timeline_launch_flows
--   flow_id          BIGINT   the id of the flow from the call to its kernel (a kernel has one launch call): 1..n in
--                             call order; NULL when the kernel is not in the scope
--   pid              BIGINT   process id of the calling thread
--   tid              BIGINT   thread id of the calling thread
--   api_start_ns     BIGINT   launch call start (ns)
--   api_duration_ns  BIGINT   launch call duration (ns)
--   api_function     VARCHAR  the launch API, e.g. cudaLaunchKernel, cudaGraphLaunch
--   op_id            BIGINT   timeline_ops.op_id of the kernel it launched; NULL when that kernel is not in the scope
--   is_launch_row    BOOLEAN  true for a kern_exec row (windows place its kernel at the call), false for an API call
CREATE OR REPLACE TEMP TABLE timeline_launch_flows AS
WITH kernels AS (
    SELECT op_id, coalesce(device_index, 0) AS device_index, start_ns,
           row_number() OVER (PARTITION BY coalesce(device_index, 0), start_ns ORDER BY op_id) AS nth
    FROM timeline_ops WHERE op_kind = 'kernel'
),
launch_rows AS (
    SELECT *, row_number() OVER (PARTITION BY device_index, kernel_start_ns
                                 ORDER BY api_start_ns, pid, tid, api_duration_ns, api_function) AS nth
    FROM scope_launches
),
paired AS (
    SELECT l.pid, l.tid, l.api_start_ns, l.api_duration_ns, l.api_function, k.op_id, true AS is_launch_row
    FROM launch_rows l
    LEFT JOIN kernels k ON k.device_index = l.device_index AND k.start_ns = l.kernel_start_ns AND k.nth = l.nth
),
correlated AS (
    SELECT c.pid, c.tid, c.start_ns, c.duration_ns, c.name, o.op_id, count(*) OVER (PARTITION BY o.op_id) AS callers
    FROM scope_api_calls c
    JOIN timeline_ops o ON o.op_kind = 'kernel' AND o.corr_id = c.corr_id
    JOIN device_processes p ON p.device = o.device AND p.pid IS NOT DISTINCT FROM c.pid
    WHERE NOT EXISTS (SELECT 1 FROM scope_launches)
),
calls AS (
    SELECT * FROM paired
    UNION ALL
    SELECT pid, tid, start_ns, duration_ns, name, op_id, false FROM correlated WHERE callers = 1
),
numbered AS (  -- over the keys alone: a window over the wide rows would hold them all in memory at once
    SELECT op_id, row_number() OVER (ORDER BY api_start_ns, pid, tid, op_id) AS flow_id
    FROM calls WHERE op_id IS NOT NULL
)
SELECT n.flow_id, c.pid, c.tid, c.api_start_ns, c.api_duration_ns, c.api_function, c.op_id, c.is_launch_row
FROM calls c LEFT JOIN numbered n USING (op_id);
