-- creates: nccl_collective
-- The collective an NCCL kernel runs, from its name in every naming generation ('ncclAllReduceRingLLKernel_sum_f32',
-- 'ncclKernel_AllGather_RING_LL_Sum_int8_t', 'ncclDevKernel_ReduceScatter_Sum_f32_RING_LL', 'ncclSymDevKernel_...');
-- NULL for kernels that are not NCCL's. Since NCCL 2.19 the name is only the specialized collective: a SendRecv or
-- Generic kernel may run another collective.
CREATE OR REPLACE MACRO nccl_collective(name) AS
    CASE
        WHEN NOT regexp_matches(name, '(^|[^A-Za-z0-9_])(nccl(Sym)?(k)?(Dev)?Kernel_|ncclSymk[A-Za-z]*_|nccl[A-Z][A-Za-z]*Kernel)')
            THEN NULL
        ELSE CASE regexp_extract(name, '(AllGather|ReduceScatter|AllReduce|Broadcast|Reduce|SendRecv|Generic)', 1)
                 WHEN 'AllGather' THEN 'all_gather'
                 WHEN 'ReduceScatter' THEN 'reduce_scatter'
                 WHEN 'AllReduce' THEN 'all_reduce'
                 WHEN 'Broadcast' THEN 'broadcast'
                 WHEN 'Reduce' THEN 'reduce'
                 WHEN 'SendRecv' THEN 'send_recv'
                 WHEN 'Generic' THEN 'generic'
                 ELSE 'other'
             END
    END;
