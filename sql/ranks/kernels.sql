-- Kernels of every rank with their NCCL collective and, per rank and collective, their order (ordinal).
-- Operations with a negative duration or one over max_duration_ns() are left out.
-- requires: ranks.sources, common.max_duration, common.nccl_collective
-- access: private
-- creates: rank_kernels
--   rank         INTEGER  rank number
--   stream_id    BIGINT   CUDA stream
--   start_ns     BIGINT   kernel start, the rank's own clock (ns)
--   end_ns       BIGINT   kernel end (ns)
--   duration_ns  BIGINT   kernel duration (ns)
--   name         VARCHAR  kernel name
--   collective   VARCHAR  NCCL collective it runs (nccl_collective); NULL for other kernels
--   ordinal      BIGINT   1.. per rank and collective in start order; NULL for other kernels
CREATE OR REPLACE TEMP TABLE rank_kernels AS
WITH named AS MATERIALIZED (  -- each name's collective worked out once: its regular expressions cost more per row
                              -- than the rest of the table
    SELECT name, nccl_collective(name) AS collective
    FROM (SELECT DISTINCT k.name FROM rank_sources r JOIN kernels k ON k.trace_id = r.trace_id)
),
kept AS (
    SELECT r.rank, k.stream_id, k.start_ns, k.end_ns, k.duration_ns, k.name, n.collective
    FROM rank_sources r
    JOIN kernels k ON k.trace_id = r.trace_id AND coalesce(k.device, '(no device)') = r.device
    JOIN named n ON n.name = k.name
    WHERE k.duration_ns BETWEEN 0 AND max_duration_ns()
      AND (r.window_start_ns IS NULL OR (k.start_ns >= r.window_start_ns AND k.start_ns < r.window_end_ns))
)
SELECT *, row_number() OVER (PARTITION BY rank, collective ORDER BY start_ns, end_ns) AS ordinal
FROM kept WHERE collective IS NOT NULL
UNION ALL  -- the other kernels apart: a window over them would sort them for nothing
SELECT *, NULL FROM kept WHERE collective IS NULL;
