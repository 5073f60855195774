-- The GPU operations of the scope as the timeline shows them, each once: kernels with their class (component and
-- sub-component), family and short name, and every operation's grid, block and transfer details from the store.
-- A kernel's class belongs to its context (scope_kernels): an operation finds its row of scope_kernels by device,
-- stream, start, end and name, and operations alike in all five pair up in order.
-- requires: scope.ops, scope.names, scope.kernels, classify.kernel_classes, classify.kernel_families
-- access: private
-- unique: op_id
-- not null: op_id, start_ns, duration_ns
-- creates: timeline_ops
--   op_id           BIGINT   the operation's row in the store (gpu_ops.rowid)
--   op_kind         VARCHAR  kernel | memcpy | memset | other
--   device          VARCHAR  device label
--   device_index    INTEGER  the number of the device label (NULL when it has none)
--   stream_id       BIGINT   CUDA stream
--   start_ns        BIGINT   GPU start (ns)
--   duration_ns     BIGINT   GPU duration (ns)
--   corr_id         BIGINT   correlation id of the API call that caused it
--   name            VARCHAR  operation name as exported
--   short_name      VARCHAR  a kernel's short name (kernel_short_name); other operations' names as exported
--   component       VARCHAR  a kernel's component ('other' when no rule matched); NULL for memcpy and memset
--   sub_component   VARCHAR  a kernel's sub-component, when its rule names one
--   family          VARCHAR  a kernel's family ('other' when no family rule matched); NULL for memcpy and memset
--   grid_x          INTEGER  grid size in blocks, x (grid_y, grid_z: y and z); NULL when not a kernel or not exported
--   grid_y          INTEGER  grid size, y
--   grid_z          INTEGER  grid size, z
--   block_x         INTEGER  block size in threads, x (block_y, block_z: y and z)
--   block_y         INTEGER  block size, y
--   block_z         INTEGER  block size, z
--   transfer_bytes  BIGINT   memcpy or memset size (bytes)
--   src_mem_kind    VARCHAR  memcpy source memory kind (Pageable, Pinned, Device, ...)
--   dst_mem_kind    VARCHAR  memcpy or memset destination memory kind
CREATE OR REPLACE TEMP TABLE timeline_ops AS
WITH classed AS (  -- scope_kernels numbered among the rows alike in device, stream, start, end and name
    SELECT k.device, k.stream_id, k.start_ns, k.end_ns, k.name_id, c.component, c.sub_component,
           row_number() OVER (PARTITION BY k.device, k.stream_id, k.start_ns, k.end_ns, k.name_id
                              ORDER BY k.context_key) AS nth
    FROM scope_kernels k JOIN kernel_classes c USING (context_key)
),
kernels AS (
    SELECT o.op_id, n.name_id,
           row_number() OVER (PARTITION BY o.device, o.stream_id, o.start_ns, o.end_ns, n.name_id ORDER BY o.op_id)
               AS nth
    FROM scope_ops o JOIN scope_names n USING (name)
    WHERE o.op_kind = 'kernel'
)
SELECT o.op_id, o.op_kind, o.device, o.device_index, o.stream_id, o.start_ns, o.duration_ns, o.corr_id, o.name,
       coalesce(f.short_name, o.name) AS short_name, c.component, c.sub_component, f.family,
       g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z,
       o.transfer_bytes, o.src_mem_kind, o.dst_mem_kind
FROM scope_ops o
LEFT JOIN kernels k USING (op_id)
LEFT JOIN classed c
       ON c.device = o.device AND c.stream_id IS NOT DISTINCT FROM o.stream_id AND c.start_ns = o.start_ns
      AND c.end_ns = o.end_ns AND c.name_id = k.name_id AND c.nth = k.nth
LEFT JOIN kernel_families f ON f.name_id = k.name_id
LEFT JOIN gpu_ops g ON g.rowid = o.op_id;
