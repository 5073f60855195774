-- creates: ncu_metric_aliases
--   metric      VARCHAR  human metric name of the details page, e.g. 'Memory Throughput'
--   base_unit   VARCHAR  base unit of its value (the same name can mean two metrics: % of peak or byte/s)
--   metric_key  VARCHAR  the raw metric it shows, e.g. 'dram__bytes.sum.per_second'
-- Human metric names of the details page -> the raw metric they show, by name and base unit: the same name can
-- mean two metrics ('Memory Throughput' is a percent of peak in Speed Of Light and byte/s in Memory Workload).
CREATE TABLE IF NOT EXISTS ncu_metric_aliases (
    metric VARCHAR, base_unit VARCHAR, metric_key VARCHAR NOT NULL, PRIMARY KEY (metric, base_unit)
);
INSERT OR REPLACE INTO ncu_metric_aliases VALUES
    ('Duration', 'ns', 'gpu__time_duration.sum'),
    ('Compute (SM) Throughput', '%', 'sm__throughput.avg.pct_of_peak_sustained_elapsed'),
    ('Memory Throughput', '%', 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'),
    ('Memory Throughput', 'byte/s', 'dram__bytes.sum.per_second'),
    ('DRAM Throughput', '%', 'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed'),
    ('L1/TEX Cache Throughput', '%', 'l1tex__throughput.avg.pct_of_peak_sustained_active'),
    ('L2 Cache Throughput', '%', 'lts__throughput.avg.pct_of_peak_sustained_elapsed'),
    ('L1/TEX Hit Rate', '%', 'l1tex__t_sector_hit_rate.pct'),
    ('L2 Hit Rate', '%', 'lts__t_sector_hit_rate.pct'),
    ('Achieved Occupancy', '%', 'sm__warps_active.avg.pct_of_peak_sustained_active'),
    ('Elapsed Cycles', 'cycle', 'gpc__cycles_elapsed.max'),
    ('SM Active Cycles', 'cycle', 'sm__cycles_active.avg'),
    ('SM Frequency', 'Hz', 'gpc__cycles_elapsed.avg.per_second'),
    ('DRAM Frequency', 'Hz', 'dram__cycles_elapsed.avg.per_second'),
    ('Block Size', '', 'launch__block_size'),
    ('Grid Size', '', 'launch__grid_size'),
    ('Registers Per Thread', 'register/thread', 'launch__registers_per_thread'),
    ('Threads', 'thread', 'launch__thread_count'),
    ('Waves Per SM', '', 'launch__waves_per_multiprocessor');
