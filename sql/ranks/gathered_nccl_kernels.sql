-- ranks.kernels where only collective kernels are needed (it stands in for it in the store that aligns the
-- ranks): every rank's rows of ranks.nccl_kernels, gathered from the ranks' own stores.
-- filled by: nsight_ingest.fillers
-- access: private
-- creates: rank_kernels
--   rank         INTEGER  rank number
--   stream_id    BIGINT   NULL here (the alignment reads no stream)
--   start_ns     BIGINT   kernel start, the rank's own clock (ns)
--   end_ns       BIGINT   kernel end (ns)
--   duration_ns  BIGINT   kernel duration (ns)
--   name         VARCHAR  NULL here (the alignment reads no name)
--   collective   VARCHAR  NCCL collective it runs (never NULL here: only collective kernels are gathered)
--   ordinal      BIGINT   1.. per rank and collective in start order
CREATE OR REPLACE TEMP TABLE rank_kernels (rank INTEGER, stream_id BIGINT, start_ns BIGINT, end_ns BIGINT,
                                           duration_ns BIGINT, name VARCHAR, collective VARCHAR, ordinal BIGINT);
