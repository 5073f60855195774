"""Reader SQL alone: each file reads its input as the relation `reader_source`, so a test gives it rows and expects
rows, with no file to parse (the readers' own tests read real exports end to end)."""

from __future__ import annotations

from nsight_ingest import store
from nsight_ingest.readers.rows import Insert
from nsight_ingest.sqlfiles import read_sql
from nsight_ingest.sqlmodules import dict_rows


def test_gpu_trace_rows_get_their_kind_and_device_index():
    con = store.connect()
    con.execute("""
        CREATE TEMP TABLE reader_source AS
        SELECT *, NULL::INTEGER AS registers_per_thread, NULL::BIGINT AS static_smem_bytes,
               NULL::BIGINT AS dynamic_smem_bytes, NULL::DOUBLE AS throughput_bytes_per_s,
               NULL::VARCHAR AS src_mem_kind, NULL::VARCHAR AS dst_mem_kind, NULL::BIGINT AS context_id,
               NULL::BIGINT AS green_context_id, 0 AS unparsed_values
        FROM (VALUES
            (100, 20, 7, 1, 1, 1, 128, 1, 1, NULL, 'NVIDIA H200 (0)', 3, 'gemm_kernel'),
            (130, 5, 8, NULL, NULL, NULL, NULL, NULL, NULL, 4096, 'NVIDIA H200 (1)', 3, '[CUDA memcpy Host-to-Device]'),
            (140, 2, 9, NULL, NULL, NULL, NULL, NULL, NULL, 64, 'GPU', 3, '[CUDA memset]'),
            (150, 1, 10, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'NVIDIA H200 (12)', 3, 'something else')
        ) AS t(start_ns, duration_ns, corr_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, transfer_bytes,
               device, stream_id, name)
    """)
    reader = read_sql("readers/cuda_gpu_trace.sql")
    rows = dict_rows(con.execute(f"SELECT op_kind, device_index, name FROM (\n{reader}\n)"))
    assert rows == [
        {"op_kind": "kernel", "device_index": 0, "name": "gemm_kernel"},  # a grid: a kernel
        {"op_kind": "memcpy", "device_index": 1, "name": "[CUDA memcpy Host-to-Device]"},
        {"op_kind": "memset", "device_index": None, "name": "[CUDA memset]"},  # no '(N)' after the device's name
        {"op_kind": "other", "device_index": 12, "name": "something else"},
    ]


def test_an_insert_binds_its_source_by_name():
    """The store runs an Insert's reader over its source query, which the reader reads as reader_source; the
    source's own trailing comment cannot swallow the query's closing parenthesis."""
    insert = Insert("ncu_details", "ncu_rules", "readers/ncu_details_rules.sql",
                    "SELECT * FROM (VALUES ('1,024', 'Occupancy', 'AchievedOccupancy', 'OPT', 'low', 'global', '12.5'),"
                    " ('7', 'Launch', '', 'OPT', '-', 'local', '1')) AS t(result_id, section, rule_name, rule_type,"
                    " rule_description, speedup_type, speedup) -- two rule rows, the second without a rule name")
    rows = dict_rows(store.connect().execute(insert.select_sql))
    assert rows == [{"result_id": 1024, "section": "Occupancy", "rule_name": "AchievedOccupancy", "rule_type": "OPT",
                     "rule_description": "low", "speedup_type": "global", "speedup": 12.5}]
