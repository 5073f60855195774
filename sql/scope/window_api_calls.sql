-- scope.api_calls of a window (it stands in for it): the CUDA API calls that started inside one of the window's
-- ranges (on the range's thread, when both say), copied once.
-- requires: scope.capture_api_calls, scope.window_ranges
-- access: private
-- creates: scope_api_calls
--   start_ns     BIGINT   call start (ns)
--   duration_ns  BIGINT   call duration (ns)
--   end_ns       BIGINT   call end (ns)
--   name         VARCHAR  API function, e.g. cudaStreamSynchronize
--   corr_id      BIGINT   correlation id (matches the GPU operations it caused)
--   pid          BIGINT   process id
--   tid          BIGINT   thread id
--   sync_kind    VARCHAR  what a call that synchronized waited for (api_calls.sync_kind; NULL: unknown or none)
--   sync_stream_id BIGINT the stream that waited (stream_wait_event) or was waited for (stream_synchronize)
CREATE OR REPLACE TEMP TABLE scope_api_calls AS
    SELECT c.* FROM capture_api_calls c WHERE in_window(c.start_ns, c.tid);
