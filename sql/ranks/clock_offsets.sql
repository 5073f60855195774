-- The clock offset applied to each rank (estimated by ranks.clock_estimates, given with --offset, or 0 on a shared
-- clock): a rank's time + offset_ns is the aligned clock.
-- filled by: nsight_ingest.fillers
-- access: private
-- unique: rank
-- not null: rank, offset_ns
-- creates: rank_offsets
--   rank       INTEGER  rank number
--   offset_ns  BIGINT   offset to the aligned clock (ns)
CREATE OR REPLACE TEMP TABLE rank_offsets (rank INTEGER, offset_ns BIGINT);
