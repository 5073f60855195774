-- component: sage2 | mainloop plus MeanScale/TransposePadPermute/QuantInt8 preparation
-- SageAttention2 mainloops (sm80/sm89/sm90/sm120) and its preparation kernels.
-- Tokens need a non-identifier character before them, so DistributedMeanScaleKernel (MatX) does not match,
-- and accept `<`, `(` or the end of the name after them, for `:base` names without template arguments.
SELECT name, 'sage2' AS component, 10 AS priority
FROM kernel_names
WHERE regexp_matches(name, '(^|[^A-Za-z0-9_])qk_int8?_sv_f(8|16)_attn_kernel(<|\(|$)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_:])(QuantInt8Kernel|MeanScaleKernel|TransposePadPermuteKernel|SubMeanKernel)(<|\(|$)')
