"""nsys `.sqlite` exports (schema 3.x): the same normalized rows as the CSV readers.

DuckDB's sqlite extension would have to be downloaded, so Python's sqlite3 runs the normalizing query (SQL in
sql/readers/sqlite_*.sql) and DuckDB inserts from the resulting DataFrames, chunk by chunk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nsight_ingest.errors import InputError
from nsight_ingest.readers import Load
from nsight_ingest.sqlfiles import read_sql

TABLES = {"cuda_gpu_trace": "gpu_ops", "cuda_kern_exec_trace": "kernel_launches",
          "nvtx_pushpop_trace": "nvtx_ranges"}
REQUIRED = {"cuda_gpu_trace": ("CUPTI_ACTIVITY_KIND_KERNEL", "StringIds"),
            "cuda_kern_exec_trace": ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds"),
            "nvtx_pushpop_trace": ("NVTX_EVENTS",)}
# The queries of each report (sql/readers/<name>.sql) with the tables each needs beyond REQUIRED: a capture that
# traced no memory copies (or sets) has no table for them, and its other operations are still read.
PARTS = {
    "cuda_gpu_trace": (("sqlite_cuda_gpu_trace_kernels", ()),
                       ("sqlite_cuda_gpu_trace_memcpy", ("CUPTI_ACTIVITY_KIND_MEMCPY", "ENUM_CUDA_MEMCPY_OPER")),
                       ("sqlite_cuda_gpu_trace_memset", ("CUPTI_ACTIVITY_KIND_MEMSET",))),
    "cuda_kern_exec_trace": (("sqlite_cuda_kern_exec_trace", ()),),
    "nvtx_pushpop_trace": (("sqlite_nvtx_pushpop_trace", ()),),
}


def _tables(con: sqlite3.Connection) -> set[str]:
    return {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def nsys_version(path: Path) -> str | None:
    """EXPORT_PRODUCT_VERSION of the export, if it says."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
        if "META_DATA_EXPORT" not in _tables(con):
            return None
        row = con.execute("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'").fetchone()
    return row[0] if row else None


def load(path: Path, report_type: str) -> Load:
    """Read one report's rows from the export into a DataFrame the store inserts from."""
    import pandas as pd

    if report_type not in TABLES:
        raise InputError(f"{path}: an nsys SQLite export holds no {report_type} (it gives {', '.join(TABLES)})")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = _tables(con)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: not a readable SQLite file ({exc})") from None
    missing = [t for t in REQUIRED[report_type] if t not in tables]
    if missing:
        raise InputError(f"{path}: SQLite export without {', '.join(missing)} (captured without CUDA tracing?)")
    queries = [read_sql(f"readers/{part}.sql") for part, needs in PARTS[report_type] if all(t in tables for t in needs)]
    try:
        frame = pd.concat([pd.read_sql_query(sql, con) for sql in queries], ignore_index=True)
    except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:
        raise InputError(f"{path}: reading {report_type} failed ({exc})") from None
    finally:
        con.close()
    name = f"sqlite_{report_type}"
    return Load(report_type, ((TABLES[report_type], f"SELECT * FROM {name}"),), frames=((name, frame),))
