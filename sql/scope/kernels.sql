-- Kernels of the scope in stream order, with their neighbours on the same (device, stream) for rules that need
-- context: the name ids of the 4 kernels before (prev_1 nearest .. prev_4) and after (next_1 .. next_4) on the
-- stream (NULL past the ends), a context_key over the nine ids, and the latest end of the stream's earlier kernels,
-- which tells whether a kernel starts before an earlier kernel of its stream ended (kernels of one stream should
-- not overlap) and gives each stream's idle gaps (launches.stream_gaps): one sort serves neighbours, overlaps and
-- stream gaps. ncu launches have no time: their profiling order stands in for the start. The rows come in order of
-- device, stream (NULL last), start, end and name; the pass (nsight_ingest.passes.StreamKernels) shifts the name
-- ids within each stream a batch at a time; it carries a hash of the device label, not the label, which is joined
-- back after it.
-- requires: scope.ops, scope.names
-- computed by: nsight_ingest.passes
-- access: private
-- not null: device, stream_id, start_ns, end_ns, name_id, context_key
-- creates: scope_kernels
--   device                 VARCHAR  device label ('(no device)' when missing)
--   device_index           INTEGER  the number of the device label
--   stream_id              BIGINT   CUDA stream
--   start_ns               BIGINT   GPU start (ns)
--   end_ns                 BIGINT   GPU end (ns)
--   duration_ns            BIGINT   GPU duration (ns)
--   launch_order           BIGINT   ncu profiling order (NULL for nsys kernels)
--   name_id                INTEGER  scope_names.name_id of the kernel's name
--   prev_1                 INTEGER  name id of the previous kernel on the stream (prev_2 .. prev_4 further back)
--   prev_2                 INTEGER  second previous
--   prev_3                 INTEGER  third previous
--   prev_4                 INTEGER  fourth previous
--   next_1                 INTEGER  name id of the next kernel on the stream (next_2 .. next_4 further on)
--   next_2                 INTEGER  second next
--   next_3                 INTEGER  third next
--   next_4                 INTEGER  fourth next
--   stream_earlier_end_ns  BIGINT   latest end of the earlier kernels of its stream (ns); NULL for the stream's first
--   overlaps_earlier       BOOLEAN  true when it starts before an earlier kernel of its stream ended
--   context_key            UBIGINT  hash of the nine name ids: kernels with one context get one class
SELECT hash(o.device) AS device_key, o.device_index, o.stream_id, o.start_ns, o.end_ns, o.duration_ns,
       o.launch_order, n.name_id
FROM scope_ops o JOIN scope_names n USING (name)
WHERE o.op_kind = 'kernel'
ORDER BY device_key, o.stream_id NULLS LAST, coalesce(o.start_ns, o.launch_order) NULLS LAST, o.end_ns NULLS LAST,
         n.name_id;
CREATE OR REPLACE TEMP TABLE scope_kernels AS
    WITH devices AS (
        SELECT DISTINCT device, hash(device) AS device_key FROM scope_ops
    )
    SELECT d.device, k.device_index, k.stream_id, k.start_ns, k.end_ns, k.duration_ns, k.launch_order, k.name_id,
           k.prev_1, k.prev_2, k.prev_3, k.prev_4, k.next_1, k.next_2, k.next_3, k.next_4, k.stream_earlier_end_ns,
           coalesce(k.start_ns < k.stream_earlier_end_ns, false) AS overlaps_earlier,
           hash(k.name_id, k.prev_1, k.prev_2, k.prev_3, k.prev_4, k.next_1, k.next_2, k.next_3, k.next_4)
               AS context_key
    FROM scope_kernels_pass k JOIN devices d USING (device_key);
