-- The time ranges a window keeps (NVTX ranges or --range); empty for a whole capture.
-- filled by: nsight_ingest.windows
-- creates: scope_window_ranges
--   start_ns  range start (ns, the capture's clock)
--   end_ns    range end, exclusive (ns)
--   tid       thread that opened the range (NVTX), NULL when any thread counts
CREATE OR REPLACE TEMP TABLE scope_window_ranges (start_ns BIGINT, end_ns BIGINT, tid BIGINT);
