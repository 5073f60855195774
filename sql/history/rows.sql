-- The nightly history: every row of the Parquet files $history_files (the readable files of the `date=YYYY-MM-DD/`
-- folders, hive-partitioned on date), as nsight_ingest.history writes them.
-- access: private
-- creates: history_rows
--   run_id               VARCHAR  the run that wrote the row (sortable: later runs sort after)
--   capture              VARCHAR  capture name (the file-name prefix of its trace set)
--   trace_sha256         VARCHAR  sha256 of the capture's cuda_gpu_trace
--   metric               VARCHAR  metric name (nsight_ingest.history.METRICS)
--   component            VARCHAR  component (family, for per-family metrics); NULL otherwise
--   kernel               VARCHAR  kernel_key of the kernel, for per-kernel metrics; NULL otherwise (and in files
--                                 written before kernels were kept)
--   value                DOUBLE   the value, in unit
--   unit                 VARCHAR  ms | ns | % | count
--   rule_set_version     VARCHAR  the component rule set that classified the capture
--   family_set_version   VARCHAR  the kernel-family rule set (NULL in files written before families were kept)
--   finding_set_version  VARCHAR  the finding rules (NULL in files written before findings were kept)
--   date                 DATE     the night of the run
CREATE OR REPLACE TEMP TABLE history_rows AS
    SELECT run_id, capture, trace_sha256, metric, component, kernel, value, unit, rule_set_version,
           family_set_version, finding_set_version, date
    FROM (SELECT * FROM read_parquet($history_files, hive_partitioning = true, union_by_name = true)
          UNION ALL BY NAME  -- older files lack these columns
          SELECT CAST(NULL AS VARCHAR) AS kernel, CAST(NULL AS VARCHAR) AS family_set_version,
                 CAST(NULL AS VARCHAR) AS finding_set_version WHERE false);
