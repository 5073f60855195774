-- The time ranges a window keeps (NVTX ranges or --range); empty for a whole capture. With them, the macro
-- in_window(ts, thread): true when instant `ts` lies in a range, on the range's thread when both say (thread NULL:
-- any). Pass qualified columns (`l.tid`): the macro's subquery has columns of the same names.
-- filled by: nsight_ingest.fillers
-- access: private
-- creates: scope_window_ranges
--   start_ns  BIGINT  range start (ns, the capture's clock)
--   end_ns    BIGINT  range end, exclusive (ns)
--   tid       BIGINT  thread that opened the range (NVTX), NULL when any thread counts
CREATE OR REPLACE TEMP TABLE scope_window_ranges (start_ns BIGINT, end_ns BIGINT, tid BIGINT);
CREATE OR REPLACE TEMP MACRO in_window(ts, thread) AS EXISTS (
    SELECT 1 FROM scope_window_ranges w
    WHERE ts >= w.start_ns AND ts < w.end_ns AND (w.tid IS NULL OR thread IS NULL OR w.tid = thread));
