-- component: norm_and_rope | layer norm, mean reduction and fused RMS/RoPE kernels
-- LayerNorm / RMSNorm / RoPE kernels of PyTorch, vLLM, FlashInfer, apex, Liger and Inductor, plus plain
-- mean reductions (reduce_kernel with MeanOps). Triton kernels appear under their Python name
-- (`fused_rms_rope_kernel`), so RMS+RoPE identifiers match as whole names. Tokens are bounded so that normal_kernel (torch.randn),
-- batch_norm, GroupNorm and fused_add_rms_norm / gate+norm hybrids are not caught.
SELECT name, 'norm_and_rope' AS component, 40 AS priority
FROM kernel_names
WHERE regexp_matches(name, '(^|[^A-Za-z0-9_])(vectorized_layer_norm_kernel|RowwiseMomentsCUDAKernel|LayerNormForwardCUDAKernel)(<|\(|$)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])(rms_norm_kernel|RMSNormKernel|rotary_embedding_kernel)(<|\(|$|\s)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])(cuApplyLayerNorm|cuApplyRMSNorm|applyMLARope|BatchQKApplyRotary\w*)(<|\(|$)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])Local(Plain|Fused)RMSNorm')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])_(rms_norm|layer_norm)_forward_kernel|(^|[^A-Za-z0-9_])_rms_norm_rope_kernel|(^|[^A-Za-z0-9_])_triton_rope')
   OR regexp_matches(name, '(^|[^A-Za-z0-9_])triton_(red|per)_fused_\w*(mean\w*pow\w*rsqrt|native_layer_norm)')
   OR regexp_matches(name, '(^|[^A-Za-z0-9])[A-Za-z0-9_]*rms_?(norm_?)?_?rope[A-Za-z0-9_]*$')
   OR regexp_matches(name, 'reduce_kernel<.*MeanOps<')
