-- Every CUDA API call of the capture's cuda_api_trace (none without one), whatever the scope's window. A view: a
-- whole capture is read where it is stored. Analyses read scope.api_calls, the whole capture's or a window's.
-- requires: scope.inputs
-- creates: capture_api_calls
--   start_ns     call start (ns)
--   duration_ns  call duration (ns)
--   end_ns       call end (ns)
--   name         API function, e.g. cudaStreamSynchronize
--   corr_id      correlation id (matches the GPU operations it caused)
--   pid          process id
--   tid          thread id
CREATE OR REPLACE TEMP VIEW capture_api_calls AS
    SELECT start_ns, duration_ns, end_ns, name, corr_id, pid, tid
    FROM api_calls
    WHERE trace_id = (SELECT api_trace FROM scope_inputs);
