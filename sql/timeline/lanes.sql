-- The lane and depth of each slice of a track whose slices do not follow one another (NVTX ranges that nest,
-- kernels of one stream that overlap). Slices on one lane nest or follow each other: in slice_row order, a slice
-- goes to the first lane where it nests in the open slice or follows it (nsight_ingest.passes.lanes). A track is
-- the slices of one kind and one device and stream, or one process and thread. The slices of every other track
-- lie on lane 0 at depth 0 and have no row here.
-- requires: timeline.slice_times
-- computed by: nsight_ingest.passes
-- access: private
-- unique: kind, slice_row
-- not null: kind, slice_row, lane, depth
-- creates: timeline_lanes
--   kind       VARCHAR  the slice's table (timeline_slice_times.kind)
--   slice_row  BIGINT   its slice_row there
--   lane       BIGINT   its lane (0: the track's own; n: its n-th lane of overlapping slices)
--   depth      BIGINT   its nesting depth on the lane (0: outermost)
WITH reach AS (
    SELECT kind, device, stream_id, pid, tid, start_ns,
           max(end_ns) OVER (PARTITION BY kind, device, stream_id, pid, tid ORDER BY slice_row
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM timeline_slice_times
),
crossing AS (  -- the tracks where a slice starts before an earlier one ended, numbered
    SELECT row_number() OVER () AS track, *
    FROM (SELECT DISTINCT kind, device, stream_id, pid, tid FROM reach WHERE start_ns < earlier_end)
)
SELECT t.kind, c.track, t.slice_row, t.start_ns, t.end_ns
FROM timeline_slice_times t
JOIN crossing c
  ON c.kind = t.kind AND c.device IS NOT DISTINCT FROM t.device AND c.stream_id IS NOT DISTINCT FROM t.stream_id
 AND c.pid IS NOT DISTINCT FROM t.pid AND c.tid IS NOT DISTINCT FROM t.tid
ORDER BY c.track, t.slice_row;
-- kind typed here: with no overlapping slices the pass's column has no rows to take a type from
CREATE OR REPLACE TEMP TABLE timeline_lanes AS
SELECT kind::VARCHAR AS kind, slice_row, lane, depth FROM timeline_lanes_pass;
