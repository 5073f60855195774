-- family: sort | sorting and selection: radix and bitonic sort, top-k, scan (prefix sum), select/unique, MoE routing sort
-- By name; top-k gathers are sort, not memory (priority 25 beats 30).
SELECT name, 'sort' AS family, 25 AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per|tem)_')
  AND NOT regexp_matches(bare_name, '(?i)softmax')  -- MoE gating (softmax, then top-k) is a reduction
  AND NOT regexp_matches(bare_name, '(?i)index_put|selective_scan|sampling')  -- sorts inside, not what they do
  AND (regexp_matches(bare_name, '(?i)sort|topk|top_k|scan|cumsum|cumprod|unique|DeviceSelect|select_?if|DevicePartition|moe_align|align_block_size|expert_offsets|DigitCumSum|mbtopk|sbtopk')
       OR regexp_matches(bare_name, '(^|[^A-Za-z0-9])(RadixSort\w*|DeviceRadix\w*|DeviceScan\w*|DeviceSegmentedSort\w*)(<|\(|$)'))
