-- First kernel start and last kernel end of each rank on its own clock: shifted by the ranks' clock offsets, the
-- earliest start and latest end over every rank are the aligned span.
-- requires: ranks.kernels
-- access: public
-- unique: rank
-- not null: rank
-- returns: rows
--   rank            INTEGER  rank number
--   first_start_ns  BIGINT   first kernel start, the rank's clock (ns)
--   last_end_ns     BIGINT   last kernel end, the rank's clock (ns)
SELECT rank, min(start_ns) AS first_start_ns, max(end_ns) AS last_end_ns
FROM rank_kernels
GROUP BY rank
ORDER BY rank
