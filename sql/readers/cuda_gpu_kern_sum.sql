-- Shape one nsys cuda_gpu_kern_sum (launches per kernel name over the capture) into kernel_summary columns (trace_id
-- is added by the store).
-- It reads the relation reader_source: the report's columns in base units (readers/nsys.py).
SELECT
    name,
    instances,
    total_ns
FROM reader_source
