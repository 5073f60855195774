-- family: gemm | dense matrix multiply in any precision or library: cuBLAS/cuBLASLt (nvjet, xmma, split-K reduce), CUTLASS/CuTe (block-scaled, grouped/MoE), Triton matmul templates, gemv
-- Library GEMM kernels by their tokens; a Triton `triton_tem_*` template is a matmul (priority 3 beats the Triton
-- prefix rules of the other families) unless it is an attention template (02_attention.sql). Convolutions that run
-- as implicit GEMMs are convolution (priority 15 beats 20); cuBLAS's BLAS-1 kernels, whose parameters name its GEMV
-- tensors, are reductions and elementwise kernels (priority 18, 06_reduction.sql and 05_elementwise.sql).
SELECT name, 'gemm' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_tem_') THEN 3 ELSE 20 END AS priority
FROM kernel_names
WHERE regexp_matches(bare_name, '^triton_tem_')
   OR regexp_matches(bare_name, '(?i)gemm|gemv|matmul|nvjet_|splitKreduce|ReduceSplitK|_bmm|bmm_|scaled_mm|blockscaled|cublasLt::|cutlass3x_|tensorop_|fused_moe_kernel')
   OR regexp_matches(bare_name, '(^|[^A-Za-z0-9])(Marlin|marlin::Marlin|CollectiveMma)(<|\(|$)')
