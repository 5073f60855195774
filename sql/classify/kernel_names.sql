-- The relation name rules (component and family rules) select from (the rule-file contract): one row per distinct
-- kernel name of the scope.
-- requires: scope.names, common.kernel_bare_name, common.kernel_short_name
-- access: public
-- unique: name
-- not null: name
-- creates: kernel_names
--   name        VARCHAR  kernel name as exported
--   bare_name   VARCHAR  the name without the NVTX range nsys's :nvtx-name mode puts before it (kernel_bare_name): what
--                        a rule should match, so that a range called 'attention' names no kernel
--   short_name  VARCHAR  its function name alone, as nsys's :base mode prints it (kernel_short_name)
CREATE OR REPLACE TEMP TABLE kernel_names AS
    SELECT name, kernel_bare_name(name) AS bare_name, kernel_short_name(name) AS short_name FROM scope_names;
