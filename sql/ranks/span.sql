-- First aligned kernel start and last aligned kernel end over all ranks.
-- requires: ranks.kernels, ranks.clock_offsets
-- returns: rows
--   span_start  first kernel start, aligned clock (ns); NULL without kernels
--   span_end    last kernel end, aligned clock (ns)
SELECT min(k.start_ns + o.offset_ns) AS span_start, max(k.end_ns + o.offset_ns) AS span_end
FROM rank_kernels k JOIN rank_offsets o USING (rank)
