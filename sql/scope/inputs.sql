-- What the scope is: the trace ids of the capture's files (or of the ncu exports); a window's ranges are in
-- scope_window_ranges.
-- One row, from the scope's parameters; the scope's views read it, so that a whole capture is never copied.
-- access: private
-- creates: scope_inputs
--   gpu_trace          INTEGER    trace id of the cuda_gpu_trace ($gpu_trace; NULL for an ncu scope)
--   kern_exec_trace    INTEGER    trace id of the cuda_kern_exec_trace ($kern_exec_trace; NULL when there is none)
--   api_trace          INTEGER    trace id of the cuda_api_trace ($api_trace; NULL when there is none)
--   ncu_traces         INTEGER[]  trace ids of the ncu exports whose launches are the scope ($ncu_traces; [] otherwise)
--   gpu_devices_known  BOOLEAN    true when the cuda_gpu_trace names its devices (a CSV without the optional Device
--                                 column does not: launch rows then match its kernels by start time alone)
CREATE OR REPLACE TEMP TABLE scope_inputs AS
    SELECT $gpu_trace::INTEGER AS gpu_trace, $kern_exec_trace::INTEGER AS kern_exec_trace,
           $api_trace::INTEGER AS api_trace, $ncu_traces::INTEGER[] AS ncu_traces,
           EXISTS (SELECT 1 FROM gpu_ops WHERE trace_id = $gpu_trace AND device_index IS NOT NULL) AS gpu_devices_known;
