-- When no kernel runs on a device of the capture, and why. Each device's span (its first operation's start to its
-- last operation's end; every operation of the capture, whatever the scope's window: the GPU is idle when nothing
-- at all runs on it) is cut at every start and end of its kernels, memcpys and memsets and of the host
-- synchronization calls of its processes; the pieces in which no kernel runs are kept, and each of their
-- nanoseconds gets exactly one cause, the first of these that holds:
--   1. memory transfer: a memcpy or memset of the device runs;
--   2. synchronization: a host synchronization call (is_host_sync_call) of one of the device's processes
--      (scope.device_processes) is in progress: the GPU has finished and the host has not yet noticed;
--   3. CPU launch: the launch call of the device's next kernel has not yet returned: the GPU waits for the CPU
--      (of several kernels starting together, the call that returned first);
--   4. other: the next kernel was submitted and has not started (dependencies, queueing, other devices).
-- Without API calls (no cuda_api_trace) no time is synchronization; without launch rows no time is CPU launch: the
-- analyses then report those causes as unknown. The segments of a device's idle time between two kernels are those
-- with the later kernel's start as next_kernel_start_ns.
-- requires: scope.capture_ops, scope.capture_api_calls, scope.capture_launches
-- requires: scope.device_processes, common.host_sync_call
-- creates: idle_segments
--   device                device label
--   start_ns              segment start (ns)
--   end_ns                segment end (ns)
--   next_kernel_start_ns  start of the device's next kernel (ns); NULL after its last kernel
--   memory_transfer_ns    the segment's time when a memcpy or memset runs (ns)
--   synchronization_ns    its time when, else, a host synchronization call is in progress (ns)
--   cpu_launch_ns         its time when, else, the next kernel's launch call has not returned (ns)
--   other_ns              the rest of its time (ns)
CREATE OR REPLACE TEMP TABLE idle_segments AS
WITH spans AS (
    SELECT device, min(start_ns) AS span_start, max(end_ns) AS span_end FROM capture_ops GROUP BY device
),
syncs AS (  -- clipped to the device's span
    SELECT s.device, greatest(c.start_ns, s.span_start) AS start_ns, least(c.end_ns, s.span_end) AS end_ns
    FROM capture_api_calls c
    JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    JOIN spans s ON s.device = p.device
    WHERE is_host_sync_call(c.name) AND c.start_ns < s.span_end AND c.end_ns > s.span_start
),
events AS (  -- +1 when something starts, -1 when it ends: kernels, memory operations, synchronization calls
    SELECT device, start_ns AS t, 1 AS kernels, 0 AS memory_ops, 0 AS sync_calls FROM capture_ops WHERE op_kind = 'kernel'
    UNION ALL SELECT device, end_ns, -1, 0, 0 FROM capture_ops WHERE op_kind = 'kernel'
    UNION ALL SELECT device, start_ns, 0, 1, 0 FROM capture_ops WHERE op_kind IN ('memcpy', 'memset')
    UNION ALL SELECT device, end_ns, 0, -1, 0 FROM capture_ops WHERE op_kind IN ('memcpy', 'memset')
    UNION ALL SELECT device, start_ns, 0, 0, 1 FROM syncs
    UNION ALL SELECT device, end_ns, 0, 0, -1 FROM syncs
    UNION ALL SELECT device, span_start, 0, 0, 0 FROM spans
    UNION ALL SELECT device, span_end, 0, 0, 0 FROM spans
),
points AS (
    SELECT device, t, sum(kernels) AS kernels, sum(memory_ops) AS memory_ops, sum(sync_calls) AS sync_calls
    FROM events GROUP BY device, t
),
running AS (  -- from each instant to the next: what runs
    SELECT device, t AS start_ns, lead(t) OVER w AS end_ns, sum(kernels) OVER w AS kernels,
           sum(memory_ops) OVER w AS memory_ops, sum(sync_calls) OVER w AS sync_calls
    FROM points
    WINDOW w AS (PARTITION BY device ORDER BY t)
),
idle AS (
    SELECT device, start_ns, end_ns, memory_ops, sync_calls FROM running WHERE kernels = 0 AND end_ns > start_ns
),
launch_ends AS (
    SELECT device_index, kernel_start_ns, min(api_end_ns) AS launch_end_ns FROM capture_launches GROUP BY ALL
),
kernel_starts AS (  -- per device and instant a kernel starts: when the first launch call of one returned
    SELECT k.device, k.start_ns, min(l.launch_end_ns) AS launch_end_ns
    FROM capture_ops k
    LEFT JOIN launch_ends l ON l.device_index = coalesce(k.device_index, 0) AND l.kernel_start_ns = k.start_ns
    WHERE k.op_kind = 'kernel'
    GROUP BY ALL
),
caused AS (
    SELECT i.device, i.start_ns, i.end_ns, n.start_ns AS next_kernel_start_ns, i.end_ns - i.start_ns AS length_ns,
           CASE WHEN i.memory_ops > 0 THEN i.end_ns - i.start_ns ELSE 0 END AS memory_transfer_ns,
           CASE WHEN i.memory_ops = 0 AND i.sync_calls > 0 THEN i.end_ns - i.start_ns ELSE 0 END AS synchronization_ns,
           CASE WHEN i.memory_ops = 0 AND i.sync_calls = 0
                THEN greatest(0, least(i.end_ns, coalesce(n.launch_end_ns, i.start_ns)) - i.start_ns) ELSE 0 END
               AS cpu_launch_ns
    FROM idle i
    ASOF LEFT JOIN kernel_starts n ON n.device = i.device AND n.start_ns >= i.end_ns
)
SELECT device, start_ns, end_ns, next_kernel_start_ns, memory_transfer_ns, synchronization_ns, cpu_launch_ns,
       length_ns - memory_transfer_ns - synchronization_ns - cpu_launch_ns AS other_ns
FROM caused;
