-- Positive GPU idle gaps between kernels counted in logarithmic bins of their length, per device and over all
-- devices (device NULL): $per_decade bins per power of ten, bin k holding the gaps of 10^(k/$per_decade) ns up to
-- (not including) 10^((k+1)/$per_decade) ns. Only bins holding a gap have a row.
-- requires: launches.kernel_gaps
-- returns: rows
--   device    device label; NULL for every device together
--   bin       bin number k: floor(log10(gap) x $per_decade)
--   low_ns    the bin's lower edge, 10^(k/$per_decade) (ns)
--   high_ns   its upper edge, 10^((k+1)/$per_decade) (ns)
--   gaps      gaps in the bin
--   total_ns  their summed length (ns)
WITH binned AS (
    SELECT device, gap_ns, floor(log10(gap_ns) * $per_decade)::BIGINT AS bin
    FROM kernel_gaps
    WHERE gap_ns > 0
),
scopes AS (
    SELECT device, bin, gap_ns FROM binned
    UNION ALL
    SELECT NULL, bin, gap_ns FROM binned
)
SELECT device, bin, pow(10, bin / $per_decade) AS low_ns, pow(10, (bin + 1) / $per_decade) AS high_ns,
       count(*) AS gaps, sum(gap_ns)::BIGINT AS total_ns
FROM scopes
GROUP BY device, bin
ORDER BY device NULLS FIRST, bin
