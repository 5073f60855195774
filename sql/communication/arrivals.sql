-- Who waits for whom at each collective, among the GPUs of one capture (one clock): the n-th communication kernel
-- of a collective on each device (in start order) is one instance of it; an instance that every device with
-- communication kernels ran is judged: its skew is the last arrival (kernel start) less the first, and each device
-- waits from its own arrival to the last one. A device arriving last time after time holds the others up (more work,
-- a slower input pipeline, a throttled GPU): their exposed communication is partly waiting for it. Collectives of
-- different process groups of the same kind (two all-reduce groups on one device) pair up in start order, which
-- may pair the wrong instances. Empty with fewer than two such devices; several captures of one job: `ranks`.
-- requires: communication.kernels
-- access: public
-- unique: device, collective
-- not null: collective
-- returns: rows
--   device          VARCHAR  device label
--   collective      VARCHAR  collective (communication_collective)
--   instances       BIGINT   instances every device ran
--   wait_ns         HUGEINT  summed time this device waited for the last arrival (ns)
--   arrived_last    BIGINT   instances this device arrived last at (with a positive skew)
--   caused_wait_ns  HUGEINT  summed skew of the instances it arrived last at (ns)
WITH instances AS (
    SELECT device, collective, start_ns,
           row_number() OVER (PARTITION BY device, collective ORDER BY start_ns, end_ns) AS ordinal
    FROM communication_kernels
    WHERE is_communication
),
devices AS (
    SELECT count(DISTINCT device) AS n FROM instances
),
complete AS (
    SELECT collective, ordinal FROM instances
    GROUP BY collective, ordinal
    HAVING count(DISTINCT device) = (SELECT n FROM devices) AND (SELECT n FROM devices) > 1
),
judged AS (
    SELECT i.device, i.collective, max(i.start_ns) OVER w - min(i.start_ns) OVER w AS skew_ns,
           arg_max(i.device, i.start_ns) OVER w AS last_device, max(i.start_ns) OVER w - i.start_ns AS wait_ns
    FROM instances i JOIN complete USING (collective, ordinal)
    WINDOW w AS (PARTITION BY i.collective, i.ordinal)
)
SELECT device, collective, count(*) AS instances, sum(wait_ns) AS wait_ns,
       count(*) FILTER (WHERE last_device = device AND skew_ns > 0) AS arrived_last,
       coalesce(sum(skew_ns) FILTER (WHERE last_device = device AND skew_ns > 0), 0) AS caused_wait_ns
FROM judged
GROUP BY device, collective
ORDER BY collective, device
