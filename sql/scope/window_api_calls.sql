-- scope.api_calls of a window (it stands in for it): the CUDA API calls that started inside one of the window's
-- ranges (on the range's thread, when both say), copied once.
-- requires: scope.inputs, scope.window_ranges
-- creates: scope_api_calls
--   start_ns     call start (ns)
--   duration_ns  call duration (ns)
--   end_ns       call end (ns)
--   name         API function, e.g. cudaStreamSynchronize
--   corr_id      correlation id (matches the GPU operations it caused)
--   pid          process id
--   tid          thread id
CREATE OR REPLACE TEMP TABLE scope_api_calls AS
    SELECT c.start_ns, c.duration_ns, c.end_ns, c.name, c.corr_id, c.pid, c.tid
    FROM api_calls c, scope_inputs i
    WHERE c.trace_id = i.api_trace
      AND in_window(c.start_ns, c.tid);
