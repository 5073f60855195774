-- Per kernel of the scope, in start order on its device: the GPU idle gap before it (start minus the latest end
-- of the earlier kernels; <= 0 when it touches or overlaps them; NULL for the first), the kernel that ended last
-- before it, and when its launch call ended.
-- requires: scope.kernels, scope.launches
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
--   gap_ns          BIGINT   start_ns - earlier_end_ns (ns)
CREATE OR REPLACE TEMP TABLE kernel_gaps AS
WITH launch_ends AS (
    SELECT device_index, kernel_start_ns, min(api_end_ns) AS launch_end_ns
    FROM scope_launches
    GROUP BY ALL
),
ordered AS (
    SELECT k.device, k.stream_id, k.start_ns, k.end_ns, k.context_key, l.launch_end_ns,
           max(k.end_ns) OVER earlier                   AS earlier_end_ns,
           arg_max(k.context_key, k.end_ns) OVER earlier AS before_key
    FROM scope_kernels k
    LEFT JOIN launch_ends l
           ON l.device_index = coalesce(k.device_index, 0) AND l.kernel_start_ns = k.start_ns
    WINDOW earlier AS (PARTITION BY k.device ORDER BY k.start_ns, k.end_ns
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT device, stream_id, start_ns, end_ns, context_key, before_key, launch_end_ns, earlier_end_ns,
       start_ns - earlier_end_ns AS gap_ns
FROM ordered;
