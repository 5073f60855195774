-- family: quantization | quantize, dequantize and scale kernels for FP8, NVFP4, INT8 and MX formats, NVFP4 packing
-- Quantizers and their scale computations by name; a GEMM that dequantizes inside stays gemm (priority 20 beats
-- 25), a fused norm+quantize stays normalization.
SELECT name, 'quantization' AS family, 25 AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per|tem)_')
  AND (regexp_matches(bare_name, '(?i)quant|cvt_fp16_to_fp4|to_fp4|to_fp8|to_mxfp|fp8_cast|cast_fp8|cast_transpose|fp4_pack|pack_fp4|mxfp8|nvfp4|amax|compute_scale|scaled_fp8')
       OR regexp_matches(bare_name, '(^|[^A-Za-z0-9])(MeanScaleKernel)(<|\(|$)'))
