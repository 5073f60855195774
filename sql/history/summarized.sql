-- The cuda_gpu_traces the history already holds for the night $day under rule set $rule_set_version, family set
-- $family_set_version and finding rules $finding_set_version (the nightly job skips them; the same trace on a later
-- night gets that night's rows).
-- requires: history.rows
-- access: private
-- returns: rows
--   trace_sha256  VARCHAR  sha256 of a summarized cuda_gpu_trace
SELECT DISTINCT trace_sha256 FROM history_rows
WHERE rule_set_version = $rule_set_version AND family_set_version IS NOT DISTINCT FROM $family_set_version
  AND finding_set_version IS NOT DISTINCT FROM $finding_set_version AND date = $day;
