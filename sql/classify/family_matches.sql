-- Every match of the family rules (rule files over kernel_names, sql/families/ or --families) before winners are
-- picked; the rule files are user SQL, run and inserted by nsight_ingest.rules.
-- requires: classify.kernel_names
-- filled by: nsight_ingest.rules
-- access: private
-- creates: family_rule_matches
--   name       VARCHAR  kernel name the rule matched
--   family     VARCHAR  kernel family it gives
--   priority   INTEGER  lower wins
--   rule_rank  INTEGER  position of the rule file in file-name order (breaks priority ties)
--   rule_file  VARCHAR  the rule file's name
CREATE OR REPLACE TEMP TABLE family_rule_matches (
    name       VARCHAR NOT NULL,
    family     VARCHAR NOT NULL,
    priority   INTEGER NOT NULL,
    rule_rank  INTEGER,
    rule_file  VARCHAR
);
