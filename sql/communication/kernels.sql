-- The kernels communication overlap is measured over: every timed kernel of the scope, with whether its family is
-- `communication` (the family rules) and, if so, its collective (communication_collective). A view over the
-- scope's kernels; the ranks analysis stands in its own (ranks.communication_kernels).
-- requires: scope.kernels, classify.kernel_families, common.communication_collective
-- access: private
-- creates: communication_kernels
--   device            VARCHAR  device label
--   stream_id         BIGINT   CUDA stream
--   start_ns          BIGINT   kernel start (ns)
--   end_ns            BIGINT   kernel end (ns)
--   is_communication  BOOLEAN  the kernel's family is communication
--   collective        VARCHAR  its collective (all_reduce, all_gather, send_recv, ..., other); NULL for other kernels
CREATE OR REPLACE TEMP VIEW communication_kernels AS
    WITH named AS (  -- each name's collective worked out once: its regular expressions cost more than a join
        SELECT name_id, family = 'communication' AS is_communication,
               CASE WHEN family = 'communication' THEN communication_collective(name) END AS collective
        FROM kernel_families
    )
    SELECT k.device, k.stream_id, k.start_ns, k.end_ns, n.is_communication, n.collective
    FROM scope_kernels k JOIN named n USING (name_id)
    WHERE k.start_ns IS NOT NULL;
