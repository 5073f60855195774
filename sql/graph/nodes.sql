-- The nodes of the scope's dependency graph: every GPU operation (kernel, memcpy, memset) and every CPU call that
-- orders them. The CPU calls are the CUDA API calls of the cuda_api_trace; without one, the launch calls of the
-- kern_exec trace (one per distinct call: a graph replay launches many kernels), so the graph is thinner (no
-- synchronization calls). Calls with a negative duration or one over an hour are left out, as operations are. A
-- node's id is its GPU operation's op_id, or for a CPU call a number after every op_id.
-- requires: scope.ops, scope.api_calls, scope.launches, scope.inputs, common.kernel_launch_call,
--   common.host_sync_call, common.max_duration
-- access: public
-- unique: node_id
-- not null: node_id, on_gpu, category, start_ns, end_ns
-- creates: graph_nodes
--   node_id    BIGINT   the node (a GPU operation's op_id; a CPU call's number after every op_id)
--   on_gpu     BOOLEAN  a GPU operation (else a CPU call)
--   category   VARCHAR  kernel, memcpy, memset or other (GPU); launch_call, sync_call or api_call (CPU:
--                       is_kernel_launch_call, is_host_sync_call, the rest)
--   start_ns   BIGINT   start (ns)
--   end_ns     BIGINT   end (ns)
--   device     VARCHAR  GPU operation: its device label
--   stream_id  BIGINT   GPU operation: its stream
--   pid        BIGINT   CPU call: its process
--   tid        BIGINT   CPU call: its thread
--   corr_id    BIGINT   correlation id (a CPU call's matches the GPU operations it caused; NULL for launch calls of
--                       the kern_exec trace)
--   name       VARCHAR  the kernel, operation or API function
--   sync_kind  VARCHAR  CPU call: what it waited for, when the export says (scope.api_calls.sync_kind)
--   sync_stream_id BIGINT CPU call: the stream it made wait or waited for (scope.api_calls.sync_stream_id)
CREATE OR REPLACE TEMP TABLE graph_nodes AS
WITH last_op AS (
    SELECT coalesce(max(op_id), 0) AS op_id FROM scope_ops
),
cpu AS (
    SELECT * FROM (
        SELECT start_ns, end_ns, pid, tid, corr_id, name, sync_kind, sync_stream_id FROM scope_api_calls
        UNION ALL
        SELECT DISTINCT api_start_ns, api_end_ns, pid, tid, NULL::BIGINT, api_function, NULL, NULL
        FROM scope_launches
        WHERE (SELECT api_trace FROM scope_inputs) IS NULL
    )
    WHERE end_ns - start_ns BETWEEN 0 AND max_duration_ns()  -- as for GPU operations: others are data errors
)
SELECT op_id AS node_id, true AS on_gpu, op_kind AS category, start_ns, end_ns, device, stream_id,
       NULL::BIGINT AS pid, NULL::BIGINT AS tid, corr_id, name, NULL::VARCHAR AS sync_kind,
       NULL::BIGINT AS sync_stream_id
FROM scope_ops
UNION ALL
SELECT (SELECT op_id FROM last_op) + row_number() OVER (ORDER BY start_ns, end_ns, pid, tid, name) AS node_id,
       false, CASE WHEN is_kernel_launch_call(name) THEN 'launch_call'
                   WHEN is_host_sync_call(name) THEN 'sync_call' ELSE 'api_call' END,
       start_ns, end_ns, NULL, NULL, pid, tid, corr_id, name, sync_kind, sync_stream_id
FROM cpu;
