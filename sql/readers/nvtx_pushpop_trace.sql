-- Shape one nsys nvtx_pushpop_trace into nvtx_ranges columns (trace_id is added by the store).
-- It reads the relation reader_source: the report's columns in base units (readers/nsys.py, readers/export.py).
SELECT
    start_ns,
    end_ns,
    coalesce(duration_ns, end_ns - start_ns) AS duration_ns,
    duration_child_ns,
    duration_nonchild_ns,
    name,
    CASE WHEN starts_with(name, ':') THEN name[2:] ELSE name END AS range_name,
    pid,
    tid,
    level,
    num_children,
    range_id,
    parent_id,
    range_stack,
    name_tree
FROM reader_source
