-- How much of each device's communication runs while it computes. Per device, the union of its communication
-- kernels' intervals (time_ns) and the part of it during which some other kernel of the same device runs
-- (overlapped_ns; the rest is exposed): for all its communication kernels, and for those of each collective and of
-- each stream. Intervals are unions per device, never across devices. How (nsight_ingest.passes
-- .CommunicationOverlap): one pass over each device's kernels in start order, a batch at a time. A union's length
-- is the sum of the parts of its intervals past the latest end before them; the overlapped part of a group's union
-- G is |G| + |C| - |G + C|, with C the union of the device's other kernels and G + C the union of both. Only the
-- devices that communicate are read: without communication kernels there is nothing to measure.
-- requires: communication.kernels
-- computed by: nsight_ingest.passes
-- access: public
-- unique: device, breakdown, label
-- not null: breakdown, time_ns, overlapped_ns
-- returns: rows
--   device         VARCHAR  device label
--   breakdown      VARCHAR  device (all communication kernels of the device), collective or stream
--   label          VARCHAR  the collective, or the stream id as text ('none' when the export gives none); NULL for
--                           device
--   kernels        BIGINT   communication kernels
--   time_ns        BIGINT   length of the union of their intervals (ns)
--   overlapped_ns  BIGINT   of it, the time some non-communication kernel of the device runs (ns)
SELECT hash(device) AS device_key, start_ns, end_ns, is_communication,
       hash(collective) AS collective_key, hash(coalesce(CAST(stream_id AS VARCHAR), 'none')) AS stream_key
FROM communication_kernels
WHERE device IN (SELECT device FROM communication_kernels WHERE is_communication)
ORDER BY device_key, start_ns;
WITH labels AS (  -- the hashes the pass carries, back to the labels
    SELECT DISTINCT device, hash(device) AS device_key, 'collective' AS breakdown, collective AS label,
                    hash(collective) AS label_key
    FROM communication_kernels WHERE is_communication
    UNION ALL
    SELECT DISTINCT device, hash(device), 'stream', coalesce(CAST(stream_id AS VARCHAR), 'none'),
                    hash(coalesce(CAST(stream_id AS VARCHAR), 'none'))
    FROM communication_kernels WHERE is_communication
    UNION ALL
    SELECT DISTINCT device, hash(device), 'device', NULL, 0 FROM communication_kernels WHERE is_communication
)
SELECT l.device, p.breakdown::VARCHAR AS breakdown, l.label, p.kernels, p.time_ns, p.overlapped_ns
FROM communication_overlap_pass p JOIN labels l USING (device_key, breakdown, label_key)
ORDER BY l.device, p.breakdown = 'device' DESC, p.breakdown, p.time_ns DESC, l.label
