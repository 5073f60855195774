-- The launch calls of the scope, each numbered, with the kernel it launched: a flow arrow of the timeline goes from
-- the call to that kernel. The launch calls are the kern_exec rows, which name their kernel by device and GPU start
-- (rows and kernels alike in both, a kernel of each of two streams starting in the same ns, pair up in order);
-- without kern_exec rows (a CSV set without its cuda_kern_exec_trace), the API calls that caused a kernel: the same
-- correlation id, from a process of the kernel's device (each process numbers its own ids).
-- requires: timeline.ops, scope.launches, scope.api_calls, scope.device_processes
-- creates: timeline_launch_flows
--   flow_id          the launch call's number (per kernel it launched), 1..n in call order: the id of its flow
--   pid              process id of the calling thread
--   tid              thread id of the calling thread
--   api_start_ns     launch call start (ns)
--   api_duration_ns  launch call duration (ns)
--   api_function     the launch API, e.g. cudaLaunchKernel, cudaGraphLaunch
--   op_id            timeline_ops.op_id of the kernel it launched; NULL when that kernel is not in the scope
CREATE OR REPLACE TEMP TABLE timeline_launch_flows AS
WITH kernels AS (
    SELECT op_id, coalesce(device_index, 0) AS device_index, start_ns,
           row_number() OVER (PARTITION BY coalesce(device_index, 0), start_ns ORDER BY op_id) AS nth
    FROM timeline_ops WHERE op_kind = 'kernel'
),
calls AS (
    SELECT api_start_ns, api_duration_ns, kernel_start_ns, pid, tid, device_index, api_function FROM scope_launches
    UNION ALL
    SELECT c.start_ns, c.duration_ns, o.start_ns, c.pid, c.tid, coalesce(o.device_index, 0), c.name
    FROM scope_api_calls c
    JOIN timeline_ops o ON o.op_kind = 'kernel' AND o.corr_id = c.corr_id
    JOIN device_processes p ON p.device = o.device AND p.pid IS NOT DISTINCT FROM c.pid
    WHERE NOT EXISTS (SELECT 1 FROM scope_launches)
),
launches AS (
    SELECT *, row_number() OVER (PARTITION BY device_index, kernel_start_ns
                                 ORDER BY api_start_ns, pid, tid, api_duration_ns, api_function) AS nth
    FROM calls
)
SELECT row_number() OVER (ORDER BY l.api_start_ns, l.pid, l.tid, l.device_index, l.kernel_start_ns, l.nth) AS flow_id,
       l.pid, l.tid, l.api_start_ns, l.api_duration_ns, l.api_function, k.op_id
FROM launches l
LEFT JOIN kernels k ON k.device_index = l.device_index AND k.start_ns = l.kernel_start_ns AND k.nth = l.nth;
