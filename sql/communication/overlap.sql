-- How much of each device's communication runs while it computes. Per device, the union of its communication
-- kernels' intervals (time_ns) and the part of it during which some other kernel of the same device runs
-- (overlapped_ns; the rest is exposed): for all its communication kernels, and for those of each collective and of
-- each stream. Intervals are unions per device, never across devices. How: in start order, the part of each
-- interval past the latest end before it is new; the new parts are disjoint and make up the union. With C(t) the
-- compute time before instant t (the new parts of the other kernels starting at or before t, less what the latest
-- of them runs after t), the compute time within a new part [a, b) of communication is C(b) - C(a): one sort of the
-- compute parts and the instants communication parts start or end at gives every C needed.
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
communication_parts AS MATERIALIZED (  -- each kernel's part past the latest end of the group's kernels before it (may be empty)
    SELECT device, breakdown, label, end_ns,
           greatest(start_ns, coalesce(max(end_ns) OVER (PARTITION BY device, breakdown, label ORDER BY start_ns, end_ns
                                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), start_ns))
               AS start_ns
    FROM communication
),
compute_parts AS (  -- likewise, of the other kernels of the devices that communicate
    SELECT device, end_ns,
           greatest(start_ns, coalesce(max(end_ns) OVER (PARTITION BY device ORDER BY start_ns, end_ns
                                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), start_ns))
               AS start_ns
    FROM communication_kernels k
    SEMI JOIN (SELECT DISTINCT device FROM communication) c ON c.device = k.device
    WHERE NOT k.is_communication
),
instants AS (  -- the instants a communication part starts or ends at
    SELECT device, start_ns AS t FROM communication_parts WHERE end_ns > start_ns
    UNION
    SELECT device, end_ns FROM communication_parts WHERE end_ns > start_ns
),
computed AS (  -- C(t) at each of them: the compute parts up to t, less what the latest of them runs after t
    SELECT device, t,
           coalesce(sum(end_ns - start_ns) OVER w - greatest(0, max(end_ns) OVER w - t), 0) AS compute_before_ns
    FROM (SELECT device, start_ns AS t, true AS is_compute, start_ns, end_ns FROM compute_parts WHERE end_ns > start_ns
          UNION ALL
          SELECT device, t, false, NULL, NULL FROM instants)
    WINDOW w AS (PARTITION BY device ORDER BY t, is_compute DESC ROWS UNBOUNDED PRECEDING)
    QUALIFY NOT is_compute
),
overlapped AS (
    SELECT p.device, p.breakdown, p.label, sum(b.compute_before_ns - a.compute_before_ns) AS overlapped_ns
    FROM communication_parts p
    JOIN computed a ON a.device = p.device AND a.t = p.start_ns
    JOIN computed b ON b.device = p.device AND b.t = p.end_ns
    WHERE p.end_ns > p.start_ns
    GROUP BY ALL
)
SELECT p.device, p.breakdown, p.label, count(*) AS kernels, sum(greatest(0, p.end_ns - p.start_ns)) AS time_ns,
       coalesce(any_value(o.overlapped_ns), 0) AS overlapped_ns
FROM communication_parts p
LEFT JOIN overlapped o
       ON o.device = p.device AND o.breakdown = p.breakdown AND o.label IS NOT DISTINCT FROM p.label
GROUP BY p.device, p.breakdown, p.label
ORDER BY p.device, p.breakdown = 'device' DESC, p.breakdown, time_ns DESC, p.label
