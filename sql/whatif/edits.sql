-- The edits a what-if replay makes to the scope's dependency graph ($edits, in the order given; the launch latency
-- and the overlap of communication are parameters of their own: $launch_latency_ns, $overlap_communication).
-- access: public
-- unique: edit_id
-- not null: edit_id, edit, pattern
-- creates: whatif_edits
--   edit_id  BIGINT   the edit's place in the order given (from 1)
--   edit     VARCHAR  kernel_speedup_family (kernels of a family run factor times faster), kernel_speedup_name
--                     (kernels whose name matches the pattern), remove_kernels (matching kernels take no time),
--                     remove_syncs (matching CPU calls no longer wait for the GPU)
--   pattern  VARCHAR  the family, or the regular expression (RE2, matching anywhere in the name)
--   factor   DOUBLE   the speedup (kernel_speedup_*; NULL for the others)
CREATE OR REPLACE TEMP TABLE whatif_edits AS
WITH given AS (
    SELECT $edits::STRUCT(edit VARCHAR, pattern VARCHAR, factor DOUBLE)[] AS edits
)
SELECT i AS edit_id, edits[i].edit AS edit, edits[i].pattern AS pattern, edits[i].factor AS factor
FROM given, range(1, len(edits) + 1) r(i);
