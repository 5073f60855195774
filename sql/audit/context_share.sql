-- The part of the scope's kernel time whose class a context (neighbour) rule decided.
-- requires: scope.kernels, classify.kernel_classes
-- access: public
-- returns: rows
--   launches_by_context  BIGINT   kernels a context rule classified
--   time_by_context_ns   HUGEINT  their time (ns)
--   launches             BIGINT   kernels
--   time_ns              HUGEINT  kernel time (ns)
SELECT count(*) FILTER (WHERE c.by_context)                         AS launches_by_context,
       coalesce(sum(k.duration_ns) FILTER (WHERE c.by_context), 0)  AS time_by_context_ns,
       count(*)                                                      AS launches,
       sum(k.duration_ns)                                            AS time_ns
FROM scope_kernels k
JOIN kernel_classes c USING (context_key)
