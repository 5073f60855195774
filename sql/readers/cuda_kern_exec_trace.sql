-- Shape one nsys cuda_kern_exec_trace into kernel_launches columns (trace_id is added by the store).
-- GridXYZ / BlockXYZ are kept as exported ('   2    1    1'); the schema parses grid_x .. block_z from them.
-- It reads the relation reader_source: the report's columns in base units (readers/nsys.py, readers/export.py).
SELECT
    api_start_ns,
    api_duration_ns,
    queue_start_ns,
    queue_duration_ns,
    kernel_start_ns,
    kernel_duration_ns,
    total_duration_ns,
    pid,
    tid,
    device_index,
    api_function,
    grid_xyz,
    block_xyz,
    kernel_name,
    unparsed_values
FROM reader_source
