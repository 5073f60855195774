-- nsight-ingest store schema (DuckDB). Every row is keyed to the trace file it came from.
-- Units are in the column names: *_ns nanoseconds, *_bytes bytes, *_bytes_per_s bytes per second.
-- Times and durations lie within +-2^61 ns (2305843009213693952, 73 years; store.TIME_LIMIT_NS): a file with a value
-- beyond is damaged, and within it every end, gap and difference of two ends fits in a BIGINT.

CREATE SEQUENCE IF NOT EXISTS trace_id_seq START 1;

-- One row per ingested export file. The same bytes ingested twice are stored once (sha256 + report type).
CREATE TABLE IF NOT EXISTS traces (
    trace_id        INTEGER PRIMARY KEY,
    path            VARCHAR NOT NULL,      -- as given on the command line
    sha256          VARCHAR NOT NULL,      -- of the file's bytes
    content_sha256  VARCHAR,               -- of the uncompressed content, for .gz files
    report_type     VARCHAR NOT NULL,      -- the nsys report (cuda_gpu_trace, cuda_api_sum, ...) or ncu page it is
    rows            BIGINT NOT NULL,
    nsys_version    VARCHAR,               -- when the export says (CSV reports do not)
    ingested_at     TIMESTAMP NOT NULL,
    notes           VARCHAR[] NOT NULL,    -- what was recovered while reading it (warned about whenever it is used)
    UNIQUE (sha256, report_type)
);
-- A store written before traces had notes gets the column (empty lists) when it is opened.
ALTER TABLE traces ADD COLUMN IF NOT EXISTS notes VARCHAR[] DEFAULT [];

-- cuda_gpu_trace: one row per GPU operation (kernel, memcpy, memset).
CREATE TABLE IF NOT EXISTS gpu_ops (
    trace_id                 INTEGER NOT NULL,
    start_ns                 BIGINT NOT NULL CHECK (start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    duration_ns              BIGINT NOT NULL CHECK (duration_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    end_ns                   BIGINT GENERATED ALWAYS AS (start_ns + duration_ns) VIRTUAL,
    op_kind                  VARCHAR NOT NULL,  -- kernel | memcpy | memset | other
    corr_id                  BIGINT,
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
    block_x INTEGER, block_y INTEGER, block_z INTEGER,
    registers_per_thread     INTEGER,
    static_smem_bytes        BIGINT,
    dynamic_smem_bytes       BIGINT,
    transfer_bytes           BIGINT,            -- memcpy/memset size (nsys rounds MB to 3 decimals)
    throughput_bytes_per_s   DOUBLE,
    src_mem_kind             VARCHAR,
    dst_mem_kind             VARCHAR,
    device                   VARCHAR,           -- label as exported, e.g. 'NVIDIA H200 (0)'
    device_index             INTEGER,           -- the number in parentheses of the label
    context_id               BIGINT,
    green_context_id         BIGINT,
    stream_id                BIGINT,
    name                     VARCHAR NOT NULL,
    unparsed_values          UTINYINT NOT NULL DEFAULT 0  -- optional values of the row that did not parse (NULL)
);

-- cuda_kern_exec_trace: one row per kernel launched through an API call (CUDA-graph replays: one row per node).
CREATE TABLE IF NOT EXISTS kernel_launches (
    trace_id            INTEGER NOT NULL,
    api_start_ns        BIGINT NOT NULL CHECK (api_start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    api_duration_ns     BIGINT NOT NULL CHECK (api_duration_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    api_end_ns          BIGINT GENERATED ALWAYS AS (api_start_ns + api_duration_ns) VIRTUAL,
    queue_start_ns      BIGINT CHECK (queue_start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),  -- NULL: the kernel did not wait in the queue
    queue_duration_ns   BIGINT CHECK (queue_duration_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    kernel_start_ns     BIGINT NOT NULL CHECK (kernel_start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),  -- equals gpu_ops.start_ns of the kernel (the join key, with device)
    kernel_duration_ns  BIGINT NOT NULL CHECK (kernel_duration_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    total_duration_ns   BIGINT,
    pid                 BIGINT,
    tid                 BIGINT,
    device_index        INTEGER,
    api_function        VARCHAR,
    grid_xyz            VARCHAR,              -- as exported: space-padded 'X Y Z', e.g. '2048    8    1'
    block_xyz           VARCHAR,
    -- parsed on read, so that ingest does not pay two regular expressions per row
    grid_x INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(grid_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 1) AS INTEGER)) VIRTUAL,
    grid_y INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(grid_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 2) AS INTEGER)) VIRTUAL,
    grid_z INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(grid_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 3) AS INTEGER)) VIRTUAL,
    block_x INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(block_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 1) AS INTEGER)) VIRTUAL,
    block_y INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(block_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 2) AS INTEGER)) VIRTUAL,
    block_z INTEGER GENERATED ALWAYS AS (TRY_CAST(regexp_extract(block_xyz, '^\s*(\d+)\s+(\d+)\s+(\d+)', 3) AS INTEGER)) VIRTUAL,
    kernel_name         VARCHAR NOT NULL,
    unparsed_values     UTINYINT NOT NULL DEFAULT 0  -- optional values of the row that did not parse (NULL)
);

