-- The timeline's counter tracks: per device and time bin, the time some kernel of the device runs in the bin (the
-- union of its kernel intervals: series 'busy') and each kernel family's summed kernel time in the bin. The bins cut
-- the scope's span (its first operation's start to its last operation's end, every device alike) into at most
-- $bins bins of one width, the span over $bins rounded up to a whole ns (the last bin ends at the span's end).
-- Every bin of each series has a row, zeros too: a counter holds its value until the next sample.
-- How: the union of a device's kernels as disjoint pieces (each kernel's part past the latest end of the kernels
-- starting before it), each piece and each kernel cut at the bin edges it crosses.
-- requires: scope.ops, scope.kernels, classify.kernel_families
-- access: public
-- unique: device, family, bin_start_ns
-- not null: device, bin_start_ns, bin_ns, time_ns
-- returns: rows
--   device        VARCHAR  device label
--   family        VARCHAR  kernel family; NULL for the busy series
--   bin_start_ns  BIGINT   bin start (ns)
--   bin_ns        BIGINT   bin width (ns; the last bin may be narrower)
--   time_ns       BIGINT   busy: time some kernel of the device runs in the bin; a family: the summed time of its
--                          kernels in the bin, which several streams at once can make more than the bin (ns)
WITH span AS (
    SELECT min(start_ns) AS start_ns, max(end_ns) AS end_ns FROM scope_ops
),
grid AS (
    SELECT start_ns, end_ns, greatest(1, (end_ns - start_ns + $bins - 1) // $bins) AS width FROM span
),
bins AS (
    SELECT b.bin, g.start_ns + b.bin * g.width AS bin_start_ns,
           least(g.end_ns, g.start_ns + (b.bin + 1) * g.width) - (g.start_ns + b.bin * g.width) AS bin_ns
    FROM grid g, unnest(range(0, greatest(1, (g.end_ns - g.start_ns + g.width - 1) // g.width))) AS b(bin)
),
reach AS (
    SELECT device, start_ns, end_ns,
           max(end_ns) OVER (PARTITION BY device ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM scope_kernels
),
intervals AS (  -- the union's pieces (family NULL) and every kernel with its family
    SELECT device, NULL::VARCHAR AS family, greatest(start_ns, coalesce(earlier_end, start_ns)) AS s, end_ns AS e
    FROM reach WHERE end_ns > greatest(start_ns, coalesce(earlier_end, start_ns))
    UNION ALL
    SELECT k.device, f.family, k.start_ns, k.end_ns
    FROM scope_kernels k JOIN kernel_families f USING (name_id)
    WHERE k.end_ns > k.start_ns
),
cut AS (  -- each interval once per bin it crosses
    SELECT device, family, s, e, g0, width,
           unnest(range((s - g0) // width, (e - 1 - g0) // width + 1)) AS bin
    FROM intervals, (SELECT start_ns AS g0, width FROM grid)
),
binned AS (
    SELECT device, family, bin, sum(least(e, g0 + (bin + 1) * width) - greatest(s, g0 + bin * width)) AS time_ns
    FROM cut GROUP BY ALL
),
series AS (
    SELECT DISTINCT device, NULL::VARCHAR AS family FROM scope_ops
    UNION ALL
    SELECT DISTINCT device, family FROM intervals WHERE family IS NOT NULL
)
SELECT s.device, s.family, b.bin_start_ns, b.bin_ns, coalesce(t.time_ns, 0)::BIGINT AS time_ns
FROM series s
CROSS JOIN bins b
LEFT JOIN binned t ON t.device = s.device AND t.family IS NOT DISTINCT FROM s.family AND t.bin = b.bin
ORDER BY s.device, s.family NULLS FIRST, b.bin_start_ns
