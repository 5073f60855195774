-- The nightly history: every row of the Parquet files $history_files (the readable files of the `date=YYYY-MM-DD/`
-- folders, hive-partitioned on date), as nsight_ingest.history writes them.
-- creates: history_rows
--   run_id            the run that wrote the row (sortable: later runs sort after)
--   capture           capture name (the file-name prefix of its trace set)
--   trace_sha256      sha256 of the capture's cuda_gpu_trace
--   metric            metric name (nsight_ingest.history.METRICS)
--   component         component (family, for per-family metrics); NULL otherwise
--   kernel            kernel_key of the kernel, for per-kernel metrics; NULL otherwise (and in files written
--                     before kernels were kept)
--   value             the value, in unit
--   unit              ms | ns | % | count
--   rule_set_version  the component rule set that classified the capture
--   family_set_version  the kernel-family rule set (NULL in files written before families were kept)
--   finding_set_version  the finding rules (NULL in files written before findings were kept)
--   date              the night of the run
CREATE OR REPLACE TEMP TABLE history_rows AS
    SELECT run_id, capture, trace_sha256, metric, component, kernel, value, unit, rule_set_version,
           family_set_version, finding_set_version, date
    FROM (SELECT * FROM read_parquet($history_files, hive_partitioning = true, union_by_name = true)
          UNION ALL BY NAME  -- older files lack these columns
          SELECT CAST(NULL AS VARCHAR) AS kernel, CAST(NULL AS VARCHAR) AS family_set_version,
                 CAST(NULL AS VARCHAR) AS finding_set_version WHERE false);
