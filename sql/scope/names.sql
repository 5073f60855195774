-- The distinct kernel names of the scope, numbered: kernels carry the number, rules classify each name once.
-- requires: scope.ops
-- access: private
-- unique: name
-- unique: name_id
-- not null: name, name_id
-- creates: scope_names
--   name     VARCHAR  kernel name as exported
--   name_id  INTEGER  1..n in name order
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT name FROM scope_ops WHERE op_kind = 'kernel');
