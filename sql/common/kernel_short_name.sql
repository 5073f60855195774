-- creates: kernel_short_name
-- A kernel's short name, as nsys's `:base` name mode prints it (and nsys exports store as `shortName`): the
-- function name without the :nvtx-name range prefix, return type, namespaces, template arguments and parameter
-- list ('void at::native::elementwise_kernel<(int)128, ...>(int, T3)' -> 'elementwise_kernel'). Template arguments
-- go innermost first, one nesting level per pass: 16 passes cover the deepest CUTLASS names seen. A name it cannot
-- shorten to an identifier (a function-pointer parameter list, an operator) stays whole.
CREATE OR REPLACE MACRO kernel_short_name(name) AS list_transform([
    regexp_extract(
        regexp_replace(                                                                   -- return type
            regexp_replace(                                                               -- parameter list
                regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                    kernel_bare_name(name),
                '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'),
                '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'),
                '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'),
                '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'), '<[^<>]*>', '', 'g'),
            '\((?:[^()]|\([^()]*\))*\)\s*$', ''),
        '^.*\s', ''),
    '([^:]*)$', 1)], lambda short: CASE WHEN regexp_full_match(short, '[A-Za-z_][A-Za-z0-9_]*') THEN short ELSE name END)[1];
