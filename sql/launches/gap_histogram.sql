-- Positive GPU idle gaps between kernels counted in logarithmic bins of their length, per device and over all
-- devices (device NULL): $per_decade bins per power of ten, bin k holding the gaps of 10^(k/$per_decade) ns up to
-- (not including) 10^((k+1)/$per_decade) ns. Every scope has a row for every bin from the shortest gap's to the
-- longest gap's of the whole capture, empty bins too (gaps 0): the shape of the histogram is the data's, and the
-- devices' bins line up.
-- requires: launches.kernel_gaps
-- access: public
-- unique: device, bin
-- not null: bin, low_ns, high_ns, gaps, total_ns
-- returns: rows
--   device    VARCHAR  device label; NULL for every device together
--   bin       BIGINT   bin number k: floor(log10(gap) x $per_decade)
--   low_ns    DOUBLE   the bin's lower edge, 10^(k/$per_decade) (ns)
--   high_ns   DOUBLE   its upper edge, 10^((k+1)/$per_decade) (ns)
--   gaps      BIGINT   gaps in the bin
--   total_ns  BIGINT   their summed length (ns)
WITH binned AS (
    SELECT device, gap_ns, floor(log10(gap_ns) * $per_decade)::BIGINT AS bin
    FROM kernel_gaps
    WHERE gap_ns > 0
),
scopes AS (
    SELECT device, bin, gap_ns FROM binned
    UNION ALL
    SELECT NULL, bin, gap_ns FROM binned
),
counted AS (
    SELECT device, bin, count(*) AS gaps, sum(gap_ns)::BIGINT AS total_ns FROM scopes GROUP BY device, bin
),
every_bin AS (
    SELECT d.device, b.bin
    FROM (SELECT DISTINCT device FROM counted) d,
         (SELECT unnest(range(min(bin), max(bin) + 1)) AS bin FROM binned) b
)
SELECT e.device, e.bin, pow(10, e.bin / $per_decade) AS low_ns, pow(10, (e.bin + 1) / $per_decade) AS high_ns,
       coalesce(c.gaps, 0) AS gaps, coalesce(c.total_ns, 0) AS total_ns
FROM every_bin e
LEFT JOIN counted c ON c.device IS NOT DISTINCT FROM e.device AND c.bin = e.bin
ORDER BY e.device NULLS FIRST, e.bin
