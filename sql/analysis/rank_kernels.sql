-- Kernels of every rank (temp table rank_sources: rank, trace_id, device, window_start_ns, window_end_ns in the
-- rank's own clock) with their NCCL collective and, per rank and collective, their order (ordinal).
CREATE OR REPLACE TEMP TABLE rank_kernels AS
SELECT r.rank, k.start_ns, k.end_ns, k.duration_ns, k.name, nccl_collective(k.name) AS collective,
       CASE WHEN nccl_collective(k.name) IS NOT NULL THEN
           row_number() OVER (PARTITION BY r.rank, nccl_collective(k.name) ORDER BY k.start_ns, k.end_ns)
       END AS ordinal
FROM rank_sources r
JOIN kernels k ON k.trace_id = r.trace_id AND coalesce(k.device, '(no device)') = r.device
WHERE k.duration_ns BETWEEN 0 AND max_duration_ns()
  AND (r.window_start_ns IS NULL OR (k.start_ns >= r.window_start_ns AND k.start_ns < r.window_end_ns));
