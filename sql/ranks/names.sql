-- scope.names of the ranks analysis (it stands in for it): the distinct kernel names of every rank, numbered, so
-- that the family rules classify them (classify.kernel_families) as they do a capture's.
-- requires: ranks.kernels
-- access: private
-- unique: name
-- unique: name_id
-- not null: name, name_id
-- creates: scope_names
--   name     VARCHAR  kernel name
--   name_id  INTEGER  its number
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT name FROM rank_kernels);
