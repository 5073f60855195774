-- The $count earliest times at which the timeline's slices happen as a cut takes them, in order: where a timeline
-- over its event limit is cut lies among them.
-- requires: timeline.slice_times
-- access: public
-- returns: rows
--   cut_ns  BIGINT  timeline_slice_times.cut_ns (ns)
SELECT cut_ns FROM timeline_slice_times ORDER BY cut_ns LIMIT $count
