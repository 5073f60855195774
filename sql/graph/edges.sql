-- The edges of the scope's dependency graph: what each node waited for. A GPU operation waits for the one before
-- it on its stream (stream) and for the CPU call that launched it (launch: the call with its correlation id, made
-- by a process working on its device; without an API trace, the kern_exec launch row of the kernel). A CPU call
-- waits for the call before it on its thread (program). A call's end waits for a GPU operation that ended while it
-- ran (sync, at_end): one it caused when the call blocks (a memcpy or memset call that is not *Async; a launch
-- returns before its kernel ends), or for a host synchronization call, the last operation to end before it returned
-- of the stream it synchronized (an export's synchronization record names it) or else of its process's devices.
-- After a cudaStreamWaitEvent (an export's synchronization record names the stream that waits), the stream's next
-- operation waits for the operation the event followed (event): nsys exports keep not which stream an event was
-- recorded on, so that is the last operation of another stream of the device launched before the event record call
-- that preceded the wait (or before the wait, without one). A communication kernel of a collective over several GPUs
-- of the capture (the k-th kernel of one communication name on each device that runs it, where each runs it as
-- often) ends no earlier than each participant that started after it did (collective, at_end: it waits for the last
-- arrival; one that arrived before it is no wait). Collectives across rank files are not edges. Correlation ids are numbered per process and grow with each call:
-- two processes launching on one device (MPS) can tie a call to the other's operation.
-- requires: graph.nodes, scope.launches, scope.ops, scope.device_processes, classify.kernel_families
-- access: public
-- not null: src, dst, kind, ready_ns, held_ns, at_end
-- creates: graph_edges
--   src       BIGINT   the node waited for (graph_nodes.node_id)
--   dst       BIGINT   the node that waits
--   kind      VARCHAR  stream, launch, program, sync, event or collective
--   ready_ns  BIGINT   when src let dst go on (ns): its end, or for a launch the call's start and for a collective
--                      the participant's start (its arrival)
--   held_ns   BIGINT   until when src held dst back, to tell which edge held it last (graph.binding): ready_ns, or
--                      for a launch the call's end (an operation cannot start before its call has submitted it)
--   at_end    BOOLEAN  the edge holds back dst's end (sync, collective), not its start
CREATE OR REPLACE TEMP TABLE graph_edges AS
WITH gpu AS (
    SELECT * FROM graph_nodes WHERE on_gpu
),
cpu AS (
    SELECT * FROM graph_nodes WHERE NOT on_gpu
),
ordered AS (  -- consecutive operations of a stream, consecutive calls of a thread
    SELECT lag(node_id) OVER w AS src, node_id AS dst, 'stream' AS kind, lag(end_ns) OVER w AS ready_ns
    FROM gpu WINDOW w AS (PARTITION BY device, stream_id ORDER BY start_ns, end_ns, node_id)
    UNION ALL
    SELECT lag(node_id) OVER w, node_id, 'program', lag(end_ns) OVER w
    FROM cpu WINDOW w AS (PARTITION BY pid, tid ORDER BY start_ns, end_ns, node_id)
),
caused AS (  -- a CPU call and a GPU operation it caused
    SELECT c.node_id AS call, c.start_ns AS call_start_ns, c.end_ns AS call_end_ns, g.node_id AS op,
           g.end_ns AS op_end_ns, c.category = 'api_call' AND NOT contains(c.name, 'Async') AS blocks
    FROM cpu c
    JOIN gpu g ON g.corr_id = c.corr_id
    JOIN device_processes p ON p.device = g.device AND p.pid IS NOT DISTINCT FROM c.pid
    UNION ALL
    SELECT c.node_id, c.start_ns, c.end_ns, o.op_id, o.end_ns, false
    FROM scope_launches l
    JOIN cpu c
      ON c.corr_id IS NULL AND c.start_ns = l.api_start_ns AND c.end_ns = l.api_end_ns
     AND c.pid IS NOT DISTINCT FROM l.pid AND c.tid IS NOT DISTINCT FROM l.tid AND c.name IS NOT DISTINCT FROM l.api_function
    JOIN scope_ops o ON o.op_kind = 'kernel' AND coalesce(o.device_index, 0) = l.device_index
     AND o.start_ns = l.kernel_start_ns
),
synchronizing AS (  -- each host synchronization call on each device its process works on
    SELECT c.node_id, c.start_ns, c.end_ns, p.device, c.sync_kind, c.sync_stream_id
    FROM cpu c JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    WHERE c.category = 'sync_call'
),
awaited AS (  -- the last operation of the stream (or the device) to end before the call returned
    SELECT g.node_id AS src, s.node_id AS dst, g.end_ns AS ready_ns, s.start_ns
    FROM (FROM synchronizing WHERE sync_kind IS DISTINCT FROM 'stream_synchronize' OR sync_stream_id IS NULL) s
    ASOF JOIN gpu g ON g.device = s.device AND s.end_ns >= g.end_ns
    UNION ALL
    SELECT g.node_id, s.node_id, g.end_ns, s.start_ns
    FROM (FROM synchronizing WHERE sync_kind = 'stream_synchronize' AND sync_stream_id IS NOT NULL) s
    ASOF JOIN gpu g ON g.device = s.device AND g.stream_id = s.sync_stream_id AND s.end_ns >= g.end_ns
)
SELECT src, dst, kind, ready_ns, ready_ns AS held_ns, false AS at_end FROM ordered WHERE src IS NOT NULL
UNION ALL
SELECT call, op, 'launch', call_start_ns, call_end_ns, false FROM caused
UNION ALL
SELECT op, call, 'sync', op_end_ns, op_end_ns, true FROM caused
WHERE blocks AND op_end_ns > call_start_ns AND op_end_ns <= call_end_ns
UNION ALL
SELECT src, dst, 'sync', ready_ns, ready_ns, true FROM awaited WHERE ready_ns > start_ns;

-- Event edges, apart: few captures have stream waits, and the plan of one statement for every kind took four times
-- as long.
INSERT INTO graph_edges
WITH waits AS (  -- each stream wait: its call, the event record call before it, the stream's next operation
    SELECT c.corr_id, coalesce(r.corr_id, c.corr_id) AS recorded_before, g.node_id AS op, g.device, g.stream_id
    FROM (FROM graph_nodes WHERE sync_kind = 'stream_wait_event' AND sync_stream_id IS NOT NULL) c
    JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    ASOF LEFT JOIN (FROM graph_nodes WHERE name LIKE 'cudaEventRecord%' OR name LIKE 'cuEventRecord%') r
      ON r.pid IS NOT DISTINCT FROM c.pid AND r.corr_id < c.corr_id
    ASOF JOIN (FROM graph_nodes WHERE on_gpu) g
      ON g.device = p.device AND g.stream_id = c.sync_stream_id AND g.corr_id > c.corr_id
),
other_streams AS (  -- the operations of each waiting stream's device on its other streams
    SELECT w.stream_id AS waiting_stream, g.device, g.node_id, g.end_ns, g.corr_id
    FROM (SELECT DISTINCT device, stream_id FROM waits) w
    JOIN graph_nodes g ON g.on_gpu AND g.device = w.device AND g.stream_id <> w.stream_id
)
SELECT DISTINCT o.node_id, w.op, 'event', o.end_ns, o.end_ns, false
FROM waits w
ASOF JOIN other_streams o
  ON o.device = w.device AND o.waiting_stream = w.stream_id AND o.corr_id < w.recorded_before;

-- Collective edges.
INSERT INTO graph_edges
WITH participants AS (  -- communication kernels, numbered per device and name
    SELECT g.node_id, g.device, g.name, g.start_ns,
           row_number() OVER (PARTITION BY g.device, g.name ORDER BY g.start_ns, g.node_id) AS ordinal
    FROM graph_nodes g SEMI JOIN kernel_families f ON f.name = g.name AND f.family = 'communication'
    WHERE g.on_gpu
),
collective_names AS (  -- names several devices run, each as often
    SELECT name FROM (SELECT name, device, count(*) AS kernels FROM participants GROUP BY ALL)
    GROUP BY name HAVING count(*) > 1 AND min(kernels) = max(kernels)
)
SELECT b.node_id, a.node_id, 'collective', b.start_ns, b.start_ns, true
FROM participants a
JOIN participants b ON b.name = a.name AND b.ordinal = a.ordinal AND b.device <> a.device AND b.start_ns > a.start_ns
SEMI JOIN collective_names n ON n.name = a.name;
