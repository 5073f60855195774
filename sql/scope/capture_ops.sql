-- Every GPU operation of the capture's cuda_gpu_trace, whatever the scope's window. Operations with a negative
-- duration or one over max_duration_ns() are left out (scope.integrity counts them). A view: a whole capture is read
-- where it is stored, not copied. Analyses read scope.ops, which is this whole capture or a window of it.
-- requires: scope.inputs, common.max_duration
-- access: private
-- unique: op_id
-- not null: op_id, device, stream_id, start_ns, end_ns
-- creates: capture_ops
--   op_id           BIGINT   the operation's row in the store (gpu_ops.rowid): what tells two operations apart
--   op_kind         VARCHAR  kernel | memcpy | memset | other
--   device          VARCHAR  device label, e.g. 'NVIDIA H200 (0)' ('(no device)' when missing; '<trace id>:<device>'
--                            for ncu)
--   device_index    INTEGER  the number of the device label (NULL when it has none)
--   stream_id       BIGINT   CUDA stream
--   start_ns        BIGINT   GPU start (ns); NULL for ncu launches, whose time is unknown
--   end_ns          BIGINT   GPU end (ns)
--   duration_ns     BIGINT   GPU duration (ns); 0 for ncu launches
--   launch_order    BIGINT   position of an ncu launch in profiling order (its ID); NULL for nsys operations
--   corr_id         BIGINT   correlation id: the API call that caused it has the same (scope.api_calls)
--   name            VARCHAR  operation name as exported
--   transfer_bytes  BIGINT   memcpy or memset size (bytes); NULL for kernels or when the export does not say
--   src_mem_kind    VARCHAR  memcpy source memory kind as nsys labels it: Pageable, Pinned, Device, ...; NULL when not
--                            a memcpy or not exported
--   dst_mem_kind    VARCHAR  memcpy (or memset) destination memory kind; NULL when not exported
CREATE OR REPLACE TEMP VIEW capture_ops AS
    SELECT rowid AS op_id, op_kind, coalesce(device, '(no device)') AS device, device_index, stream_id, start_ns,
           end_ns, duration_ns,
           NULL::BIGINT AS launch_order, corr_id, name, transfer_bytes, src_mem_kind, dst_mem_kind
    FROM gpu_ops
    WHERE trace_id = (SELECT gpu_trace FROM scope_inputs) AND duration_ns BETWEEN 0 AND max_duration_ns();
