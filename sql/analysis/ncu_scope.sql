-- The scope rules read, built from ncu launches: each profiled launch is a kernel, ordered by ID on its stream
-- (ncu profiles launches in order), so name and context rules classify ncu kernels as they do nsys ones.
-- {ncu_traces} is a list of trace ids.
CREATE OR REPLACE TEMP TABLE scope_names AS
    SELECT name, CAST(row_number() OVER (ORDER BY name) AS INTEGER) AS name_id
    FROM (SELECT DISTINCT kernel_name AS name FROM ncu_results WHERE trace_id IN {ncu_traces});

CREATE OR REPLACE TEMP TABLE scope_kernels AS
    WITH k AS (
        SELECT r.trace_id, r.result_id, coalesce(r.device, '(no device)') AS device, r.stream_id, n.name_id
        FROM ncu_results r JOIN scope_names n ON n.name = r.kernel_name
        WHERE r.trace_id IN {ncu_traces}
    ),
    neighbours AS (
        SELECT *,
               [lag(name_id, 1) OVER s, lag(name_id, 2) OVER s, lag(name_id, 3) OVER s, lag(name_id, 4) OVER s]
                   AS prev_ids,
               [lead(name_id, 1) OVER s, lead(name_id, 2) OVER s, lead(name_id, 3) OVER s, lead(name_id, 4) OVER s]
                   AS next_ids
        FROM k
        WINDOW s AS (PARTITION BY trace_id, device, stream_id ORDER BY result_id)
    )
    SELECT *, hash(name_id, prev_ids, next_ids) AS context_key FROM neighbours;
