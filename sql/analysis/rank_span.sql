-- First aligned kernel start and last aligned kernel end over all ranks.
SELECT min(k.start_ns + o.offset_ns) AS span_start, max(k.end_ns + o.offset_ns) AS span_end
FROM rank_kernels k JOIN rank_offsets o USING (rank)
