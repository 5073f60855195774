-- The launch flows of a timeline cut at $before_ns: those it writes (its launch call and its kernel both happen
-- before the cut) and those it leaves out for want of one end.
-- requires: timeline.gpu_slices, timeline.launch_flows
-- access: public
-- returns: rows
--   written_flows  BIGINT    flows whose launch call and kernel both happen before the cut
--   split_flows    BIGINT[]  flow_id of each flow with one end before the cut and the other at or after it
WITH ends AS (
    SELECT g.flow_id, g.launch_or_start_ns < $before_ns AS kernel_kept, f.api_start_ns < $before_ns AS call_kept
    FROM timeline_gpu_slices g
    JOIN timeline_launch_flows f USING (flow_id)
)
SELECT count(*) FILTER (WHERE kernel_kept AND call_kept) AS written_flows,
       coalesce(list(flow_id ORDER BY flow_id) FILTER (WHERE kernel_kept <> call_kept), []) AS split_flows
FROM ends
