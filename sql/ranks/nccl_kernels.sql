-- The kernels of ranks.kernels that run an NCCL collective, with the columns the clock estimate and the
-- collective skew read of them: gathered from every rank's store (ranks.gathered_nccl_kernels). Only these travel
-- from a rank's worker: a rank of 2M kernels has some 500k collective kernels, and their names would be most of it
-- (so would a duration, which end minus start gives).
-- requires: ranks.kernels
-- access: public
-- returns: rows
--   rank        INTEGER  rank number
--   start_ns    BIGINT   kernel start, the rank's own clock (ns)
--   end_ns      BIGINT   kernel end (ns)
--   collective  VARCHAR  NCCL collective it runs
--   ordinal     INTEGER  1.. per rank and collective in start order
SELECT rank, start_ns, end_ns, collective, CAST(ordinal AS INTEGER) AS ordinal
FROM rank_kernels WHERE collective IS NOT NULL ORDER BY rank, collective, ordinal
