-- Shape one nsys cuda_gpu_kern_sum (launches per kernel name over the capture) into kernel_summary columns (trace_id
-- is added by the store).
SELECT
    name,
    instances,
    total_ns
FROM {source}
