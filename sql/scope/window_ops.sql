-- scope.ops of a window (it stands in for it): the operations of the capture (scope.capture_ops) in the window,
-- copied once. As nsys projects NVTX ranges onto the GPU, a kernel belongs to the range that holds the start of its
-- launch call (scope_launches); operations without a launch row (memcpy, memset, no kern_exec trace) belong to the
-- range that holds their GPU start.
-- requires: scope.capture_ops, scope.capture_launches, scope.window_ranges, scope.launches
-- access: private
-- unique: op_id
-- not null: op_id, device, stream_id, start_ns, end_ns
-- creates: scope_ops
--   op_id           BIGINT   the operation's row in the store (gpu_ops.rowid): what tells two operations apart
--   op_kind         VARCHAR  kernel | memcpy | memset | other
--   device          VARCHAR  device label ('(no device)' when missing)
--   device_index    INTEGER  the number of the device label (NULL when it has none)
--   stream_id       BIGINT   CUDA stream
--   start_ns        BIGINT   GPU start (ns)
--   end_ns          BIGINT   GPU end (ns)
--   duration_ns     BIGINT   GPU duration (ns)
--   launch_order    BIGINT   NULL (nsys operations have a time)
--   corr_id         BIGINT   correlation id: the API call that caused it has the same (scope.api_calls)
--   name            VARCHAR  operation name as exported
--   transfer_bytes  BIGINT   memcpy or memset size (bytes); NULL for kernels or when the export does not say
--   src_mem_kind    VARCHAR  memcpy source memory kind as nsys labels it: Pageable, Pinned, Device, ...; NULL when not
--                            a memcpy or not exported
--   dst_mem_kind    VARCHAR  memcpy (or memset) destination memory kind; NULL when not exported
CREATE OR REPLACE TEMP TABLE scope_ops AS
    WITH launched AS (
        SELECT DISTINCT device_index, kernel_start_ns FROM capture_launches
    ),
    launched_inside AS (
        SELECT DISTINCT device_index, kernel_start_ns FROM scope_launches
    )
    SELECT o.*
    FROM capture_ops o
    LEFT JOIN launched a
           ON o.op_kind = 'kernel' AND a.kernel_start_ns = o.start_ns AND a.device_index = coalesce(o.device_index, 0)
    LEFT JOIN launched_inside i
           ON o.op_kind = 'kernel' AND i.kernel_start_ns = o.start_ns AND i.device_index = coalesce(o.device_index, 0)
    WHERE i.kernel_start_ns IS NOT NULL
       OR (a.kernel_start_ns IS NULL AND in_window(o.start_ns, NULL));
