-- (DuckDB.) An nsys export's NVTX push/pop ranges (event types 59 and 70) with the columns of `nsys stats -r
-- nvtx_pushpop_trace`: the name is `DOMAIN:TEXT` (':TEXT' in the default domain); a range without an end lasts
-- to the last NVTX timestamp; the parent is the tightest other range of the thread that contains it.
WITH domains AS (
    SELECT domainId, (globalTid >> 24) AS process, arg_min(coalesce(s.value, e.text), e.start) AS name
    FROM nsys_export.NVTX_EVENTS e
    LEFT JOIN nsys_export.StringIds s ON s.id = e.textId
    WHERE e.eventType = 75
    GROUP BY ALL
),
ranges AS (
    SELECT e.rowNumber AS range_id, e.start AS start_ns,
           coalesce(e."end", (SELECT greatest(max(start), max("end")) FROM nsys_export.NVTX_EVENTS
                              WHERE eventType IN (59, 70))) AS end_ns,
           coalesce(d.name, '') || ':' || coalesce(s.value, e.text, '') AS name, e.globalTid,
           (e.globalTid >> 24) & 16777215 AS pid, e.globalTid & 16777215 AS tid
    FROM nsys_export.NVTX_EVENTS e
    LEFT JOIN domains d ON d.domainId = e.domainId AND d.process = (e.globalTid >> 24)
    LEFT JOIN nsys_export.StringIds s ON s.id = e.textId
    WHERE e.eventType IN (59, 70)
),
containers AS (  -- every (range, range containing it) pair of one thread
    SELECT c.range_id, p.range_id AS container_id, p.start_ns AS container_start_ns,
           (c.start_ns - p.start_ns) + (p.end_ns - c.end_ns) AS looseness
    FROM ranges c
    JOIN ranges p ON p.globalTid = c.globalTid AND p.range_id <> c.range_id
                 AND p.start_ns <= c.start_ns AND p.end_ns >= c.end_ns
),
ancestry AS (
    SELECT range_id, arg_min(container_id, looseness) AS parent_id, count(*) AS level,
           string_agg(':' || container_id, '' ORDER BY container_start_ns, looseness DESC) AS stack
    FROM containers GROUP BY range_id
),
children AS (
    SELECT a.parent_id AS range_id, count(*) AS num_children, sum(r.end_ns - r.start_ns) AS duration_child_ns
    FROM ancestry a JOIN ranges r USING (range_id) GROUP BY a.parent_id
)
SELECT r.start_ns, r.end_ns, r.end_ns - r.start_ns AS duration_ns, coalesce(ch.duration_child_ns, 0) AS duration_child_ns,
       r.end_ns - r.start_ns - coalesce(ch.duration_child_ns, 0) AS duration_nonchild_ns, r.name, r.pid, r.tid,
       coalesce(a.level, 0) AS level, coalesce(ch.num_children, 0) AS num_children, r.range_id, a.parent_id,
       coalesce(a.stack, '') || ':' || r.range_id AS range_stack, repeat('--', coalesce(a.level, 0)::INTEGER) || r.name AS name_tree
FROM ranges r
LEFT JOIN ancestry a USING (range_id)
LEFT JOIN children ch USING (range_id)
