-- creates: kernel_key
-- A dialect-neutral key for one kernel across nsys, ncu and Kineto demanglings: template values without their
-- casts ('(int)8' -> '8', 'false' -> '0'), no namespace qualifiers ('at::native::', 'std::', '<unnamed>::'),
-- no final parameter list, no spaces.
CREATE OR REPLACE MACRO kernel_key(name) AS
    regexp_replace(
        regexp_replace(
            regexp_replace(
                regexp_replace(
                    regexp_replace(
                        kernel_bare_name(name),
                    '\((?:\w+ )*\w+\)(-?\d+)', '\1', 'g'),                                       -- (int)8 -> 8
                '(?:\w+|<unnamed>|\(anonymous namespace\))::', '', 'g'),                         -- namespaces
            '\b(\d+)(?:u|ul|ull|l|ll)\b', '\1', 'g'),                                           -- 4096ul -> 4096
        '\((?:[^()]|\([^()]*\))*\)\s*$', ''),                                                   -- parameter list
    '\s+', '', 'g');
