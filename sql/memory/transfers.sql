-- Memory transfers per device: memcpys (one row per direction, as the operation's name gives it) and memsets, split
-- by whether host memory is pageable and whether the host waited for them. A pageable copy (its source or
-- destination memory kind is 'Pageable') is staged by the driver through a pinned buffer: it is slower and cannot
-- overlap kernels. The host waits for a transfer issued by a synchronous call (a cudaMemcpy/cuMemcpy/cudaMemset/
-- cuMemset function without 'Async' in its name) when, as CUDA's API synchronization behavior says, it is a copy to
-- or from host memory (not device-to-device or peer-to-peer) or a memset of host or managed memory. The issuing call
-- is the memory API call of one of the device's processes (scope.device_processes) with the operation's
-- correlation id, anywhere in the capture.
-- requires: scope.ops, scope.capture_api_calls, scope.device_processes
-- access: public
-- returns: rows
--   device       VARCHAR  device label
--   op_kind      VARCHAR  memcpy | memset
--   name         VARCHAR  operation name as exported, e.g. '[CUDA memcpy Host-to-Device]'
--   pageable     BOOLEAN  true when its source or destination memory is pageable host memory; NULL when the export
--                         gives no memory kind
--   synchronous  BOOLEAN  true when a synchronous call issued it and the host waited for it; false otherwise; NULL when
--                         no issuing call is known (no API trace)
--   operations   BIGINT   transfers
--   time_ns      HUGEINT  their summed duration (ns)
--   bytes        HUGEINT  their summed size (bytes); NULL when the export gives none
WITH memory AS (
    SELECT device, op_kind, name, corr_id, duration_ns, transfer_bytes,
           CASE WHEN src_mem_kind IS NULL AND dst_mem_kind IS NULL THEN NULL
                ELSE coalesce(src_mem_kind = 'Pageable', false) OR coalesce(dst_mem_kind = 'Pageable', false)
           END AS pageable,
           CASE op_kind
               WHEN 'memcpy' THEN NOT regexp_matches(name, 'Device-to-Device|DtoD|Peer-to-Peer|PtoP')
               ELSE coalesce(dst_mem_kind IN ('Pageable', 'Pinned', 'Managed'), false)
           END AS host_waits
    FROM scope_ops
    WHERE op_kind IN ('memcpy', 'memset')
),
issued AS (  -- per device and correlation id: whether a synchronous memory call issued the operation
    SELECT p.device, c.corr_id, bool_or(NOT contains(c.name, 'Async')) AS synchronous
    FROM capture_api_calls c
    JOIN device_processes p ON p.pid IS NOT DISTINCT FROM c.pid
    WHERE regexp_matches(c.name, '^cu(da)?Mem(cpy|set)') AND c.corr_id IN (SELECT corr_id FROM memory)
    GROUP BY p.device, c.corr_id
)
SELECT m.device, m.op_kind, m.name, m.pageable, i.synchronous AND m.host_waits AS synchronous, count(*) AS operations,
       sum(m.duration_ns) AS time_ns, sum(m.transfer_bytes) AS bytes
FROM memory m
LEFT JOIN issued i ON i.device = m.device AND i.corr_id = m.corr_id
GROUP BY ALL
ORDER BY device, time_ns DESC, name, pageable, synchronous
