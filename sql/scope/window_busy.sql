-- How busy the window's kernels kept the GPU inside an NVTX window's ranges: the ranges' count, summed duration
-- and the length of their union (nested or concurrent ranges overlap), and the length of the union of the window's
-- kernel intervals clipped to the union of its ranges. Summed kernel time can exceed the range time (kernels of
-- several streams at once, kernels still running after their range ended on the CPU); this union cannot exceed
-- the ranges' union. Only the window's own kernels count, on any of its devices.
-- requires: scope.kernels, scope.window_ranges
-- access: public
-- returns: rows
--   ranges           BIGINT   ranges of the window
--   range_start_ns   BIGINT   start of the first (ns)
--   range_time_ns    HUGEINT  their summed duration (ns)
--   range_union_ns   HUGEINT  the length of their union (ns)
--   kernel_union_ns  HUGEINT  time some kernel of the window runs inside a range (ns)
WITH range_reach AS (  -- the ranges merged into disjoint intervals
    SELECT start_ns, end_ns,
           max(end_ns) OVER (ORDER BY start_ns, end_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM scope_window_ranges
),
range_starts AS (
    SELECT start_ns, end_ns, sum(CASE WHEN reach IS NULL OR start_ns > reach THEN 1 ELSE 0 END)
                                 OVER (ORDER BY start_ns, end_ns) AS piece
    FROM range_reach
),
merged AS (
    SELECT min(start_ns) AS start_ns, max(end_ns) AS end_ns FROM range_starts GROUP BY piece
),
clipped AS (
    SELECT greatest(k.start_ns, m.start_ns) AS s, least(k.end_ns, m.end_ns) AS e
    FROM scope_kernels k JOIN merged m ON k.start_ns < m.end_ns AND k.end_ns > m.start_ns
),
reach AS (
    SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM clipped
)
SELECT (SELECT count(*) FROM scope_window_ranges)             AS ranges,
       (SELECT min(start_ns) FROM scope_window_ranges)        AS range_start_ns,
       (SELECT sum(end_ns - start_ns) FROM scope_window_ranges) AS range_time_ns,
       (SELECT sum(end_ns - start_ns) FROM merged)              AS range_union_ns,
       coalesce(sum(greatest(0, e - greatest(s, coalesce(earlier_end, s)))), 0) AS kernel_union_ns
FROM reach
