-- creates: communication_collective
-- The collective a communication kernel runs: NCCL's from its name (nccl_collective), else from the words of a
-- custom collective's name ('cross_device_reduce_2stage' and 'oneShotAllReduce' reduce, 'all_gather_kernel'
-- gathers); 'other' when the name says none (NVSHMEM puts, barriers, DeepEP dispatch).
-- requires: common.nccl_collective
CREATE OR REPLACE MACRO communication_collective(name) AS
    coalesce(nccl_collective(name),
             CASE
                 WHEN regexp_matches(name, '(?i)reduce_?scatter') THEN 'reduce_scatter'
                 WHEN regexp_matches(name, '(?i)all_?gather') THEN 'all_gather'
                 WHEN regexp_matches(name, '(?i)all_?to_?all') THEN 'all_to_all'
                 WHEN regexp_matches(name, '(?i)all_?reduce|cross_device_reduce|custom_ar|one_?shot|two_?shot|lamport')
                     THEN 'all_reduce'
                 ELSE 'other'
             END);