-- A store written before rows counted their unparsed values gets the columns (0) when it is opened.
ALTER TABLE gpu_ops ADD COLUMN IF NOT EXISTS unparsed_values UTINYINT DEFAULT 0;
ALTER TABLE kernel_launches ADD COLUMN IF NOT EXISTS unparsed_values UTINYINT DEFAULT 0;

-- cuda_api_trace: every CUDA runtime/driver API call.
CREATE TABLE IF NOT EXISTS api_calls (
    trace_id         INTEGER NOT NULL,
    start_ns         BIGINT NOT NULL CHECK (start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    duration_ns      BIGINT NOT NULL CHECK (duration_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    end_ns           BIGINT GENERATED ALWAYS AS (start_ns + duration_ns) VIRTUAL,
    name             VARCHAR NOT NULL,
    result           BIGINT,
    corr_id          BIGINT,
    pid              BIGINT,
    tid              BIGINT,
    thread_priority  BIGINT,
    thread_name      VARCHAR,
    sync_kind        VARCHAR,  -- export databases: what the call waited for (event_synchronize, stream_wait_event,
                               -- stream_synchronize, context_synchronize); NULL for other calls and CSV reports
    sync_stream_id   BIGINT    -- stream_wait_event: the stream that waits; stream_synchronize: the stream waited for
);
-- A store written before calls kept their synchronization gets the columns (NULL) when it is opened.
ALTER TABLE api_calls ADD COLUMN IF NOT EXISTS sync_kind VARCHAR;
ALTER TABLE api_calls ADD COLUMN IF NOT EXISTS sync_stream_id BIGINT;

-- cuda_api_sum: calls per CUDA API function over the whole capture (an nsys stats summary, held instead of the trace).
CREATE TABLE IF NOT EXISTS api_summary (
    trace_id  INTEGER NOT NULL,
    name      VARCHAR NOT NULL,  -- API function, e.g. cudaLaunchKernel
    calls     BIGINT,
    total_ns  BIGINT             -- summed duration of its calls (ns)
);

-- cuda_gpu_kern_sum: launches per kernel name over the whole capture (an nsys stats summary).
CREATE TABLE IF NOT EXISTS kernel_summary (
    trace_id   INTEGER NOT NULL,
    name       VARCHAR NOT NULL,
    instances  BIGINT,           -- kernels of that name launched
    total_ns   BIGINT            -- their summed duration (ns)
);

-- nvtx_pushpop_trace: NVTX push/pop ranges; `name` keeps the export's text, `range_name` drops a leading ':' domain prefix.
CREATE TABLE IF NOT EXISTS nvtx_ranges (
    trace_id               INTEGER NOT NULL,
    start_ns               BIGINT NOT NULL CHECK (start_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    end_ns                 BIGINT NOT NULL CHECK (end_ns BETWEEN -2305843009213693952 AND 2305843009213693952),
    duration_ns            BIGINT,
    duration_child_ns      BIGINT,
    duration_nonchild_ns   BIGINT,
    name                   VARCHAR NOT NULL,
    range_name             VARCHAR NOT NULL,
    pid                    BIGINT,
    tid                    BIGINT,
    level                  INTEGER,
    num_children           INTEGER,
    range_id               BIGINT,
    parent_id              BIGINT,
    range_stack            VARCHAR,
    name_tree              VARCHAR
);

-- One row per analysed capture: the export files used together (classify writes one per run).
CREATE SEQUENCE IF NOT EXISTS capture_id_seq START 1;
CREATE TABLE IF NOT EXISTS captures (
    capture_id           INTEGER PRIMARY KEY,
    gpu_trace_id         INTEGER NOT NULL,   -- traces.trace_id of the cuda_gpu_trace
    kern_exec_trace_id   INTEGER,            -- of the cuda_kern_exec_trace, when there is one
    nvtx_trace_id        INTEGER,
    api_trace_id         INTEGER,
    UNIQUE (gpu_trace_id, kern_exec_trace_id)
);
-- The summaries of the capture (nsys stats cuda_api_sum, cuda_gpu_kern_sum), when there are some; a store written
-- before they were read gets the columns when it is opened.
ALTER TABLE captures ADD COLUMN IF NOT EXISTS api_summary_id INTEGER;
ALTER TABLE captures ADD COLUMN IF NOT EXISTS kernel_summary_id INTEGER;

-- The class of each distinct kernel name under a rule set (rule_set_version = hash of its SQL files).
CREATE TABLE IF NOT EXISTS name_classes (
    rule_set_version  VARCHAR NOT NULL,
    name              VARCHAR NOT NULL,
    component         VARCHAR NOT NULL,
    sub_component     VARCHAR,
    rule_file         VARCHAR,     -- the winning rule's file; NULL when no rule matched (component 'other')
    priority          INTEGER,
    match_count       INTEGER NOT NULL,  -- how many rules matched the name
    PRIMARY KEY (rule_set_version, name)
);

-- The kernel family of each distinct kernel name under a family rule set (family_set_version = hash of its files).
CREATE TABLE IF NOT EXISTS name_families (
    family_set_version  VARCHAR NOT NULL,
    name                VARCHAR NOT NULL,
    family              VARCHAR NOT NULL,
    rule_file           VARCHAR,     -- the winning rule's file; NULL when no rule matched (family 'other')
    priority            INTEGER,
    match_count         INTEGER NOT NULL,  -- how many family rules matched the name
    PRIMARY KEY (family_set_version, name)
);

-- Results already computed for a capture: the JSON of one command with its options and rule-set version
-- (`request`). A result depends only on the stored inputs and the request, so asking again reads it back.
CREATE TABLE IF NOT EXISTS summaries (
    capture_id  INTEGER NOT NULL,
    request     VARCHAR NOT NULL,
    result      VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (capture_id, request)
);

-- Kernels only, the relation most questions start from.
CREATE VIEW IF NOT EXISTS kernels AS
    SELECT * FROM gpu_ops WHERE op_kind = 'kernel';

-- Launch rows joined to their kernel on (device index, kernel start), within one capture.
CREATE VIEW IF NOT EXISTS launched_kernels AS
    SELECT c.capture_id, l.*, k.stream_id, k.name AS gpu_name
    FROM captures c
    JOIN kernel_launches l ON l.trace_id = c.kern_exec_trace_id
    JOIN kernels k
      ON k.trace_id = c.gpu_trace_id
     AND k.start_ns = l.kernel_start_ns
     AND coalesce(k.device_index, 0) = coalesce(l.device_index, 0);

-- ---------------------------------------------------------------------------------------------------------------
-- Nsight Compute (`ncu --csv --page raw|details`).

-- One row per profiled kernel launch (the ID column of the export).
CREATE TABLE IF NOT EXISTS ncu_results (
    trace_id            INTEGER NOT NULL,
    result_id           BIGINT NOT NULL,
    process_id          BIGINT,
    process_name        VARCHAR,
    host_name           VARCHAR,
    kernel_name         VARCHAR NOT NULL,   -- ncu dialect; kernel_key(kernel_name) matches nsys names
    context_id          BIGINT,
    stream_id           BIGINT,
    block_size          VARCHAR,            -- '(256, 1, 1)'
    grid_size           VARCHAR,
    device              VARCHAR,            -- device index as ncu prints it
    compute_capability  VARCHAR
);

-- One row per (launch, metric). value_text is the file's text; value its number (thousands separators removed,
-- NULL for text such as 'n/a'); base_value/base_unit normalized through `units` (NULL when the unit is unknown).
CREATE TABLE IF NOT EXISTS ncu_metrics (
    trace_id     INTEGER NOT NULL,
    result_id    BIGINT NOT NULL,
    section      VARCHAR,          -- details page section; NULL on the raw page
    metric       VARCHAR NOT NULL, -- as in the file: raw name, or the details page's human name
    metric_key   VARCHAR NOT NULL, -- raw metric name (details names mapped through ncu_metric_aliases)
    unit         VARCHAR,
    value_text   VARCHAR,
    value        DOUBLE,
    base_unit    VARCHAR,
    base_value   DOUBLE
);

-- Rule rows of the details page (long free text).
CREATE TABLE IF NOT EXISTS ncu_rules (
    trace_id          INTEGER NOT NULL,
    result_id         BIGINT NOT NULL,
    section           VARCHAR,
    rule_name         VARCHAR,
    rule_type         VARCHAR,
    rule_description  VARCHAR,
    speedup_type      VARCHAR,
    speedup           DOUBLE
);

-- Device attributes seen in ncu exports (device__attribute_* metrics), one row per device and attribute.
CREATE VIEW IF NOT EXISTS ncu_devices AS
    SELECT DISTINCT r.trace_id, r.device, replace(m.metric_key, 'device__attribute_', '') AS attribute,
           m.value_text, m.value
    FROM ncu_results r
    JOIN ncu_metrics m USING (trace_id, result_id)
    WHERE m.metric_key LIKE 'device\_\_attribute\_%' ESCAPE '\';

-- The common metrics of each profiled launch as columns (base units; NULL where the export lacks them).
CREATE VIEW IF NOT EXISTS ncu_kernels AS
    SELECT r.trace_id, r.result_id, r.kernel_name, r.device, r.block_size, r.grid_size,
           max(m.base_value) FILTER (WHERE m.metric_key = 'gpu__time_duration.sum') AS duration_ns,
           max(m.base_value) FILTER (WHERE m.metric_key = 'sm__throughput.avg.pct_of_peak_sustained_elapsed')
               AS sm_throughput_pct,
           max(m.base_value) FILTER (
               WHERE m.metric_key = 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')
               AS memory_throughput_pct,
           max(m.base_value) FILTER (WHERE m.metric_key IN ('gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed',
                                                          'dram__throughput.avg.pct_of_peak_sustained_elapsed'))
               AS dram_throughput_pct,
           max(m.base_value) FILTER (WHERE m.metric_key = 'dram__bytes_read.sum') AS dram_bytes_read,
           max(m.base_value) FILTER (WHERE m.metric_key = 'dram__bytes_write.sum') AS dram_bytes_write,
           max(m.base_value) FILTER (WHERE m.metric_key = 'lts__throughput.avg.pct_of_peak_sustained_elapsed')
               AS l2_throughput_pct,
           max(m.base_value) FILTER (WHERE m.metric_key = 'lts__t_sector_hit_rate.pct') AS l2_hit_rate_pct,
           max(m.base_value) FILTER (WHERE m.metric_key = 'sm__warps_active.avg.pct_of_peak_sustained_active')
               AS warps_active_pct
    FROM ncu_results r
    LEFT JOIN ncu_metrics m USING (trace_id, result_id)
    GROUP BY ALL;
