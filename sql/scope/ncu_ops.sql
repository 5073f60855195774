-- scope.ops of an ncu scope (it stands in for it): each launch profiled in the ncu exports is a kernel, in
-- profiling order (its ID) on its stream; the device label carries the export's trace id, so that two exports
-- never mix. ncu launches have no GPU time.
-- requires: scope.inputs
-- access: private
-- creates: scope_ops
--   op_id           BIGINT   NULL (an ncu launch is no row of gpu_ops)
--   op_kind         VARCHAR  'kernel'
--   device          VARCHAR  '<trace id>:<device index as ncu prints it>'
--   device_index    INTEGER  NULL
--   stream_id       BIGINT   CUDA stream
--   start_ns        BIGINT   NULL
--   end_ns          BIGINT   NULL
--   duration_ns     BIGINT   0
--   launch_order    BIGINT   the launch's ID in its export
--   corr_id         BIGINT   NULL
--   name            VARCHAR  kernel name (ncu dialect)
--   transfer_bytes  BIGINT   memcpy or memset size (bytes); NULL for kernels or when the export does not say
--   src_mem_kind    VARCHAR  memcpy source memory kind as nsys labels it: Pageable, Pinned, Device, ...; NULL when not
--                            a memcpy or not exported
--   dst_mem_kind    VARCHAR  memcpy (or memset) destination memory kind; NULL when not exported
CREATE OR REPLACE TEMP VIEW scope_ops AS
    SELECT NULL::BIGINT AS op_id, 'kernel' AS op_kind, trace_id || ':' || coalesce(device, '') AS device,
           NULL::INTEGER AS device_index,
           stream_id, NULL::BIGINT AS start_ns, NULL::BIGINT AS end_ns, 0::BIGINT AS duration_ns,
           result_id AS launch_order, NULL::BIGINT AS corr_id, kernel_name AS name,
           NULL::BIGINT AS transfer_bytes, NULL::VARCHAR AS src_mem_kind, NULL::VARCHAR AS dst_mem_kind
    FROM ncu_results
    WHERE list_contains((SELECT ncu_traces FROM scope_inputs), trace_id);
