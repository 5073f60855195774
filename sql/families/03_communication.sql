-- family: communication | NCCL/RCCL collectives and send/recv, custom all-reduce (vLLM, TRT-LLM, SymmetricMemory, FlashInfer), NVSHMEM, DeepEP
-- Collective kernels by library prefix or collective name (a whole word: `small_reduce_kernel` is no all-reduce); a
-- fused all-reduce + norm stays communication (priority 10 beats normalization at 20).
SELECT name, 'communication' AS family, 10 AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per|tem)_')
  AND (regexp_matches(bare_name, '(?i)nccl|rccl|nvshmem|deep_ep|(^|[^a-z])(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all)|cross_device_reduce|multimem|lamport|symm_mem|msccl|barrier_on_stream')
       OR regexp_matches(bare_name, 'flashinfer::comm::|custom_ar|CustomAllReduce|oneShot|twoShot|one_shot_|two_shot_'))
