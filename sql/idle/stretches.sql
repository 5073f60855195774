-- When no kernel runs on a device of the capture, and why. Over each device's span (its first operation's start to
-- its last operation's end; every operation of the capture, whatever the scope's window: the GPU is idle when
-- nothing at all runs on it), the stretches in which no kernel runs: before its first kernel, between kernels (one
-- sort of the device's kernels gives them, as launches.kernel_gaps does) and after its last. A stretch that holds a
-- CUDA graph replay the capture has no kernels of (a graph launch call, of one of the device's processes, whose
-- correlation id no GPU operation carries: captured without --cuda-graph-trace=node) is the replay's, all its time:
-- the GPU ran the graph's kernels in stream order, before the first kernel its process launched after the call, on
-- that kernel's device (the stretch ending at that kernel; a host that runs ahead of the GPU launches long before
-- the work runs); after the process's last kernel, in the stretch after it; without launch rows of the process, on
-- each of its devices, in the first stretch ending after the call started.
-- Each nanosecond of any other stretch gets exactly one cause, the first of these that holds:
--   1. memory transfer: a memcpy or memset of the device runs;
--   2. synchronization: a host synchronization call (is_host_sync_call) of one of the device's processes
--      (scope.device_processes) is in progress: the GPU has finished and the host has not yet noticed;
--   3. CPU launch: the launch call of the kernel that ends the stretch has not yet returned: the GPU waits for the
--      CPU (of several kernels starting together, the call that returned first);
--   4. other: the next kernel was submitted and has not started (dependencies, queueing, other devices).
-- How: the memory operations and synchronization calls are merged into pieces of one cause each (idle.pieces).
-- One pass over each device's kernels and pieces in start order, a batch at a time (nsight_ingest.passes
-- .IdleStretches; at one start, kernels first: a piece counts for a kernel when it starts before it), finds the
-- stretches and tells those a piece overlaps; for those few, the time of a cause within [a, b) is its cumulative
-- time at b minus that at a, each read from the piece in force (an ASOF join). Without API calls no time is
-- synchronization, without launch rows none is CPU launch: the analyses then report those causes as unknown.
-- requires: scope.capture_ops, scope.capture_launches, scope.capture_api_calls, scope.device_processes, idle.pieces,
--   common.graph_launch
-- computed by: nsight_ingest.passes
-- access: private
-- creates: idle_stretches
--   device                VARCHAR  device label
--   start_ns              BIGINT   stretch start: the span's start or the end of the kernels before it (ns)
--   end_ns                BIGINT   stretch end: the next kernel's start, or the span's end (ns)
--   next_kernel_start_ns  BIGINT   start of the kernel that ends the stretch (ns); NULL after the device's last kernel
--   untraced_graph_ns     BIGINT   the stretch's whole time when it holds an untraced graph replay, else 0 (ns)
--   memory_transfer_ns    HUGEINT  the stretch's time when a memcpy or memset runs (ns)
--   synchronization_ns    HUGEINT  its time when, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns         HUGEINT  its time when, else, the next kernel's launch call has not returned (ns)
--   other_ns              HUGEINT  the rest of its time (ns)

SELECT hash(device) AS device_key, coalesce(device_index, 0) AS device_index, start_ns, end_ns, true AS is_kernel
FROM capture_ops WHERE op_kind = 'kernel'
UNION ALL
SELECT hash(device), NULL, start_ns, end_ns, false FROM idle_pieces
ORDER BY device_key, start_ns, is_kernel DESC, end_ns;

-- A cause's time before instant t, from the piece in force at t (the latest starting at or before it; none: 0):
-- the cause's time in the earlier pieces, and the piece's own up to t when it is of that cause.
CREATE OR REPLACE TEMP MACRO time_before(t, piece_start, piece_end, before_ns, of_cause) AS
    coalesce(before_ns + CASE WHEN of_cause THEN least(t, piece_end) - piece_start ELSE 0 END, 0);
