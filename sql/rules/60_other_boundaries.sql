-- component: other | all unmatched kernels
-- Sub-components of `other` that show where the DiT block's boundaries cost time (seed 002): layout copies around
-- QKV and attention, and fused SwiGLU kernels (the unfused halves are placed by 80_swiglu_neighbours.sql).
-- Priority 90 so that any component rule wins.
SELECT name,
       'other' AS component,
       CASE
           WHEN regexp_matches(name, 'act_and_mul_kernel') THEN 'swiglu_fused'
           ELSE 'qkv_and_attention_layout_copy'
       END AS sub_component,
       90 AS priority
FROM kernel_names
-- strided copies (the elementwise_kernel form of direct_copy; unrolled_ is a contiguous cast), concatenations,
-- splits, KV-cache and VSA tile layouts
WHERE regexp_matches(name, '(^|[^A-Za-z0-9_])elementwise_kernel<.*direct_copy_kernel_cuda')
   OR regexp_matches(name, 'CatArrayBatchedCopy|split_with_sizes_copy_out|reshape_and_cache_flash_kernel|(^|[^A-Za-z0-9])_h3_vsa_')
   OR regexp_matches(name, 'act_and_mul_kernel')
