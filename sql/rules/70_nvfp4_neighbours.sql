-- component: nvfp4_packing | absmax, final-scale, zero-fill and NVFP4 quantization kernels
-- Context rule: generic PyTorch kernels that are NVFP4 packing work only when they sit next to an NVFP4
-- quantization or GEMM on the same stream (neighbour classes come from the name rules). Priority 25 beats
-- every name rule except the look-alike pins.
--   absmax_partial          abs / max reductions within the 4 kernels before the quantization or GEMM
--   scale_finalize          reciprocal / divide / clamp within the 3 kernels before it
--   block_scale_zero        zero-fill right before or after it
--   small_scale_conversion  bf16/fp8 casts and tensor x scalar right before or after it
SELECT context_key,
       'nvfp4_packing' AS component,
       CASE
           WHEN regexp_matches(name, 'AbsFunctor<|MaxNanFunctor|MaxOps<|triton_\w*abs\w*max') THEN 'absmax_partial'
           WHEN regexp_matches(name, 'FillFunctor<') THEN 'block_scale_zero'
           WHEN regexp_matches(name, 'bfloat16_copy_kernel_cuda|float8_copy_kernel_cuda|AUnaryFunctor<.*MulFunctor')
               THEN 'small_scale_conversion'
           ELSE 'scale_finalize'
       END AS sub_component,
       25 AS priority
FROM kernel_contexts
WHERE component = 'other'
  AND (
      (regexp_matches(name, 'AbsFunctor<|MaxNanFunctor|MaxOps<|triton_\w*abs\w*max')
       AND list_has_any(next_components[1:4], ['nvfp4_packing', 'nvfp4_gemms']))
   OR (regexp_matches(name, 'DivFunctor|reciprocal|clamp')
       AND list_has_any(next_components[1:3], ['nvfp4_packing', 'nvfp4_gemms']))
   OR (regexp_matches(name, 'FillFunctor<|bfloat16_copy_kernel_cuda|float8_copy_kernel_cuda|AUnaryFunctor<.*MulFunctor')
       AND (next_components[1] IN ('nvfp4_packing', 'nvfp4_gemms')
            OR prev_components[1] IN ('nvfp4_packing', 'nvfp4_gemms')))
  )
