-- Every match of the context rules (rule files over kernel_contexts); run and inserted by nsight_ingest.rules.
-- requires: classify.kernel_contexts
-- filled by: nsight_ingest.rules
-- access: private
-- creates: context_rule_matches
--   context_key    UBIGINT  the kernel context the rule matched (kernel_contexts.context_key)
--   name           VARCHAR  that context's kernel name
--   component      VARCHAR  component it gives
--   sub_component  VARCHAR  sub-component it gives (NULL: none)
--   priority       INTEGER  lower wins
--   rule_rank      INTEGER  position of the rule file in file-name order (breaks priority ties)
--   rule_file      VARCHAR  the rule file's name
CREATE OR REPLACE TEMP TABLE context_rule_matches (
    context_key    UBIGINT NOT NULL,
    name           VARCHAR NOT NULL,
    component      VARCHAR NOT NULL,
    sub_component  VARCHAR,
    priority       INTEGER NOT NULL,
    rule_rank      INTEGER,
    rule_file      VARCHAR
);
