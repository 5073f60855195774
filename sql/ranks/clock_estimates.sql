-- Clock offset of each rank against rank $reference: matching collectives (the n-th of a type on each rank)
-- finish together, so offset = median of (reference end - rank end); residual = MAD of those differences.
-- requires: ranks.kernels
-- access: public
-- unique: rank
-- not null: rank
-- returns: rows
--   rank                 INTEGER  rank number
--   offset_ns            BIGINT   estimated offset to the reference's clock (ns)
--   residual_ns          DOUBLE   MAD of the matched differences (ns)
--   matched_collectives  BIGINT   collectives matched with the reference
WITH nccl AS (
    SELECT rank, collective, ordinal, end_ns FROM rank_kernels WHERE collective IS NOT NULL
),
shifts AS (
    SELECT n.rank, ref.end_ns - n.end_ns AS shift_ns
    FROM nccl n JOIN nccl ref ON ref.rank = $reference AND ref.collective = n.collective AND ref.ordinal = n.ordinal
)
SELECT rank, CAST(round(median(shift_ns)) AS BIGINT) AS offset_ns, mad(shift_ns) AS residual_ns,
       count(*) AS matched_collectives
FROM shifts
GROUP BY rank
ORDER BY rank
