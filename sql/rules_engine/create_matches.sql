-- Every rule match before winners are picked; filled one rule file at a time.
-- Name rules leave context_key NULL (they hold wherever the name appears); context rules set it.
CREATE OR REPLACE TEMP TABLE rule_matches (
    name           VARCHAR NOT NULL,
    context_key    UBIGINT,
    component      VARCHAR NOT NULL,
    sub_component  VARCHAR,
    priority       INTEGER NOT NULL,
    rule_rank      INTEGER,   -- position of the rule file in file-name order
    rule_file      VARCHAR
);
