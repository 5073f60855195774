-- Launch-call duration and queue delay per kernel family: each kern_exec row is matched to the kernel of its
-- device that starts at its kernel start (the first family by name when two kernels start at the same
-- nanosecond); rows without a kernel are left out (scope.launch_coverage counts them). A launch call is a distinct
-- (pid, tid, api_start_ns, api_duration_ns), as in launches.launch_api: a CUDA-graph replay is one call that
-- launches many kernels, so its duration counts once in each family it launched, not once per kernel. Queue delay
-- is per kernel. Percentiles interpolate as quantile_cont, from the values counted per distinct length
-- (ns_percentiles).
-- requires: scope.kernels, scope.launches, classify.kernel_families, common.percentiles
-- access: public
-- unique: family
-- not null: family, launches, calls
-- returns: rows
--   family          VARCHAR  kernel family
--   launches        BIGINT   launch rows (kernels) matched to a kernel of the family
--   calls           HUGEINT  distinct launch calls that launched them
--   api_total_ns    HUGEINT  summed duration of those calls (ns)
--   api             STRUCT(p50_ns DOUBLE, p90_ns DOUBLE, p99_ns DOUBLE, max_ns BIGINT)
--                            {p50_ns, p90_ns, p99_ns, max_ns} of the calls' duration (ns)
--   queued_kernels  HUGEINT  rows with a queue duration
--   queue_total_ns  HUGEINT  summed queue duration (ns)
--   queue           STRUCT(p50_ns DOUBLE, p90_ns DOUBLE, p99_ns DOUBLE, max_ns BIGINT)
--                            {p50_ns, p90_ns, p99_ns, max_ns} of the queue duration (ns); NULLs when none queued
WITH kernel_at AS (
    SELECT coalesce(k.device_index, 0) AS device_index, k.start_ns, min(f.family) AS family
    FROM scope_kernels k JOIN kernel_families f USING (name_id)
    GROUP BY ALL
),
matched AS (
    SELECT k.family, l.pid, l.tid, l.api_start_ns, l.api_duration_ns, l.queue_duration_ns
    FROM scope_launches l
    JOIN kernel_at k ON k.device_index = l.device_index AND k.start_ns = l.kernel_start_ns
),
lengths AS (  -- each distribution counted per distinct length
    SELECT family, 'api' AS kind, api_duration_ns AS v, count(*) AS c
    FROM (SELECT DISTINCT family, pid, tid, api_start_ns, api_duration_ns FROM matched)
    GROUP BY ALL
    UNION ALL
    SELECT family, 'queue', queue_duration_ns, count(*) FROM matched WHERE queue_duration_ns IS NOT NULL GROUP BY ALL
),
stats AS (
    SELECT family, kind, sum(c) AS values, sum(CAST(v AS HUGEINT) * c) AS total_ns, ns_percentiles(v, upto, n) AS p
    FROM (SELECT *, sum(c) OVER (PARTITION BY family, kind ORDER BY v) AS upto,
                 sum(c) OVER (PARTITION BY family, kind) AS n
          FROM lengths)
    GROUP BY family, kind
)
SELECT a.family, l.launches, a.values AS calls, a.total_ns AS api_total_ns, a.p AS api,
       coalesce(q.values, 0) AS queued_kernels, coalesce(q.total_ns, 0) AS queue_total_ns, q.p AS queue
FROM stats a
JOIN (SELECT family, count(*) AS launches FROM matched GROUP BY family) l USING (family)
LEFT JOIN stats q ON q.family = a.family AND q.kind = 'queue'
WHERE a.kind = 'api'
ORDER BY a.family
