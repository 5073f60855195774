-- The scope every analysis reads: a whole capture. {gpu_trace} and {kern_exec_trace} are trace ids (or NULL).
-- Operations with a negative duration or one over an hour are left out (integrity.sql counts them).
CREATE OR REPLACE TEMP VIEW scope_ops AS
    SELECT * FROM gpu_ops WHERE trace_id = {gpu_trace} AND duration_ns BETWEEN 0 AND max_duration_ns();
CREATE OR REPLACE TEMP VIEW scope_launches AS
    SELECT * FROM kernel_launches WHERE trace_id = {kern_exec_trace};
