-- launches.kernel_gaps of a window (it stands in for it): the same gaps, except that in a window of several ranges
-- (NVTX ranges grouped or of one name) a kernel has no gap when the kernel before it belongs to another range: the
-- time between two ranges' work is no gap of either. A kernel belongs to the range holding the start of its launch
-- call (on the range's thread), or, without a launch row, its GPU start, as scope.window_ops places it.
-- requires: scope.kernels, scope.launches, scope.window_ranges
-- access: private
-- creates: kernel_gaps
--   device          VARCHAR  device label
--   stream_id       BIGINT   CUDA stream of the kernel
--   start_ns        BIGINT   kernel start (ns)
--   end_ns          BIGINT   kernel end (ns)
--   context_key     UBIGINT  the kernel's context (its class: kernel_classes)
--   before_key      UBIGINT  context of the earlier kernel that ended last
--   launch_end_ns   BIGINT   end of its launch call (ns); NULL without a launch row
--   earlier_end_ns  BIGINT   latest end of the earlier kernels on the device (ns); NULL for the first
--   gap_ns          BIGINT   start_ns - earlier_end_ns (ns); NULL when the earlier kernel belongs to another range
CREATE OR REPLACE TEMP TABLE kernel_gaps AS
WITH launch_ends AS (
    SELECT device_index, kernel_start_ns, min(api_end_ns) AS launch_end_ns
    FROM scope_launches
    GROUP BY ALL
),
launched_in AS (  -- the range (by its start) holding each launch call
    SELECT l.device_index, l.kernel_start_ns, min(w.start_ns) AS range_start_ns
    FROM scope_launches l
    JOIN scope_window_ranges w
      ON l.api_start_ns >= w.start_ns AND l.api_start_ns < w.end_ns
     AND (w.tid IS NULL OR l.tid IS NULL OR w.tid = l.tid)
    GROUP BY ALL
),
placed AS (
    SELECT k.*, l.launch_end_ns,
           coalesce(r.range_start_ns,
                    (SELECT min(w.start_ns) FROM scope_window_ranges w
                     WHERE l.launch_end_ns IS NULL AND k.start_ns >= w.start_ns AND k.start_ns < w.end_ns))
               AS range_start_ns
    FROM scope_kernels k
    LEFT JOIN launch_ends l ON l.device_index = coalesce(k.device_index, 0) AND l.kernel_start_ns = k.start_ns
    LEFT JOIN launched_in r ON r.device_index = coalesce(k.device_index, 0) AND r.kernel_start_ns = k.start_ns
),
ordered AS (
    SELECT device, stream_id, start_ns, end_ns, context_key, launch_end_ns, range_start_ns,
           max(end_ns) OVER earlier                          AS earlier_end_ns,
           arg_max(context_key, end_ns) OVER earlier          AS before_key,
           arg_max_null(range_start_ns, end_ns) OVER earlier  AS earlier_range_start_ns
    FROM placed
    WINDOW earlier AS (PARTITION BY device ORDER BY start_ns, end_ns
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT device, stream_id, start_ns, end_ns, context_key, before_key, launch_end_ns, earlier_end_ns,
       CASE WHEN range_start_ns IS NOT DISTINCT FROM earlier_range_start_ns THEN start_ns - earlier_end_ns END
           AS gap_ns
FROM ordered;
