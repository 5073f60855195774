-- component: nvfp4_gemms | SM120 block-scaled CUTLASS GEMMs
-- NVFP4 block-scaled GEMMs: CUTLASS 3.x BlockScaled mainloops (SM100/SM120, dense and grouped), FlashInfer
-- CuTe-DSL BlockScaled GEMMs, cuBLASLt/cutlass_library `bstensorop` names with ue4m3 x e2m1 operands,
-- trtllm-gen `bmm_*_E2m1*`. MX variants are excluded in 05_lookalikes.sql.
SELECT name, 'nvfp4_gemms' AS component, 'gemm' AS sub_component, 20 AS priority
FROM kernel_names
WHERE regexp_matches(name, '(Mainloop\w*|Sm1\d\d)BlockScaled|(?i:blockscaled_\w*gemm)|BlockScaled\w*Gemm')
   OR regexp_matches(name, 'bstensorop\w*ue4m3xe2m1')
   OR regexp_matches(name, '(^|[^A-Za-z0-9])bmm_\w*_E2m1')
