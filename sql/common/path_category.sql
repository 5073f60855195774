-- creates: path_category
-- The category of a critical path's segment (graph.critical_path, whatif.critical_path) from the walk's part
-- (graph_loops.OWN, START_WAIT, END_WAIT, BEFORE: 0 to 3), the node's category and the kind of the edge its start
-- waited for: a node's own time is of its category; the wait before it is gpu_gap (its stream's earlier operation),
-- launch_latency (its launch call), cpu_work (the thread's earlier call), event_wait (an operation of another stream
-- it waited for through an event); the wait before a call's end is synchronization, before a GPU operation's end
-- (a collective waiting for its last participant) communication_wait; the time before the path's first node is idle.
CREATE OR REPLACE MACRO path_category(part, category, start_kind) AS
    CASE part WHEN 0 THEN category
              WHEN 1 THEN CASE start_kind WHEN 'stream' THEN 'gpu_gap' WHEN 'launch' THEN 'launch_latency'
                                          WHEN 'program' THEN 'cpu_work' WHEN 'event' THEN 'event_wait' END
              WHEN 2 THEN CASE WHEN category IN ('launch_call', 'sync_call', 'api_call') THEN 'synchronization'
                               ELSE 'communication_wait' END
              ELSE 'idle' END;
