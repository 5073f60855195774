-- Every (name, rule) match before winners are picked; filled one rule file at a time.
CREATE OR REPLACE TEMP TABLE rule_matches (
    name           VARCHAR,
    component      VARCHAR,
    sub_component  VARCHAR,
    priority       INTEGER,
    rule_rank      INTEGER,   -- position of the rule file in file-name order
    rule_file      VARCHAR
);
