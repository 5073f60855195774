-- The part of the scope's kernel time whose class a context (neighbour) rule decided.
-- requires: scope.kernels, classify.kernel_classes
-- returns: rows
--   launches_by_context  kernels a context rule classified
--   time_by_context_ns   their time (ns)
--   launches             kernels
--   time_ns              kernel time (ns)
SELECT count(*) FILTER (WHERE c.by_context)                         AS launches_by_context,
       coalesce(sum(k.duration_ns) FILTER (WHERE c.by_context), 0)  AS time_by_context_ns,
       count(*)                                                      AS launches,
       sum(k.duration_ns)                                            AS time_ns
FROM scope_kernels k
JOIN kernel_classes c USING (context_key)
