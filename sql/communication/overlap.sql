-- How much of each device's communication runs while it computes. Per device, the union of its communication
-- kernels' intervals (time_ns) and the part of it during which some other kernel of the same device runs
-- (overlapped_ns; the rest is exposed): for all its communication kernels, and for those of each collective and of
-- each stream. Intervals are unions per device, never across devices.
-- requires: communication.kernels
-- returns: rows
--   device         device label
--   breakdown      device (all communication kernels of the device), collective or stream
--   label          the collective, or the stream id as text ('none' when the export gives none); NULL for device
--   kernels        communication kernels
--   time_ns        length of the union of their intervals (ns)
--   overlapped_ns  of it, the time some non-communication kernel of the device runs (ns)
WITH communication AS (
    SELECT device, 'device' AS breakdown, NULL::VARCHAR AS label, start_ns, end_ns
    FROM communication_kernels WHERE is_communication
    UNION ALL
    SELECT device, 'collective', collective, start_ns, end_ns FROM communication_kernels WHERE is_communication
    UNION ALL
    SELECT device, 'stream', coalesce(CAST(stream_id AS VARCHAR), 'none'), start_ns, end_ns
    FROM communication_kernels WHERE is_communication
),
groups AS (
    SELECT device, breakdown, label, count(*) AS kernels FROM communication GROUP BY ALL
),
compute AS (  -- the other kernels of the devices that communicate, merged into disjoint pieces (each group's sweep
              -- gets a copy of them: fewer pieces than kernels)
    SELECT device, start_ns, end_ns,
           max(end_ns) OVER (PARTITION BY device ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM communication_kernels
    WHERE NOT is_communication AND device IN (SELECT device FROM groups)
),
pieces AS (
    SELECT device, min(start_ns) AS start_ns, max(end_ns) AS end_ns
    FROM (SELECT *, sum(CASE WHEN reach IS NULL OR start_ns > reach THEN 1 ELSE 0 END)
                        OVER (PARTITION BY device ORDER BY start_ns, end_ns) AS piece
          FROM compute)
    GROUP BY device, piece
),
events AS (  -- per group: +1/-1 as its communication kernels and the device's compute pieces start and end
    SELECT device, breakdown, label, start_ns AS t, 1 AS communicating, 0 AS computing FROM communication
    UNION ALL SELECT device, breakdown, label, end_ns, -1, 0 FROM communication
    UNION ALL SELECT g.device, g.breakdown, g.label, p.start_ns, 0, 1 FROM pieces p JOIN groups g USING (device)
    UNION ALL SELECT g.device, g.breakdown, g.label, p.end_ns, 0, -1 FROM pieces p JOIN groups g USING (device)
),
points AS (
    SELECT device, breakdown, label, t, sum(communicating) AS communicating, sum(computing) AS computing
    FROM events GROUP BY ALL
),
running AS (
    SELECT device, breakdown, label, lead(t) OVER w - t AS length_ns, sum(communicating) OVER w AS communicating,
           sum(computing) OVER w AS computing
    FROM points
    WINDOW w AS (PARTITION BY device, breakdown, label ORDER BY t)
),
measured AS (
    SELECT device, breakdown, label,
           coalesce(sum(length_ns) FILTER (WHERE communicating > 0), 0) AS time_ns,
           coalesce(sum(length_ns) FILTER (WHERE communicating > 0 AND computing > 0), 0) AS overlapped_ns
    FROM running GROUP BY ALL
)
SELECT g.device, g.breakdown, g.label, g.kernels, m.time_ns, m.overlapped_ns
FROM groups g
JOIN measured m
  ON m.device = g.device AND m.breakdown = g.breakdown AND m.label IS NOT DISTINCT FROM g.label
ORDER BY g.device, g.breakdown = 'device' DESC, g.breakdown, m.time_ns DESC, g.label
