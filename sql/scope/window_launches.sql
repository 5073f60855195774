-- scope.launches of a window (it stands in for it): the kern_exec rows whose launch call started inside one of the
-- window's ranges (on the range's thread, when both say), copied once.
-- requires: scope.capture_launches, scope.window_ranges
-- access: private
-- creates: scope_launches
--   api_start_ns       BIGINT   launch call start (ns)
--   api_duration_ns    BIGINT   launch call duration (ns)
--   api_end_ns         BIGINT   launch call end (ns)
--   queue_duration_ns  BIGINT   time the kernel waited in the launch queue (ns); NULL when it was not queued
--   kernel_start_ns    BIGINT   GPU start of the kernel launched (ns): with device_index, the key to its kernel
--   pid                BIGINT   process id of the calling thread
--   tid                BIGINT   thread id of the calling thread
--   device_index       INTEGER  device number (0 when the export gives none; 0 for every row when the cuda_gpu_trace
--                               names no device, so that launches match its kernels by start time alone)
--   api_function       VARCHAR  the launch API, e.g. cudaLaunchKernel, cudaGraphLaunch
CREATE OR REPLACE TEMP TABLE scope_launches AS
    SELECT l.* FROM capture_launches l WHERE in_window(l.api_start_ns, l.tid);
