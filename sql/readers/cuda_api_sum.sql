-- Shape one nsys cuda_api_sum (calls per CUDA API function over the capture) into api_summary columns (trace_id is
-- added by the store).
SELECT
    name,
    calls,
    total_ns
FROM {source}
