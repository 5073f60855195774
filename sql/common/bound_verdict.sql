-- creates: bound_verdict
-- Bound verdict of one kernel from its SM (compute) and memory throughput, percent of peak
-- (sm__throughput / gpu__compute_memory_throughput .avg.pct_of_peak_sustained_elapsed), checked in this order;
-- the thresholds (percent, percent, ratio) come from nsight_ingest.analysis.ncu.Thresholds.
CREATE OR REPLACE MACRO bound_verdict(compute, memory, latency_below, bound_at_least, dominance) AS
    CASE
        WHEN compute IS NULL OR memory IS NULL THEN NULL
        WHEN compute < latency_below AND memory < latency_below THEN 'latency_bound'
        WHEN compute >= bound_at_least AND compute > dominance * memory THEN 'compute_bound'
        WHEN memory >= bound_at_least AND memory > dominance * compute THEN 'memory_bound'
        ELSE 'balanced'
    END;
