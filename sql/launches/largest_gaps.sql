-- The $top largest GPU idle gaps with the kernel that ended last before each and the kernel after it.
-- requires: launches.kernel_gaps, classify.kernel_classes
-- returns: rows
--   gap_ns            gap length (ns)
--   device            device label
--   stream_id         stream of the kernel after the gap
--   gap_start_ns      when the GPU went idle (ns)
--   gap_end_ns        when the next kernel started (ns)
--   before            name of the kernel that ended last before the gap
--   before_component  its component
--   after             name of the kernel after the gap
--   after_component   its component
WITH top AS (
    SELECT * FROM kernel_gaps WHERE gap_ns > 0 ORDER BY gap_ns DESC, start_ns LIMIT $top
)
SELECT t.gap_ns, t.device, t.stream_id, t.earlier_end_ns AS gap_start_ns, t.start_ns AS gap_end_ns,
       b.name AS before, b.component AS before_component,
       a.name AS after, a.component AS after_component
FROM top t
JOIN kernel_classes b ON b.context_key = t.before_key
JOIN kernel_classes a ON a.context_key = t.context_key
ORDER BY t.gap_ns DESC, t.start_ns
