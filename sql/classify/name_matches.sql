-- Every match of the name rules (rule files over kernel_names) before winners are picked; the rule files are user
-- SQL, run and inserted by nsight_ingest.rules.
-- requires: classify.kernel_names
-- filled by: nsight_ingest.rules
-- access: private
-- creates: name_rule_matches
--   name           VARCHAR  kernel name the rule matched
--   component      VARCHAR  component it gives
--   sub_component  VARCHAR  sub-component it gives (NULL: none)
--   priority       INTEGER  lower wins
--   rule_rank      INTEGER  position of the rule file in file-name order (breaks priority ties)
--   rule_file      VARCHAR  the rule file's name
CREATE OR REPLACE TEMP TABLE name_rule_matches (
    name           VARCHAR NOT NULL,
    component      VARCHAR NOT NULL,
    sub_component  VARCHAR,
    priority       INTEGER NOT NULL,
    rule_rank      INTEGER,
    rule_file      VARCHAR
);
