-- The pieces of each device's span in which a memory operation runs or, else, a host synchronization call of one
-- of its processes (scope.device_processes) is in progress: the memory operations and synchronization calls
-- merged into runs of one cause each (memory first), each carrying the time of each cause in the pieces before it,
-- so that the time of a cause within [a, b) is its time before b minus its time before a (idle.stretches). Over
-- the whole capture, whatever the scope's window; synchronization calls are clipped to the device's span.
-- requires: scope.capture_ops, scope.capture_api_calls, scope.device_processes, common.host_sync_call
-- access: private
-- creates: idle_pieces
--   device         VARCHAR  device label
--   start_ns       BIGINT   piece start (ns)
--   end_ns         BIGINT   piece end (ns)
--   is_memory      BOOLEAN  true when a memcpy or memset runs in it; false: a synchronization call is in progress
--   memory_before  HUGEINT  memory-transfer time of the device's earlier pieces (ns)
--   sync_before    HUGEINT  synchronization time of the device's earlier pieces (ns)
CREATE OR REPLACE TEMP TABLE idle_pieces AS
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
)
SELECT device, start_ns, end_ns, memory_ops > 0 AS is_memory,
       coalesce(sum(CASE WHEN memory_ops > 0 THEN end_ns - start_ns ELSE 0 END) OVER earlier, 0) AS memory_before,
       coalesce(sum(CASE WHEN memory_ops > 0 THEN 0 ELSE end_ns - start_ns END) OVER earlier, 0) AS sync_before
FROM running
WHERE (memory_ops > 0 OR sync_calls > 0) AND end_ns > start_ns
WINDOW earlier AS (PARTITION BY device ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
