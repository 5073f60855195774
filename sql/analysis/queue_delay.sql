-- Time kernels waited in the launch queue. An empty Queue Dur means the kernel was not queued: counted, not timed.
SELECT
    count(*) FILTER (WHERE queue_duration_ns IS NOT NULL)     AS queued_kernels,
    count(*) FILTER (WHERE queue_duration_ns IS NULL)         AS not_queued_kernels,
    coalesce(sum(queue_duration_ns), 0)                       AS total_ns,
    quantile_cont(queue_duration_ns, 0.50)                    AS p50_ns,
    quantile_cont(queue_duration_ns, 0.90)                    AS p90_ns,
    quantile_cont(queue_duration_ns, 0.99)                    AS p99_ns,
    max(queue_duration_ns)                                    AS max_ns
FROM scope_launches
