-- communication.kernels of the ranks analysis (it stands in for it): every rank's kernels on the aligned clock,
-- clipped to [$span_start, $span_end), each rank standing for a device (its number is the label).
-- requires: ranks.kernels, ranks.clock_offsets, classify.kernel_families, common.communication_collective
-- access: private
-- creates: communication_kernels
--   device            VARCHAR  the rank's number, as text
--   stream_id         BIGINT   CUDA stream
--   start_ns          BIGINT   kernel start on the aligned clock, clipped to the span (ns)
--   end_ns            BIGINT   kernel end, likewise (ns)
--   is_communication  BOOLEAN  the kernel's family is communication
--   collective        VARCHAR  its collective (all_reduce, all_gather, send_recv, ..., other); NULL for other kernels
CREATE OR REPLACE TEMP TABLE communication_kernels AS
    WITH named AS (  -- each name's collective worked out once: its regular expressions cost more than a join
        SELECT name, family = 'communication' AS is_communication,
               CASE WHEN family = 'communication' THEN communication_collective(name) END AS collective
        FROM kernel_families
    )
    SELECT CAST(k.rank AS VARCHAR) AS device, k.stream_id,
           greatest(k.start_ns + o.offset_ns, $span_start) AS start_ns,
           least(k.end_ns + o.offset_ns, $span_end) AS end_ns,
           n.is_communication, n.collective
    FROM rank_kernels k
    JOIN rank_offsets o USING (rank)
    JOIN named n USING (name)
    WHERE least(k.end_ns + o.offset_ns, $span_end) >= greatest(k.start_ns + o.offset_ns, $span_start);
