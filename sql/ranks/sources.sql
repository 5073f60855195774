-- Where each rank's kernels are: a trace and device of the store, optionally a window of the rank's own clock.
-- filled by: nsight_ingest.fillers
-- access: private
-- unique: rank
-- not null: rank, trace_id
-- creates: rank_sources
--   rank             INTEGER  rank number
--   trace_id         INTEGER  the rank's cuda_gpu_trace
--   device           VARCHAR  its device label ('(no device)' when missing)
--   window_start_ns  BIGINT   first instant kept, rank clock (ns); NULL: the whole trace
--   window_end_ns    BIGINT   end of the window, exclusive (ns)
CREATE OR REPLACE TEMP TABLE rank_sources (rank INTEGER, trace_id INTEGER, device VARCHAR, window_start_ns BIGINT,
                                           window_end_ns BIGINT);
