-- Kernels of the scope with their neighbours on the same (device, stream), for rules that need context.
-- scope_names numbers the distinct kernel names; scope_kernels gives each kernel the ids of the 4 kernels before
-- and after it on its stream (nearest first, NULL past the ends), a context_key over the nine ids, and whether it
-- starts before an earlier kernel of its stream ended (kernels of one stream should not overlap).
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT name FROM scope_ops WHERE op_kind = 'kernel');

CREATE OR REPLACE TEMP TABLE scope_kernels AS
    WITH k AS (
        SELECT coalesce(o.device, '(no device)') AS device, o.device_index, o.stream_id,
               o.start_ns, o.end_ns, o.duration_ns, n.name_id
        FROM scope_ops o JOIN scope_names n USING (name)
        WHERE o.op_kind = 'kernel'
    ),
    neighbours AS (
        SELECT *,
               [lag(name_id, 1) OVER s, lag(name_id, 2) OVER s, lag(name_id, 3) OVER s, lag(name_id, 4) OVER s]
                   AS prev_ids,
               [lead(name_id, 1) OVER s, lead(name_id, 2) OVER s, lead(name_id, 3) OVER s, lead(name_id, 4) OVER s]
                   AS next_ids,
               coalesce(start_ns < max(end_ns) OVER (PARTITION BY device, stream_id ORDER BY start_ns, end_ns
                                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false)
                   AS overlaps_earlier
        FROM k
        WINDOW s AS (PARTITION BY device, stream_id ORDER BY start_ns, end_ns)
    )
    SELECT *, hash(name_id, prev_ids, next_ids) AS context_key FROM neighbours;
