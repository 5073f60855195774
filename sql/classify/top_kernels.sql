-- The $top kernel names with the most kernel time, per device and for the whole scope (device NULL): one row per
-- name, ranked by total time, ties by name. A name's kernels can fall in several components (context rules split
-- a name by its neighbours): `components` gives each one's time, `component` the one holding most (ties: the
-- first by component name). Medians are computed for the listed names only.
-- requires: classify.class_times, classify.kernel_families, scope.kernels, common.kernel_key
-- access: public
-- unique: device, rank
-- not null: rank, name, kernel_key, launches, total_ns
-- returns: rows
--   device      VARCHAR    device label; NULL for the whole scope
--   rank        BIGINT     1 for the name with the most time
--   name        VARCHAR    kernel name
--   short_name  VARCHAR    its short name (kernel_short_name)
--   kernel_key  VARCHAR    its dialect-neutral key (kernel_key): the same kernel in nsys, ncu and Kineto names
--   family      VARCHAR    its kernel family
--   component   VARCHAR    the component holding most of its time
--   components  STRUCT(component VARCHAR, time_ns HUGEINT)[]
--                          [{component, time_ns}] of every component holding its kernels, most time first
--   launches    HUGEINT    its kernels
--   total_ns    HUGEINT    their summed duration (ns)
--   mean_ns     DOUBLE     mean duration (ns)
--   median_ns   DOUBLE     median duration (ns), interpolated as quantile_cont
--   min_ns      BIGINT     shortest (ns)
--   max_ns      BIGINT     longest (ns)
--   devices     VARCHAR[]  the device labels it ran on, sorted
WITH per_component AS (
    SELECT grouping(device) = 1 AS whole, device, name_id, component, sum(time_ns) AS time_ns
    FROM class_times
    GROUP BY GROUPING SETS ((device, name_id, component), (name_id, component))
),
totals AS (
    SELECT grouping(device) = 1 AS whole, device, name_id,
           sum(launches) AS launches, sum(time_ns) AS total_ns, sum(time_ns) / sum(launches) AS mean_ns,
           min(min_ns) AS min_ns, max(max_ns) AS max_ns,
           list(DISTINCT device ORDER BY device) AS devices
    FROM class_times
    GROUP BY GROUPING SETS ((device, name_id), (name_id))
),
ranked AS (
    SELECT t.*, f.name, f.short_name, f.family,
           row_number() OVER (PARTITION BY t.whole, t.device ORDER BY t.total_ns DESC, f.name) AS rank
    FROM totals t JOIN kernel_families f USING (name_id)
    QUALIFY rank <= $top
),
medians AS (  -- the durations of the listed names only
    SELECT grouping(device) = 1 AS whole, device, name_id, median(duration_ns) AS median_ns
    FROM scope_kernels
    WHERE name_id IN (SELECT name_id FROM ranked)
    GROUP BY GROUPING SETS ((device, name_id), (name_id))
),
splits AS (
    SELECT whole, device, name_id,
           list({'component': component, 'time_ns': time_ns} ORDER BY time_ns DESC, component) AS components
    FROM per_component
    GROUP BY whole, device, name_id
)
SELECT CASE WHEN r.whole THEN NULL ELSE r.device END AS device, r.rank, r.name, r.short_name,
       kernel_key(r.name) AS kernel_key, r.family,
       s.components[1].component AS component, s.components, r.launches, r.total_ns, r.mean_ns, m.median_ns,
       r.min_ns, r.max_ns, r.devices
FROM ranked r
JOIN splits s ON s.whole = r.whole AND s.device IS NOT DISTINCT FROM r.device AND s.name_id = r.name_id
JOIN medians m ON m.whole = r.whole AND m.device IS NOT DISTINCT FROM r.device AND m.name_id = r.name_id
ORDER BY r.whole DESC, r.device, r.rank
