-- component: other | all unmatched kernels
-- Names that the component rules below would otherwise catch by accident (kernel_names/README.md pitfalls).
-- Priority 1 beats every component rule, so these stay `other`.
SELECT name, 'other' AS component, 1 AS priority
FROM kernel_names
WHERE (
    -- MX (not NV) FP4/FP6/FP8 block-scaled GEMMs and quantizers: ue8m0 scales, MxE2m1 weights, MXFP8.
    regexp_matches(name, 'float_ue8m0_t|_ue8m0x|MxE2m1|(?i:mxfp[468])')
    -- FP8 block-wise GEMMs share the CUTLASS SM120 prefix but use BlockwiseScaling mainloops.
    OR regexp_matches(name, 'BlockwiseScaling')
)
    -- NVFP4 quantizers stay claimable by 30_nvfp4_packing.sql.
AND NOT regexp_matches(name, 'cvt_fp16_to_fp4|Fp4QuantKernel')
