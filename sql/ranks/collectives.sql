-- Each collective instance that all $ranks ranks ran (the n-th of its type on each rank), on the aligned clock: the
-- arrival skew (last start - first start), the rank that arrived last (of ranks arriving last together, the
-- lowest-numbered: the same answer whatever order the rows come in), and how long each rank waited for it.
-- requires: ranks.kernels, ranks.clock_offsets
-- access: public
-- unique: collective, rank
-- not null: collective, rank
-- returns: rows
--   collective      VARCHAR  NCCL collective
--   rank            INTEGER  rank number
--   instances       BIGINT   instances every rank ran
--   wait_ns         HUGEINT  summed time this rank waited for the last arrival (ns)
--   kernel_ns       HUGEINT  summed kernel time of this rank's instances (ns)
--   arrived_last    BIGINT   instances this rank arrived last (with a positive skew)
--   caused_wait_ns  HUGEINT  summed skew of the instances this rank arrived last (ns)
--   skew_sum_ns     HUGEINT  summed skew of the instances (ns)
--   skew_max_ns     BIGINT   largest skew (ns)
WITH instances AS (
    SELECT k.collective, k.ordinal, k.rank, k.start_ns + o.offset_ns AS arrival_ns, k.duration_ns
    FROM rank_kernels k JOIN rank_offsets o USING (rank)
    WHERE k.collective IS NOT NULL
),
complete AS (
    SELECT collective, ordinal FROM instances GROUP BY ALL HAVING count(DISTINCT rank) = $ranks
),
judged AS (
    SELECT i.*, max(i.arrival_ns) OVER w - min(i.arrival_ns) OVER w AS skew_ns,
           arg_max(i.rank, [i.arrival_ns, -i.rank]) OVER w AS last_rank,
           max(i.arrival_ns) OVER w - i.arrival_ns AS wait_ns
    FROM instances i JOIN complete USING (collective, ordinal)
    WINDOW w AS (PARTITION BY i.collective, i.ordinal)
)
SELECT collective, rank, count(*) AS instances, sum(wait_ns) AS wait_ns, sum(duration_ns) AS kernel_ns,
       count(*) FILTER (WHERE last_rank = rank AND skew_ns > 0) AS arrived_last,
       coalesce(sum(skew_ns) FILTER (WHERE last_rank = rank), 0) AS caused_wait_ns,
       sum(skew_ns) AS skew_sum_ns, max(skew_ns) AS skew_max_ns
FROM judged
GROUP BY collective, rank
ORDER BY collective, rank
