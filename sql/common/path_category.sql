-- creates: path_category
-- The category of a critical path's segment (graph.critical_path, whatif.critical_path) from the walk's part
-- (graph_loops.OWN, START_WAIT, END_WAIT, BEFORE: 0 to 3), the node's category and the kind of the edge its start
-- waited for: a node's own time is of its category; the wait before it is gpu_gap (its stream's earlier operation),
-- launch_latency (its launch call), cpu_work (the thread's earlier call); the wait before a call's end is
-- synchronization; the time before the path's first node is idle.
CREATE OR REPLACE MACRO path_category(part, category, start_kind) AS
    CASE part WHEN 0 THEN category
              WHEN 1 THEN CASE start_kind WHEN 'stream' THEN 'gpu_gap' WHEN 'launch' THEN 'launch_latency'
                                          WHEN 'program' THEN 'cpu_work' END
              WHEN 2 THEN 'synchronization'
              ELSE 'idle' END;
