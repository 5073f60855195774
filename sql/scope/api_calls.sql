-- The CUDA API calls of the scope: every call of the capture's cuda_api_trace or, in a window, those that started
-- inside one of its ranges (on the range's thread, when both say). Empty when the capture has no API trace.
-- requires: scope.inputs, scope.window_ranges
-- creates: scope_api_calls
--   start_ns     call start (ns)
--   duration_ns  call duration (ns)
--   end_ns       call end (ns)
--   name         API function, e.g. cudaStreamSynchronize
--   corr_id      correlation id (matches the GPU operations it caused)
--   pid          process id
--   tid          thread id
CREATE OR REPLACE TEMP VIEW scope_api_calls AS
    SELECT c.start_ns, c.duration_ns, c.end_ns, c.name, c.corr_id, c.pid, c.tid
    FROM api_calls c, scope_inputs i
    WHERE c.trace_id = i.api_trace
      AND (NOT i.windowed OR EXISTS (
          SELECT 1 FROM scope_window_ranges w
          WHERE c.start_ns >= w.start_ns AND c.start_ns < w.end_ns
            AND (w.tid IS NULL OR c.tid IS NULL OR w.tid = c.tid)));
