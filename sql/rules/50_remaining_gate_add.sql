-- component: remaining_gate_add | fused residual gate/add kernels
-- Fused DiT residual gate/add and modulation kernels, which are Triton-named (`_..._gate_...`, `gate_add`,
-- `scale_shift`, `modulat`); Triton kernels show as their bare Python name (`gate_add_kernel`).
-- Sub-components: gate_add (gated residual, also when fused with a norm) and modulation (scale/shift).
-- Eager CUDAFunctor_add / MulFunctor kernels are shared with index math, SwiGLU and scale conversion,
-- so they are not claimed by name.
SELECT name,
       'remaining_gate_add' AS component,
       CASE WHEN regexp_matches(name, 'gate|residual') THEN 'gate_add' ELSE 'modulation' END AS sub_component,
       50 AS priority
FROM kernel_names
WHERE regexp_matches(name, '(^|[^A-Za-z0-9])_[a-z0-9_]*gate_[a-z0-9_]*(scale_shift|rms_norm|add|residual)[a-z0-9_]*kernel')
   OR regexp_matches(name, '(^|/)(triton_\w+_fused_)?_?[a-z0-9_]*(gate_add|gated_residual|modulat|scale_shift)[a-z0-9_]*$')
