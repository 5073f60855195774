-- What the what-if edits that name no pattern apply to in the scope: its kernel launch calls (--launch-latency)
-- and communication kernels (--overlap-communication).
-- requires: whatif.nodes
-- access: public
-- not null: launch_calls, communication_kernels
-- returns: rows
--   launch_calls           BIGINT  kernel launch calls (graph_nodes category launch_call)
--   communication_kernels  BIGINT  kernels of the communication family
SELECT count(*) FILTER (WHERE category = 'launch_call') AS launch_calls,
       count(*) FILTER (WHERE communication) AS communication_kernels
FROM whatif_nodes
