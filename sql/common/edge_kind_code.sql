-- creates: edge_kind_code
-- requires: common.edge_kinds
-- An edge kind's code: its place in edge_kinds() (a CASE over the folded constants runs twice as fast as
-- list_position over millions of edges).
CREATE OR REPLACE MACRO edge_kind_code(kind) AS
    CASE kind WHEN edge_kinds()[1] THEN 1 WHEN edge_kinds()[2] THEN 2 WHEN edge_kinds()[3] THEN 3
              WHEN edge_kinds()[4] THEN 4 WHEN edge_kinds()[5] THEN 5 WHEN edge_kinds()[6] THEN 6 END;
