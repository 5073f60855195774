-- The distinct kernel names of the scope, numbered: kernels carry the number, rules classify each name once.
-- requires: scope.ops
-- creates: scope_names
--   name     kernel name as exported
--   name_id  1..n in name order
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT name FROM scope_ops WHERE op_kind = 'kernel');
