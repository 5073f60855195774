-- creates: kernel_bare_name
-- A kernel name without the NVTX range that nsys's `:nvtx-name` name mode puts before it ('step 3/void foo<...>(...)'
-- -> 'void foo<...>(...)'); other names unchanged. A range name cannot hold '<', '(' or '[' here: those start a
-- kernel's template arguments, parameter list or lambda, so the first '/' before them ends the range.
CREATE OR REPLACE MACRO kernel_bare_name(name) AS regexp_replace(name, '^[^/<(\[]*/', '');
