-- Shape one nsys cuda_api_sum (calls per CUDA API function over the capture) into api_summary columns (trace_id is
-- added by the store).
-- It reads the relation reader_source: the report's columns in base units (readers/nsys.py).
SELECT
    name,
    calls,
    total_ns
FROM reader_source
