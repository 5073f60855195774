-- The scope rules read, built from ncu launches so that scope_kernels.sql gives them names and neighbours like
-- nsys kernels: each profiled launch is a kernel, ordered by its ID (ncu profiles in launch order) on its stream,
-- and the device label carries the trace id so that two exports never mix. {ncu_traces} is a list of trace ids.
CREATE OR REPLACE TEMP VIEW scope_ops AS
    SELECT 'kernel' AS op_kind, trace_id || ':' || coalesce(device, '') AS device, NULL::INTEGER AS device_index,
           stream_id, result_id AS start_ns, result_id AS end_ns, 0 AS duration_ns, kernel_name AS name
    FROM ncu_results
    WHERE trace_id IN {ncu_traces};
