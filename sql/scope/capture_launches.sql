-- Every launch row of the capture's kern_exec trace (none without one), whatever the scope's window. A view: a
-- whole capture is read where it is stored, not copied. Analyses read scope.launches, the whole capture's or a
-- window's.
-- requires: scope.inputs
-- access: private
-- creates: capture_launches
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
CREATE OR REPLACE TEMP VIEW capture_launches AS
    SELECT api_start_ns, api_duration_ns, api_end_ns, queue_duration_ns, kernel_start_ns, pid, tid,
           CASE WHEN (SELECT gpu_devices_known FROM scope_inputs) THEN coalesce(device_index, 0) ELSE 0 END AS device_index,
           api_function
    FROM kernel_launches
    WHERE trace_id = (SELECT kern_exec_trace FROM scope_inputs);
