-- The capture's kernels as its nsys stats cuda_gpu_kern_sum ($kernel_summary) counts them and as its cuda_gpu_trace
-- ($gpu_trace) holds them, both over the whole capture: a trace holding another number was exported from another
-- run, cut short or filtered.
-- access: public
-- returns: rows
--   summary_kernels  BIGINT  kernels the cuda_gpu_kern_sum counts (its instances; NULL without one)
--   traced_kernels   BIGINT  kernels of the cuda_gpu_trace
SELECT (SELECT sum(instances) FROM kernel_summary WHERE trace_id = $kernel_summary::INTEGER)::BIGINT AS summary_kernels,
       (SELECT count(*) FROM gpu_ops WHERE trace_id = $gpu_trace AND op_kind = 'kernel') AS traced_kernels