CREATE OR REPLACE TEMP TABLE idle_stretches AS
WITH spans AS (
    SELECT device, hash(device) AS device_key, min(start_ns) AS span_start, max(end_ns) AS span_end,
           max(end_ns) FILTER (WHERE op_kind = 'kernel') AS last_kernel_end
    FROM capture_ops GROUP BY device
),
launch_ends AS (
    SELECT device_index, kernel_start_ns, min(api_end_ns) AS launch_end_ns FROM capture_launches GROUP BY ALL
),
stretches AS (  -- before the first kernel, between kernels, after the last; touched: a piece overlaps it
    SELECT s.device, coalesce(o.earlier_end_ns, s.span_start) AS start_ns, o.start_ns AS end_ns,
           o.start_ns AS next_kernel_start_ns, l.launch_end_ns,
           coalesce(o.piece_end_ns > coalesce(o.earlier_end_ns, s.span_start), false) AS touched
    FROM idle_stretches_pass o
    JOIN spans s USING (device_key)
    LEFT JOIN launch_ends l ON l.device_index = o.device_index AND l.kernel_start_ns = o.start_ns
    WHERE o.start_ns > coalesce(o.earlier_end_ns, s.span_start)
    UNION ALL
    SELECT device, coalesce(last_kernel_end, span_start), span_end, NULL, NULL,
           coalesce((SELECT max(p.end_ns) FROM idle_pieces p WHERE p.device = s.device)
                    > coalesce(last_kernel_end, span_start), false)
    FROM spans s WHERE span_end > coalesce(last_kernel_end, span_start)
),
bounded AS MATERIALIZED (  -- each stretch's CPU-launch window: [start, the next kernel's launch call end) within it
    SELECT *, greatest(start_ns, least(end_ns, coalesce(launch_end_ns, start_ns))) AS launch_end_in_ns
    FROM stretches
),
measured AS (  -- memory and synchronization time before the start, the launch window's end and the end
    SELECT g.*,
           time_before(g.start_ns, a.start_ns, a.end_ns, a.memory_before, a.is_memory) AS memory_at_start,
           time_before(g.start_ns, a.start_ns, a.end_ns, a.sync_before, NOT a.is_memory) AS sync_at_start,
           time_before(g.launch_end_in_ns, c.start_ns, c.end_ns, c.memory_before, c.is_memory) AS memory_at_launch_end,
           time_before(g.launch_end_in_ns, c.start_ns, c.end_ns, c.sync_before, NOT c.is_memory) AS sync_at_launch_end,
           time_before(g.end_ns, b.start_ns, b.end_ns, b.memory_before, b.is_memory) AS memory_at_end,
           time_before(g.end_ns, b.start_ns, b.end_ns, b.sync_before, NOT b.is_memory) AS sync_at_end
    FROM (SELECT * FROM bounded WHERE touched) g
    ASOF LEFT JOIN idle_pieces a ON a.device = g.device AND a.start_ns <= g.start_ns
    ASOF LEFT JOIN idle_pieces c ON c.device = g.device AND c.start_ns <= g.launch_end_in_ns
    ASOF LEFT JOIN idle_pieces b ON b.device = g.device AND b.start_ns <= g.end_ns
),
caused AS (
    SELECT device, start_ns, end_ns, next_kernel_start_ns,
           memory_at_end - memory_at_start AS memory_transfer_ns,
           sync_at_end - sync_at_start AS synchronization_ns,
           launch_end_in_ns - start_ns - (memory_at_launch_end - memory_at_start) - (sync_at_launch_end - sync_at_start)
               AS cpu_launch_ns
    FROM measured
    UNION ALL  -- no memory operation or synchronization call in the stretch
    SELECT device, start_ns, end_ns, next_kernel_start_ns, 0, 0, launch_end_in_ns - start_ns
    FROM bounded WHERE NOT touched
),
untraced_calls AS (  -- graph launch calls whose replay the capture holds no GPU operation of
    SELECT coalesce(c.pid, -1) AS pid, c.start_ns
    FROM capture_api_calls c
    WHERE is_graph_launch(c.name) AND NOT EXISTS (SELECT 1 FROM capture_ops o WHERE o.corr_id = c.corr_id)
),
process_launches AS (  -- the kernels launched by the processes that replayed, by call start (none without replays)
    SELECT coalesce(l.pid, -1) AS pid, l.api_start_ns, l.kernel_start_ns, d.device
    FROM capture_launches l
    JOIN (SELECT DISTINCT device, coalesce(device_index, 0) AS device_index FROM capture_ops) d USING (device_index)
    WHERE EXISTS (SELECT 1 FROM untraced_calls) AND coalesce(l.pid, -1) IN (SELECT pid FROM untraced_calls)
),
launched_after AS (  -- the first kernel the process launched after the replay: the replay ran before it, there
    SELECT r.start_ns, r.pid, l.device, l.kernel_start_ns
    FROM untraced_calls r ASOF JOIN process_launches l ON l.pid = r.pid AND r.start_ns < l.api_start_ns
),
launched_last AS (  -- none after it: the replay ran after the process's last kernel, on that kernel's device
    SELECT r.start_ns, l.device
    FROM (SELECT * FROM untraced_calls ANTI JOIN launched_after USING (pid, start_ns)) r
    ASOF JOIN process_launches l ON l.pid = r.pid AND r.start_ns >= l.api_start_ns
),
unlaunched AS (  -- no launch row of the process at all: each device of the process, by time alone
    SELECT p.device, r.start_ns
    FROM untraced_calls r
    JOIN device_processes p ON coalesce(p.pid, -1) = r.pid
    ANTI JOIN process_launches l ON l.pid = r.pid
),
candidates AS MATERIALIZED (  -- the stretches a replay may have run in (none without replays)
    SELECT * FROM bounded WHERE EXISTS (SELECT 1 FROM untraced_calls)
),
replayed AS (  -- the stretch each replay ran in: the one ending at the kernel launched after it; the stretch after
               -- the device's last kernel; without launch rows, the first stretch ending after the call started
    SELECT b.device, b.start_ns
    FROM launched_after x JOIN candidates b ON b.device = x.device AND b.next_kernel_start_ns = x.kernel_start_ns
    UNION
    SELECT b.device, b.start_ns
    FROM launched_last x JOIN candidates b ON b.device = x.device AND b.next_kernel_start_ns IS NULL
    UNION
    SELECT b.device, b.start_ns
    FROM unlaunched r ASOF JOIN candidates b ON b.device = r.device AND r.start_ns < b.end_ns
)
SELECT c.device, c.start_ns, c.end_ns, c.next_kernel_start_ns,
       CASE WHEN r.device IS NULL THEN 0 ELSE c.end_ns - c.start_ns END AS untraced_graph_ns,
       CASE WHEN r.device IS NULL THEN c.memory_transfer_ns ELSE 0 END AS memory_transfer_ns,
       CASE WHEN r.device IS NULL THEN c.synchronization_ns ELSE 0 END AS synchronization_ns,
       CASE WHEN r.device IS NULL THEN c.cpu_launch_ns ELSE 0 END AS cpu_launch_ns,
       CASE WHEN r.device IS NULL THEN c.end_ns - c.start_ns - c.memory_transfer_ns - c.synchronization_ns
                                       - c.cpu_launch_ns ELSE 0 END AS other_ns
FROM caused c LEFT JOIN replayed r ON r.device = c.device AND r.start_ns = c.start_ns;
