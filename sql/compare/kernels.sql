-- Every kernel of the scope, by its dialect-neutral key (kernel_key), for matching the kernels of two captures:
-- names that share a key (the same kernel spelt by nsys, ncu or Kineto) are one kernel.
-- requires: classify.class_times, classify.kernel_families, common.kernel_key
-- returns: rows
--   kernel_key  kernel_key of the name
--   name        the name (the first by name order when several share the key)
--   short_name  its short name
--   family      its kernel family
--   launches    kernels
--   total_ns    their summed duration (ns)
SELECT kernel_key(f.name) AS kernel_key, min(f.name) AS name, arg_min(f.short_name, f.name) AS short_name,
       arg_min(f.family, f.name) AS family, sum(t.launches) AS launches, sum(t.time_ns) AS total_ns
FROM class_times t
JOIN kernel_families f USING (name_id)
GROUP BY kernel_key(f.name)
ORDER BY kernel_key
