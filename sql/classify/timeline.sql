-- Launch gaps and CPU-GPU launch overlap of the scope (every device, or the one named $device), from one sort.
-- Intervals of both kinds are ordered by start. For each interval, the running maximum end of the earlier
-- intervals of its kind (and of either kind) gives:
--   * launch gaps: for a kernel, start - latest earlier kernel end when positive (GPU idle before it; zero or
--     negative when it touches or overlaps an earlier kernel);
--   * union lengths: sum of max(0, end - max(start, latest earlier end)), per kind and for either kind;
--   * overlap: |API n kernels| = |API| + |kernels| - |API u kernels|.
-- API intervals are [API Start, API Start + API Dur] of the kern_exec trace; only kernels count, not memcpy/memset.
-- With $device NULL the gap columns merge every device into one timeline: per-device gaps come from the rows of
-- each device (classify sums them); the all-device row serves the launch overlap.
-- requires: scope.kernels, scope.launches
-- returns: rows
--   positive_gap_count  kernels that start after every earlier kernel (of $device, or of any device) ended
--   gap_total_ns        summed positive gaps (ns)
--   gap_maximum_ns      largest gap (ns)
--   api_union_ns        length of the union of launch-call intervals (ns); NULL without launch rows
--   kernel_union_ns     length of the union of kernel intervals (ns)
--   either_union_ns     length of the union of both (ns)
WITH device_kernels AS (
    SELECT coalesce(device_index, 0) AS device_index, start_ns, end_ns
    FROM scope_kernels WHERE $device IS NULL OR device = $device
),
intervals AS (
    SELECT false AS is_api, start_ns AS s, end_ns AS e FROM device_kernels
    UNION ALL
    SELECT true, api_start_ns, api_end_ns
    FROM scope_launches
    WHERE $device IS NULL OR device_index IN (SELECT DISTINCT device_index FROM device_kernels)
),
reach AS (
    SELECT is_api, s, e,
           max(e) FILTER (WHERE NOT is_api) OVER earlier AS kernel_end,
           max(e) FILTER (WHERE is_api) OVER earlier     AS api_end,
           max(e) OVER earlier                           AS either_end
    FROM intervals
    WINDOW earlier AS (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
gaps AS (
    SELECT *, CASE WHEN NOT is_api AND s > kernel_end THEN s - kernel_end END AS gap_ns FROM reach
)
SELECT
    count(gap_ns)                                                                             AS positive_gap_count,
    coalesce(sum(gap_ns), 0)                                                                  AS gap_total_ns,
    coalesce(max(gap_ns), 0)                                                                  AS gap_maximum_ns,
    sum(greatest(0, e - greatest(s, coalesce(api_end, s)))) FILTER (WHERE is_api)             AS api_union_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(kernel_end, s)))) FILTER (WHERE NOT is_api), 0)
                                                                                              AS kernel_union_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(either_end, s)))), 0)                   AS either_union_ns
FROM gaps
