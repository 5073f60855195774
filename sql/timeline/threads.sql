-- The names the API trace gives the capture's threads.
-- requires: scope.inputs
-- access: public
-- unique: pid, tid
-- not null: pid, tid
-- returns: rows
--   pid          BIGINT   process id
--   tid          BIGINT   thread id
--   thread_name  VARCHAR  its name (the alphabetically first, when the trace gives several)
SELECT pid, tid, min(thread_name) AS thread_name
FROM api_calls
WHERE trace_id = (SELECT api_trace FROM scope_inputs) AND thread_name IS NOT NULL AND thread_name <> ''
GROUP BY pid, tid
ORDER BY pid, tid
