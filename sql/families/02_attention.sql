-- family: attention | fused attention: FlashAttention, cuDNN SDPA, CUTLASS/xFormers fmha, FlashInfer, SageAttention, paged and MLA decode attention
-- A fused attention kernel names itself (flash, fmha, sdpa, attention, paged KV cache); a Triton template of
-- attention (FlexAttention) is attention. Other Triton kernels are placed by their prefix, not by the op names
-- fused into them (`triton_poi_fused__scaled_dot_product_cudnn_attention_*` is elementwise): priority 2 for the
-- templates, 10 for the rest (after the Triton prefix rules at 5).
SELECT name, 'attention' AS family,
       CASE WHEN regexp_matches(bare_name, '^triton_tem_') THEN 2 ELSE 10 END AS priority
FROM kernel_names
WHERE (regexp_matches(bare_name, '^triton_tem_') AND regexp_matches(bare_name, '(?i)attention|flex_|sdpa'))
   OR (NOT regexp_matches(bare_name, '^triton_(poi|red|per)_')
       AND (regexp_matches(bare_name, '(?i)flash_?attn|flashattention|flash_fwd|flash_bwd|flash::|fmha|sdpa|attention|_attn_|attn_fwd|attn_bwd|mha_(fwd|bwd)|mmha|multihead|flash_?decod|flash_?mla|mla_decode')
            OR regexp_matches(bare_name, 'With(Paged|Ragged)KVCache|(Single|Batch)(Prefill|Decode)With|PagedAttention|paged_attention')))
