-- Kernels of the scope in stream order, with their neighbours on the same (device, stream) for rules that need
-- context: the name ids of the 4 kernels before (prev_1 nearest .. prev_4) and after (next_1 .. next_4) on the
-- stream (NULL past the ends), a context_key over the nine ids, and the latest end of the stream's earlier kernels,
-- which tells whether a kernel starts before an earlier kernel of its stream ended (kernels of one stream should
-- not overlap) and gives each stream's idle gaps (launches.stream_gaps): one sort serves neighbours, overlaps and
-- stream gaps. ncu launches have no time: their profiling order stands in for the start. The sort carries integers
-- only (a hash of the device label, not the label; its payload, not its row count, sets its cost): the label is
-- joined back after it.
-- requires: scope.ops, scope.names
-- creates: scope_kernels
--   device            device label ('(no device)' when missing)
--   device_index      the number of the device label
--   stream_id         CUDA stream
--   start_ns          GPU start (ns)
--   end_ns            GPU end (ns)
--   duration_ns       GPU duration (ns)
--   launch_order      ncu profiling order (NULL for nsys kernels)
--   name_id           scope_names.name_id of the kernel's name
--   prev_1            name id of the previous kernel on the stream (prev_2 .. prev_4 further back)
--   prev_2            second previous
--   prev_3            third previous
--   prev_4            fourth previous
--   next_1            name id of the next kernel on the stream (next_2 .. next_4 further on)
--   next_2            second next
--   next_3            third next
--   next_4            fourth next
--   stream_earlier_end_ns  latest end of the earlier kernels of its stream (ns); NULL for the stream's first
--   overlaps_earlier  true when it starts before an earlier kernel of its stream ended
--   context_key       hash of the nine name ids: kernels with one context get one class
CREATE OR REPLACE TEMP TABLE scope_kernels AS
    WITH k AS (
        SELECT hash(o.device) AS device_key, o.device_index, o.stream_id, o.start_ns, o.end_ns, o.duration_ns,
               o.launch_order, n.name_id
        FROM scope_ops o JOIN scope_names n USING (name)
        WHERE o.op_kind = 'kernel'
    ),
    neighbours AS (
        SELECT *,
               lag(name_id, 1) OVER s AS prev_1, lag(name_id, 2) OVER s AS prev_2,
               lag(name_id, 3) OVER s AS prev_3, lag(name_id, 4) OVER s AS prev_4,
               lead(name_id, 1) OVER s AS next_1, lead(name_id, 2) OVER s AS next_2,
               lead(name_id, 3) OVER s AS next_3, lead(name_id, 4) OVER s AS next_4,
               max(end_ns) OVER (s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS stream_earlier_end_ns
        FROM k
        WINDOW s AS (PARTITION BY device_key, stream_id ORDER BY coalesce(start_ns, launch_order), end_ns)
    ),
    devices AS (
        SELECT DISTINCT device, hash(device) AS device_key FROM scope_ops
    )
    SELECT d.device, n.* EXCLUDE (device_key), coalesce(n.start_ns < n.stream_earlier_end_ns, false) AS overlaps_earlier,
           hash(n.name_id, n.prev_1, n.prev_2, n.prev_3, n.prev_4, n.next_1, n.next_2, n.next_3, n.next_4)
               AS context_key
    FROM neighbours n JOIN devices d USING (device_key);
