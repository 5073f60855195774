-- family: reduction | reductions, softmax, argmax, cross-entropy, norms of tensors (PyTorch reduce_kernel, Triton triton_red_* and triton_per_*, CUB reduce)
-- A Triton reduction or persistent-reduction kernel is placed by its prefix (priority 5) unless it fuses a
-- normalization (04_normalization.sql, priority 2); other reductions by name (priority 40).
SELECT name, 'reduction' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_(red|per)_') THEN 5
            WHEN regexp_matches(short_name, '^(dot|nrm2|asum|iamax|iamin|reduce_1Block)_kernel') THEN 18  -- cuBLAS BLAS-1
            WHEN regexp_matches(bare_name, '(?i)pool') THEN 28  -- pooling, before its layout words (nchw) say memory
            ELSE 40 END AS priority
FROM kernel_names
WHERE regexp_matches(bare_name, '^triton_(red|per)_')
   OR regexp_matches(bare_name, '(^|[^A-Za-z0-9])(reduce_kernel|DeviceReduce\w*|DeviceSegmentedReduce\w*)(<|\(|$)')
   OR regexp_matches(bare_name, '(?i)softmax|argmax|argmin|cross_?entropy|nll_?loss|NLLCriterion|logsumexp|reduce_(sum|max|min|mean)|(^|[^a-z])(sum|mean)_kernel|l2_?norm|(max|avg|average)_?pool|adaptive_\w*pool')
   OR regexp_matches(short_name, '^(dot|nrm2|asum|iamax|iamin|reduce_1Block)_kernel')
