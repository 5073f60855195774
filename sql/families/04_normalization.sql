-- family: normalization | layer, RMS, group, batch and instance norm, fused norm+RoPE and add+norm
-- Norm kernels by name (PyTorch vectorized_layer_norm_kernel also serves RMS norm); a Triton kernel that fuses a
-- normalization (rms_norm, layer_norm, native_layer_norm, group/batch norm, or mean ... rsqrt) is normalization,
-- before its prefix places it (priority 2). `normal_kernel` (random numbers) is no norm: tokens are whole words.
-- A norm kernel in a collective's namespace (an all-reduce's trailing RMS norm) is normalization (priority 8).
SELECT name, 'normalization' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_') THEN 2
            -- the function itself is a norm: it beats the collective its namespace names (priority 10)
            WHEN regexp_matches(short_name, '(?i)layer_?norm|rms_?norm|group_?norm|batch_?norm') THEN 8
            ELSE 20 END AS priority
FROM kernel_names
WHERE regexp_matches(bare_name, '(?i)layer_?norm|rms_?norm|(^|_)rms_|group_?norm|batch_?norm|instance_?norm|(^|[^a-z])ln_(fwd|bwd)|(^|[^a-z])bn_(fw|bw)|RowwiseMoments|ComputeInternalGradients|GammaBetaBackward|cuApplyLayerNorm|cuComputeGradInput|cuComputePartGradGammaBeta|cuComputeGradGammaBeta')
   OR (regexp_matches(bare_name, '^triton_') AND regexp_matches(bare_name, 'mean.*rsqrt|rsqrt.*mean'))
