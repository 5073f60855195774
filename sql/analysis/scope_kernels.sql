-- Kernels of the scope with their neighbours on the same (device, stream), for rules that need context.
-- scope_names numbers the distinct kernel names; scope_kernels gives each kernel the ids of the 4 kernels before
-- (prev_1 nearest .. prev_4) and after it (next_1 .. next_4) on its stream (NULL past the ends), a context_key over
-- the nine ids, and whether it starts before an earlier kernel of its stream ended (kernels of one stream should
-- not overlap). Streams are partitioned by a hash of the device label: sorting on an integer is several times
-- faster than on the label, and the label is kept for grouping.
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT name FROM scope_ops WHERE op_kind = 'kernel');

CREATE OR REPLACE TEMP TABLE scope_kernels AS
    WITH k AS (
        SELECT coalesce(o.device, '(no device)') AS device, hash(o.device) AS device_key, o.device_index,
               o.stream_id, o.start_ns, o.end_ns, o.duration_ns, n.name_id
        FROM scope_ops o JOIN scope_names n USING (name)
        WHERE o.op_kind = 'kernel'
    ),
    neighbours AS (
        SELECT *,
               lag(name_id, 1) OVER s AS prev_1, lag(name_id, 2) OVER s AS prev_2,
               lag(name_id, 3) OVER s AS prev_3, lag(name_id, 4) OVER s AS prev_4,
               lead(name_id, 1) OVER s AS next_1, lead(name_id, 2) OVER s AS next_2,
               lead(name_id, 3) OVER s AS next_3, lead(name_id, 4) OVER s AS next_4,
               coalesce(start_ns < max(end_ns) OVER (s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false)
                   AS overlaps_earlier
        FROM k
        WINDOW s AS (PARTITION BY device_key, stream_id ORDER BY start_ns, end_ns)
    )
    SELECT * EXCLUDE (device_key),
           hash(name_id, prev_1, prev_2, prev_3, prev_4, next_1, next_2, next_3, next_4) AS context_key
    FROM neighbours;
