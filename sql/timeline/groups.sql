-- The NVTX ranges of a timeline drawn --by-nvtx, each with the group it belongs to (empty otherwise): a GPU
-- operation is of the group whose range holds its launch call's start (on the range's thread), or, without a
-- launch row, its GPU start, as the windows of the other commands take them.
-- filled by: nsight_ingest.fillers
-- creates: timeline_groups
--   nvtx_group  the group: what the pattern's first capture group matched in the range's name
--   start_ns    range start (ns)
--   end_ns      range end, exclusive (ns)
--   tid         thread that pushed the range
CREATE OR REPLACE TEMP TABLE timeline_groups (nvtx_group VARCHAR, start_ns BIGINT, end_ns BIGINT, tid BIGINT);
