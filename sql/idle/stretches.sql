-- When no kernel runs on a device of the capture, and why. Over each device's span (its first operation's start to
-- its last operation's end; every operation of the capture, whatever the scope's window: the GPU is idle when
-- nothing at all runs on it), the stretches in which no kernel runs: before its first kernel, between kernels (one
-- sort of the device's kernels gives them, as launches.kernel_gaps does) and after its last. Each nanosecond of a
-- stretch gets exactly one cause, the first of these that holds:
--   1. memory transfer: a memcpy or memset of the device runs;
--   2. synchronization: a host synchronization call (is_host_sync_call) of one of the device's processes
--      (scope.device_processes) is in progress: the GPU has finished and the host has not yet noticed;
--   3. CPU launch: the launch call of the kernel that ends the stretch has not yet returned: the GPU waits for the
--      CPU (of several kernels starting together, the call that returned first);
--   4. other: the next kernel was submitted and has not started (dependencies, queueing, other devices).
-- How: the memory operations and synchronization calls are merged into pieces of one cause each (memory first),
-- each carrying the time of each cause in the pieces before it. The pieces go into the sort of the kernels that
-- finds the stretches, which tells the stretches a piece overlaps; for those few, the time of a cause within [a, b)
-- is its cumulative time at b minus that at a, each read from the piece in force (an ASOF join). Without API calls no time is
-- synchronization, without launch rows none is CPU launch: the analyses then report those causes as unknown.
-- requires: scope.capture_ops, scope.capture_api_calls, scope.capture_launches
-- requires: scope.device_processes, common.host_sync_call
-- creates: idle_stretches
--   device                device label
--   start_ns              stretch start: the span's start or the end of the kernels before it (ns)
--   end_ns                stretch end: the next kernel's start, or the span's end (ns)
--   next_kernel_start_ns  start of the kernel that ends the stretch (ns); NULL after the device's last kernel
--   memory_transfer_ns    the stretch's time when a memcpy or memset runs (ns)
--   synchronization_ns    its time when, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns         its time when, else, the next kernel's launch call has not returned (ns)
--   other_ns              the rest of its time (ns)

-- A cause's time before instant t, from the piece in force at t (the latest starting at or before it; none: 0):
-- the cause's time in the earlier pieces, and the piece's own up to t when it is of that cause.
CREATE OR REPLACE TEMP MACRO time_before(t, piece_start, piece_end, before_ns, of_cause) AS
    coalesce(before_ns + CASE WHEN of_cause THEN least(t, piece_end) - piece_start ELSE 0 END, 0);
CREATE OR REPLACE TEMP TABLE idle_stretches AS
WITH spans AS (
    SELECT device, min(start_ns) AS span_start, max(end_ns) AS span_end,
           max(end_ns) FILTER (WHERE op_kind = 'kernel') AS last_kernel_end
    FROM capture_ops GROUP BY device
),
syncs AS (  -- clipped to the device's span
    SELECT s.device, greatest(c.start_ns, s.span_start) AS start_ns, least(c.end_ns, s.span_end) AS end_ns
    FROM capture_api_calls c
    JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    JOIN spans s ON s.device = p.device
    WHERE is_host_sync_call(c.name) AND c.start_ns < s.span_end AND c.end_ns > s.span_start
),
events AS (  -- +1 when a memory operation or a synchronization call starts, -1 when it ends
    SELECT device, start_ns AS t, 1 AS memory_ops, 0 AS sync_calls FROM capture_ops WHERE op_kind IN ('memcpy', 'memset')
    UNION ALL SELECT device, end_ns, -1, 0 FROM capture_ops WHERE op_kind IN ('memcpy', 'memset')
    UNION ALL SELECT device, start_ns, 0, 1 FROM syncs
    UNION ALL SELECT device, end_ns, 0, -1 FROM syncs
),
points AS (
    SELECT device, t, sum(memory_ops) AS memory_ops, sum(sync_calls) AS sync_calls FROM events GROUP BY device, t
),
running AS (
    SELECT device, t AS start_ns, lead(t) OVER w AS end_ns,
           sum(memory_ops) OVER (w ROWS UNBOUNDED PRECEDING) AS memory_ops,
           sum(sync_calls) OVER (w ROWS UNBOUNDED PRECEDING) AS sync_calls
    FROM points
    WINDOW w AS (PARTITION BY device ORDER BY t)
),
pieces AS MATERIALIZED (  -- memory transfer, else synchronization, with each cause's time in the earlier pieces
    SELECT device, start_ns, end_ns, memory_ops > 0 AS is_memory,
           coalesce(sum(CASE WHEN memory_ops > 0 THEN end_ns - start_ns ELSE 0 END) OVER earlier, 0) AS memory_before,
           coalesce(sum(CASE WHEN memory_ops > 0 THEN 0 ELSE end_ns - start_ns END) OVER earlier, 0) AS sync_before
    FROM running
    WHERE (memory_ops > 0 OR sync_calls > 0) AND end_ns > start_ns
    WINDOW earlier AS (PARTITION BY device ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
ordered AS (  -- each kernel with the latest end of the device's earlier kernels, and of the pieces starting before it
    SELECT device, device_index, start_ns, is_kernel,
           max(end_ns) FILTER (WHERE is_kernel) OVER earlier AS earlier_end,
           max(end_ns) FILTER (WHERE NOT is_kernel) OVER earlier AS piece_end
    FROM (SELECT device, coalesce(device_index, 0) AS device_index, start_ns, end_ns, true AS is_kernel
          FROM capture_ops WHERE op_kind = 'kernel'
          UNION ALL
          SELECT device, NULL, start_ns, end_ns, false FROM pieces)
    WINDOW earlier AS (PARTITION BY device ORDER BY start_ns, is_kernel DESC, end_ns
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
launch_ends AS (
    SELECT device_index, kernel_start_ns, min(api_end_ns) AS launch_end_ns FROM capture_launches GROUP BY ALL
),
stretches AS (  -- before the first kernel, between kernels, after the last; touched: a piece overlaps it
    SELECT o.device, coalesce(o.earlier_end, s.span_start) AS start_ns, o.start_ns AS end_ns,
           o.start_ns AS next_kernel_start_ns, l.launch_end_ns,
           coalesce(o.piece_end > coalesce(o.earlier_end, s.span_start), false) AS touched
    FROM ordered o
    JOIN spans s USING (device)
    LEFT JOIN launch_ends l ON l.device_index = o.device_index AND l.kernel_start_ns = o.start_ns
    WHERE o.is_kernel AND o.start_ns > coalesce(o.earlier_end, s.span_start)
    UNION ALL
    SELECT device, coalesce(last_kernel_end, span_start), span_end, NULL, NULL,
           coalesce((SELECT max(p.end_ns) FROM pieces p WHERE p.device = s.device)
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
    ASOF LEFT JOIN pieces a ON a.device = g.device AND a.start_ns <= g.start_ns
    ASOF LEFT JOIN pieces c ON c.device = g.device AND c.start_ns <= g.launch_end_in_ns
    ASOF LEFT JOIN pieces b ON b.device = g.device AND b.start_ns <= g.end_ns
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
)
SELECT device, start_ns, end_ns, next_kernel_start_ns, memory_transfer_ns, synchronization_ns, cpu_launch_ns,
       end_ns - start_ns - memory_transfer_ns - synchronization_ns - cpu_launch_ns AS other_ns
FROM caused;
