-- Every kernel of the scope, by its dialect-neutral key (kernel_key), for matching the kernels of two captures:
-- names that share a key (the same kernel spelt by nsys, ncu or Kineto) are one kernel.
-- requires: classify.class_times, classify.kernel_families, common.kernel_key
-- access: public
-- unique: kernel_key
-- not null: kernel_key, launches, total_ns
-- returns: rows
--   kernel_key  VARCHAR  kernel_key of the name
--   name        VARCHAR  the name (the first by name order when several share the key)
--   short_name  VARCHAR  its short name
--   family      VARCHAR  its kernel family
--   launches    HUGEINT  kernels
--   total_ns    HUGEINT  their summed duration (ns)
SELECT kernel_key(f.name) AS kernel_key, min(f.name) AS name, arg_min(f.short_name, f.name) AS short_name,
       arg_min(f.family, f.name) AS family, sum(t.launches) AS launches, sum(t.time_ns) AS total_ns
FROM class_times t
JOIN kernel_families f USING (name_id)
GROUP BY kernel_key(f.name)
ORDER BY kernel_key
