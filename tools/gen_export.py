"""Write a generated capture (tools/gen_trace.py's CSV set) as nsys writes it with `nsys export`: an `.sqlite`, a
parquetdir and an arrowdir (Arrow IPC streams) in nsys's export schema (the tables and columns nsight-ingest
reads), for the input-form benchmark.

Each kernel gets a correlation id shared with its launch call in CUPTI_ACTIVITY_KIND_RUNTIME; API names carry
nsys's version suffix (`cudaLaunchKernel_v7000`), as real exports do.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.ipc

PID = 4242
GLOBAL_PID = (1 << 56) + (PID << 24)  # nsys's globalPid: the pid in bits 24-47
GLOBAL_TID = GLOBAL_PID + PID  # globalTid: the pid's bits and the tid in the low 24
# The nsys tables as DuckDB queries over the CSVs `gpu` and `launches` (tables created below).
TABLES = {
    "StringIds": "SELECT id, value FROM strings",
    "TARGET_INFO_GPU": "SELECT 0 AS id, 'NVIDIA H200' AS name",
    "CUPTI_ACTIVITY_KIND_KERNEL": """
        SELECT g.start AS start, g.start + g.duration AS "end", 0 AS deviceId, 1 AS contextId,
               NULL::BIGINT AS greenContextId, g.stream AS streamId, g.corr AS correlationId,
               {global_pid} AS globalPid, s.id AS demangledName, 32 AS registersPerThread,
               g.grid_x AS gridX, 1 AS gridY, 1 AS gridZ, g.block_x AS blockX, 1 AS blockY, 1 AS blockZ,
               0 AS staticSharedMemory, 0 AS dynamicSharedMemory
        FROM gpu g JOIN strings s ON s.value = g.name WHERE g.grid_x IS NOT NULL""",
    "CUPTI_ACTIVITY_KIND_MEMSET": """
        SELECT start, start + duration AS "end", 0 AS deviceId, 1 AS contextId, NULL::BIGINT AS greenContextId,
               stream AS streamId, corr AS correlationId, {global_pid} AS globalPid, 1024 AS bytes,
               2 AS memKind
        FROM gpu WHERE name = '[CUDA memset]'""",
    "CUPTI_ACTIVITY_KIND_MEMCPY": """
        SELECT start, start + duration AS "end", 0 AS deviceId, 1 AS contextId, NULL::BIGINT AS greenContextId,
               stream AS streamId, corr AS correlationId, {global_pid} AS globalPid, 1024 AS bytes,
               CASE WHEN name LIKE '%Host-to-Device%' THEN 1 ELSE 2 END AS copyKind, 0 AS srcKind, 2 AS dstKind
        FROM gpu WHERE name LIKE '[CUDA memcpy%'""",
    "CUPTI_ACTIVITY_KIND_RUNTIME": """
        SELECT l.api_start AS start, l.api_start + l.api_duration AS "end", 0 AS eventClass,
               {global_tid} AS globalTid, g.corr AS correlationId, s.id AS nameId,
               0 AS returnValue
        FROM launches l JOIN gpu g ON g.start = l.kernel_start AND g.grid_x IS NOT NULL
        JOIN strings s ON s.value = l.api""",
    "ThreadNames": "SELECT s.id AS nameId, 20 AS priority, {global_tid} AS globalTid "
                   "FROM strings s WHERE s.value = 'python3'",
}
SQLITE_BATCH = 100_000


def _load_csvs(con: duckdb.DuckDBPyConnection, gpu_csv: Path, kern_csv: Path) -> None:
    con.execute(f"""CREATE TABLE gpu AS SELECT "Start (ns)" AS start, "Duration (ns)" AS duration, GrdX AS grid_x,
                    BlkX AS block_x, Strm AS stream, Name AS name, row_number() OVER (ORDER BY "Start (ns)") AS corr
                    FROM read_csv('{gpu_csv}')""")
    con.execute(f"""CREATE TABLE launches AS SELECT "API Start (ns)" AS api_start, "API Dur (ns)" AS api_duration,
                    "Kernel Start (ns)" AS kernel_start,
                    CASE "API Function" WHEN 'cudaLaunchKernel' THEN 'cudaLaunchKernel_v7000'
                                        ELSE "API Function" END AS api
                    FROM read_csv('{kern_csv}')""")
    con.execute("""CREATE TABLE strings AS SELECT row_number() OVER (ORDER BY value) AS id, value FROM (
                   SELECT DISTINCT name AS value FROM gpu UNION SELECT DISTINCT api FROM launches
                   UNION SELECT 'python3')""")


def write_exports(gpu_csv: Path, kern_csv: Path, sqlite_path: Path, parquet_dir: Path, arrow_dir: Path) -> None:
    """Write the capture of these CSVs as an nsys .sqlite export, an nsys parquetdir and an nsys arrowdir."""
    con = duckdb.connect()
    _load_csvs(con, gpu_csv, kern_csv)
    parquet_dir.mkdir(parents=True, exist_ok=True)
    arrow_dir.mkdir(parents=True, exist_ok=True)
    sqlite_path.unlink(missing_ok=True)
    db = sqlite3.connect(sqlite_path)
    for table, query in TABLES.items():
        query = query.format(global_pid=GLOBAL_PID, global_tid=GLOBAL_TID)
        con.execute(f"COPY ({query}) TO '{parquet_dir / (table + '.parquet')}' (FORMAT parquet)")
        batches = con.sql(query).to_arrow_reader(SQLITE_BATCH)
        with pa.OSFile(str(arrow_dir / f"{table}.arrow"), "wb") as sink, \
                pyarrow.ipc.new_stream(sink, batches.schema) as stream:
            for batch in batches:
                stream.write_batch(batch)
        cursor = con.execute(query)
        columns = [d[0] for d in cursor.description]
        quoted = ", ".join(f'"{c}"' for c in columns)
        db.execute(f'CREATE TABLE "{table}" ({quoted})')
        while batch := cursor.fetchmany(SQLITE_BATCH):
            db.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(columns))})', batch)
    db.execute("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'generated')")
    db.commit()
    db.close()
    con.close()
