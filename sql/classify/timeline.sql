-- Launch gaps and CPU-GPU launch overlap of the scope (every device, or the one named $device), from one pass
-- (nsight_ingest.passes.LaunchTimeline) over the intervals in start order, a batch at a time. For each interval,
-- the running maximum end of the earlier intervals of its kind (and of either kind) gives:
--   * launch gaps: for a kernel, start - latest earlier kernel end when positive (GPU idle before it; zero or
--     negative when it touches or overlaps an earlier kernel);
--   * union lengths: sum of max(0, end - max(start, latest earlier end)), per kind and for either kind;
--   * overlap: |API n kernels| = |API| + |kernels| - |API u kernels|.
-- Intervals starting together may come in any order: none of these depends on it.
-- API intervals are [API Start, API Start + API Dur] of the kern_exec trace; only kernels count, not memcpy/memset.
-- With $device NULL the gap columns merge every device into one timeline: per-device gaps come from the rows of
-- each device (classify sums them); the all-device row serves the launch overlap.
-- requires: scope.kernels, scope.launches
-- computed by: nsight_ingest.passes
-- access: public
-- not null: positive_gap_count, gap_total_ns
-- returns: rows
--   positive_gap_count  BIGINT  kernels that start after every earlier kernel (of $device, or of any device) ended
--   gap_total_ns        BIGINT  summed positive gaps (ns)
--   gap_maximum_ns      BIGINT  largest gap (ns)
--   api_union_ns        BIGINT  length of the union of launch-call intervals (ns); NULL without launch rows
--   kernel_union_ns     BIGINT  length of the union of kernel intervals (ns)
--   either_union_ns     BIGINT  length of the union of both (ns)
WITH device_kernels AS (
    SELECT coalesce(device_index, 0) AS device_index, start_ns, end_ns
    FROM scope_kernels WHERE $device IS NULL OR device = $device
)
SELECT false AS is_api, start_ns AS s, end_ns AS e FROM device_kernels
UNION ALL
SELECT true, api_start_ns, api_end_ns
FROM scope_launches
WHERE $device IS NULL OR device_index IN (SELECT DISTINCT device_index FROM device_kernels)
ORDER BY s;
SELECT * FROM classify_timeline_pass
