-- family: memory | copies and casts, concatenation, transpose and layout changes, gather/scatter/index/embedding lookup, fill and zero, KV-cache writes
-- PyTorch elementwise templates whose functor copies, casts or fills (direct_copy_kernel_cuda, *_copy_kernel_cuda,
-- FillFunctor) are memory, not elementwise (priority 30 beats 50); so are concatenation, layout, index and gather
-- kernels by name. Triton kernels keep their prefix's family (priority 5).
SELECT name, 'memory' AS family, 30 AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per|tem)_')
  AND (regexp_matches(bare_name, '(?i)copy|fill|memset|zero_|_zero|transpose|permute|nchw|nhwc|layout|gather|scatter|index_?select|index_put|index_add|index_copy|index_elementwise|gpu_index_kernel|indexing|take_kernel|embedding|cat_?array|concat|reshape_and_cache|repack|split_with_sizes|pad_|_pad|upsample|flip_kernel|roll_cuda|tril|triu|arange|linspace|im2col|col2im|vol2col|col2vol|masked_fill|masked_select|nonzero')
       OR regexp_matches(bare_name, 'CatArray|(^|[^A-Za-z])cat_'))
