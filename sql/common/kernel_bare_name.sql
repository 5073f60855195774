-- creates: kernel_bare_name
-- A kernel name without the NVTX ranges that nsys's `:nvtx-name` name mode puts before it ('step 3/void foo<...>(...)'
-- and 'request 1/decode/void foo<...>(...)' -> 'void foo<...>(...)'); other names unchanged. Everything up to the
-- last '/' goes: a range name may hold anything, '(', '[' and '/' included (torch's emit_nvtx ranges do), and no
-- kernel's own name holds a '/'.
CREATE OR REPLACE MACRO kernel_bare_name(name) AS regexp_extract(name, '[^/]*$');
