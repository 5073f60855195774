-- Every CUDA API call of the capture's cuda_api_trace (none without one), whatever the scope's window. A view: a
-- whole capture is read where it is stored. Analyses read scope.api_calls, the whole capture's or a window's.
-- requires: scope.inputs
-- access: private
-- creates: capture_api_calls
--   start_ns     BIGINT   call start (ns)
--   duration_ns  BIGINT   call duration (ns)
--   end_ns       BIGINT   call end (ns)
--   name         VARCHAR  API function, e.g. cudaStreamSynchronize
--   corr_id      BIGINT   correlation id (matches the GPU operations it caused)
--   pid          BIGINT   process id
--   tid          BIGINT   thread id
--   sync_kind    VARCHAR  what a call that synchronized waited for (api_calls.sync_kind; NULL: unknown or none)
--   sync_stream_id BIGINT the stream that waited (stream_wait_event) or was waited for (stream_synchronize)
CREATE OR REPLACE TEMP VIEW capture_api_calls AS
    SELECT start_ns, duration_ns, end_ns, name, corr_id, pid, tid, sync_kind, sync_stream_id
    FROM api_calls
    WHERE trace_id = (SELECT api_trace FROM scope_inputs);
