-- family: convolution | convolutions: cuDNN fprop/dgrad/wgrad (implicit GEMM, Winograd, FFT), PyTorch im2col/col2im and depthwise kernels
-- Convolutions by name; cuDNN runs many as implicit GEMMs, so these beat the GEMM tokens (priority 15 before 20),
-- and a Triton convolution template beats the matmul templates (priority 2 before 3). im2col and col2im only move
-- data for a GEMM-based convolution: memory (07_memory.sql).
SELECT name, 'convolution' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_tem_') THEN 2 ELSE 15 END AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per)_')
  AND regexp_matches(bare_name, '(?i)conv[123]d|convolution|convolve|conv_|_conv([^e]|$)|fprop|dgrad|wgrad|winograd|implicit_?gemm|depthwise|dwconv')
