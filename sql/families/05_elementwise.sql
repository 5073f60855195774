-- family: elementwise | pointwise arithmetic and activations: PyTorch elementwise kernels, Triton `triton_poi_*`, standalone rotary, gate, residual add, modulation
-- A Triton pointwise kernel is placed by its prefix whatever ops are fused into it (priority 5). PyTorch's
-- elementwise templates are elementwise unless their functor copies, casts or fills (07_memory.sql, priority 30) or
-- draws random numbers (11_random.sql); activations and axpy-like kernels by name (priority 50). A rotary embedding
-- alone is elementwise, before the memory rules take its `embedding` for a lookup (priority 28).
SELECT name, 'elementwise' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_poi_') THEN 5
            WHEN regexp_matches(bare_name, '(?i)rotary|(^|[^a-z])rope') THEN 28
            WHEN regexp_matches(short_name, '^(axpy|scal)_kernel') THEN 18  -- cuBLAS BLAS-1
            ELSE 50 END AS priority
FROM kernel_names
WHERE regexp_matches(bare_name, '^triton_poi_')
   OR regexp_matches(bare_name, '(^|[^A-Za-z0-9])SubMeanKernel(<|\(|$)')
   OR regexp_matches(bare_name, '(?i)elementwise_kernel|elementwise_grid_stride|act_and_mul|silu|gelu|swiglu|geglu|relu|sigmoid|tanh|rotary|(^|[^a-z])rope|modulat|scale_shift|_gate|gate_|residual|bias_add|add_bias|axpy|(^|[^a-z])scal_kernel|vec_?add|multi_tensor_apply|foreach|(^|[^A-Za-z0-9])scale_kernel|vectoradd|functor_add|binaryfunctor|unaryfunctor|activation')
