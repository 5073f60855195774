-- component: other | all unmatched kernels
-- Context rule: an unfused SwiGLU is a SiLU kernel followed on its stream by a generic BinaryFunctor MulFunctor
-- kernel. Neither can be placed by name: SiLU also feeds adaLN modulation, MulFunctor serves gates and scales.
SELECT context_key,
       'other' AS component,
       CASE WHEN regexp_matches(name, '(^|[^A-Za-z0-9_])silu_kernel') THEN 'swiglu_silu' ELSE 'swiglu_multiply' END
           AS sub_component,
       85 AS priority
FROM kernel_contexts
WHERE (regexp_matches(name, '(^|[^A-Za-z0-9_])silu_kernel')
       AND regexp_matches(next_names[1], 'BinaryFunctor<.*MulFunctor'))
   OR (regexp_matches(name, 'BinaryFunctor<.*MulFunctor')
       AND regexp_matches(prev_names[1], '(^|[^A-Za-z0-9_])silu_kernel'))
