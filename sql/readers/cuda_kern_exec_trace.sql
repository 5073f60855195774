-- Shape one nsys cuda_kern_exec_trace into kernel_launches columns (trace_id is added by the store).
-- GridXYZ / BlockXYZ are space-padded triples such as '   2    1    1'.
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
    TRY_CAST(grid.x AS INTEGER) AS grid_x,
    TRY_CAST(grid.y AS INTEGER) AS grid_y,
    TRY_CAST(grid.z AS INTEGER) AS grid_z,
    TRY_CAST(block.x AS INTEGER) AS block_x,
    TRY_CAST(block.y AS INTEGER) AS block_y,
    TRY_CAST(block.z AS INTEGER) AS block_z,
    kernel_name
FROM (
    -- one regular expression per triple, returning all three numbers at once
    SELECT *,
           regexp_extract(grid_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', ['x', 'y', 'z']) AS grid,
           regexp_extract(block_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', ['x', 'y', 'z']) AS block
    FROM {source}
)
