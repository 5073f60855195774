-- component: nvfp4_packing | absmax, final-scale, zero-fill and NVFP4 quantization kernels
-- NVFP4 activation quantization/packing by name. Generic absmax / scale / zero-fill kernels (AbsFunctor,
-- MaxNanFunctor reductions, FillFunctor) can only be placed by their neighbours: 70_nvfp4_neighbours.sql.
SELECT name, 'nvfp4_packing' AS component, 'activation_pack' AS sub_component, 30 AS priority
FROM kernel_names
WHERE regexp_matches(name, '(^|[^A-Za-z0-9_])(silu_mul_)?cvt_fp16_to_fp4(<|\(|$)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])(SiluAndMul|Scaled)?Fp4QuantKernel')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])quantize_with_block_size')
   OR regexp_matches(name, 'flashinferquantization\w*(nvfp4|NVFP4|Nvfp4|fp4_quantize|Fp4Quantize)')
