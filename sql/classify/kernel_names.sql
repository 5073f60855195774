-- The relation name rules select from (the rule-file contract): one row per distinct kernel name of the scope.
-- requires: scope.names
-- creates: kernel_names
--   name  kernel name as exported
CREATE OR REPLACE TEMP VIEW kernel_names AS SELECT name FROM scope_names;
