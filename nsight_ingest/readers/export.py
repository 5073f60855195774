"""nsys export databases (`.sqlite`, `nsys export --type parquetdir`, `--type arrowdir`) -> the store's rows.

Each form only *stages* the columns of nsys's tables that the mapping reads into an in-memory DuckDB database
attached as `nsys_export`, under nsys's own table names (a missing table empty, a column an older schema lacks
NULL); one mapping in SQL (sql/readers/nsys_export_*.sql), the same for every form, turns them into the columns of
the CSV reports, which the CSV readers' shaping SQL turns into store rows. Nothing goes through pandas: SQLite rows
stream in fixed-size batches into Arrow record batches into DuckDB, Parquet files are read by DuckDB itself and
Arrow IPC streams through pyarrow's stream reader.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import duckdb

from nsight_ingest import settings
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.readers.rows import Insert, Load, Staged
from nsight_ingest.sqlfiles import read_sql, sql_string

STAGE = "nsys_export"  # the attached database the mapping reads
ROW_NUMBER = "rowNumber"  # a staged column: the row's number in its table, from 1 (nsys's NVTX RangeId)

# The columns of nsys's export schema that the mapping reads, with the DuckDB type each is staged as.
EXPORT_COLUMNS: dict[str, dict[str, str]] = {
    "CUPTI_ACTIVITY_KIND_KERNEL": dict.fromkeys(
        ("start", "end", "deviceId", "contextId", "greenContextId", "streamId", "correlationId", "globalPid",
         "demangledName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
         "staticSharedMemory", "dynamicSharedMemory"), "BIGINT"),
    "CUPTI_ACTIVITY_KIND_MEMCPY": dict.fromkeys(
        ("start", "end", "deviceId", "contextId", "greenContextId", "streamId", "correlationId", "bytes",
         "copyKind", "srcKind", "dstKind"), "BIGINT"),
    "CUPTI_ACTIVITY_KIND_MEMSET": dict.fromkeys(
        ("start", "end", "deviceId", "contextId", "greenContextId", "streamId", "correlationId", "bytes", "memKind"),
        "BIGINT"),
    "CUPTI_ACTIVITY_KIND_RUNTIME": dict.fromkeys(
        ("start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue"), "BIGINT"),
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": dict.fromkeys(
        ("correlationId", "globalPid", "syncType", "streamId"), "BIGINT"),
    "NVTX_EVENTS": {"start": "BIGINT", "end": "BIGINT", "eventType": "BIGINT", "text": "VARCHAR",
                    "textId": "BIGINT", "domainId": "BIGINT", "globalTid": "BIGINT", ROW_NUMBER: "BIGINT"},
    "StringIds": {"id": "BIGINT", "value": "VARCHAR"},
    "ThreadNames": {"nameId": "BIGINT", "priority": "BIGINT", "globalTid": "BIGINT"},
    "TARGET_INFO_GPU": {"id": "BIGINT", "name": "VARCHAR"},
    "ENUM_CUDA_MEMCPY_OPER": {"id": "BIGINT", "label": "VARCHAR"},
    "ENUM_CUDA_MEM_KIND": {"id": "BIGINT", "label": "VARCHAR"},
    "META_DATA_EXPORT": {"name": "VARCHAR", "value": "VARCHAR"},
    "EXPORT_META_DATA": {"name": "VARCHAR", "value": "VARCHAR"},  # its name before schema 3
}
# Columns the mapping reads only for store columns that a temporary store leaves out (store.DETAIL_COLUMNS): read
# into such a store, they are staged NULL, unread (fetching them doubled the time of SQLite's kernel table).
DETAIL_ONLY = {
    "CUPTI_ACTIVITY_KIND_KERNEL": ("contextId", "greenContextId", "registersPerThread", "gridY", "gridZ", "blockX",
                                   "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory"),
    "CUPTI_ACTIVITY_KIND_MEMCPY": ("contextId", "greenContextId"),
    "CUPTI_ACTIVITY_KIND_MEMSET": ("contextId", "greenContextId"),
}
REQUIRED = ("CUPTI_ACTIVITY_KIND_KERNEL", "StringIds")
# CUPTI's fixed lists, used in place of an enum table the export lacks.
FALLBACK_ENUMS = {"ENUM_CUDA_MEMCPY_OPER": "readers/nsys_export_memcpy_kinds.sql",
                  "ENUM_CUDA_MEM_KIND": "readers/nsys_export_memory_kinds.sql"}
# The report each store table is filled from, in load order (the first is the export's own row count).
REPORTS = (("cuda_gpu_trace", "gpu_ops"), ("cuda_kern_exec_trace", "kernel_launches"),
           ("cuda_api_trace", "api_calls"), ("nvtx_pushpop_trace", "nvtx_ranges"))
SQLITE_BATCH_ROWS = 65_536
PARALLEL_ROWS = 200_000  # an .sqlite export with more rows than this is read by one worker process per core
PART_ROWS = 50_000  # a table with more rows than this is read in one part per worker
MAX_SQLITE_WORKERS = 16

# The files of a directory export, by form.
DIRECTORY_SUFFIX = {"parquetdir": ".parquet", "arrowdir": ".arrow"}


def _staged_table(table: str) -> str:
    return f'{STAGE}."{table}"'


def _read(table: str, present: set[str], details: bool) -> set[str]:
    """The columns of `table` to read: those the export has and the store keeps."""
    return {c for c in present if details or c not in DETAIL_ONLY.get(table, ())}


def _projection(table: str, read: set[str], row_number: str) -> str:
    """The SELECT list staging `table`: each mapped column cast to its type, NULL where it is not read."""
    items = []
    for column, kind in EXPORT_COLUMNS[table].items():
        source = row_number if column == ROW_NUMBER else (f'"{column}"' if column in read else "NULL")
        items.append(f'CAST({source} AS {kind}) AS "{column}"')
    return ", ".join(items)


def _stage_empty(con: duckdb.DuckDBPyConnection, table: str) -> None:
    if table in FALLBACK_ENUMS:
        con.execute(f"CREATE TABLE {_staged_table(table)} AS {read_sql(FALLBACK_ENUMS[table])}")
        return
    columns = ", ".join(f'"{column}" {kind}' for column, kind in EXPORT_COLUMNS[table].items())
    con.execute(f"CREATE TABLE {_staged_table(table)} ({columns})")


def _arrow_type(kind: str):
    import pyarrow as pa

    return pa.int64() if kind == "BIGINT" else pa.string()


def _sqlite_batches(cursor: sqlite3.Cursor, schema) -> Iterator:
    import numpy as np
    import pyarrow as pa

    integers = all(field.type == pa.int64() for field in schema)
    while rows := cursor.fetchmany(SQLITE_BATCH_ROWS):
        if integers:
            try:  # a batch of integers without NULLs converts in one step, three times as fast as column by column
                matrix = np.array(rows, dtype=np.int64)
                yield pa.RecordBatch.from_arrays([matrix[:, i] for i in range(len(schema))], schema=schema)
                continue
            except (TypeError, ValueError, OverflowError):
                pass
        columns = zip(*rows, strict=True)
        yield pa.RecordBatch.from_arrays([pa.array(values, type=field.type) for values, field in
                                          zip(columns, schema, strict=True)], schema=schema)


def _open_sqlite(path: Path) -> sqlite3.Connection:
    # a URI keeps the file read-only; quoting keeps `#`, `?` and `%` in the path part of it
    source = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    source.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    return source


def _native_batches(path: Path, query: str, rows: tuple[int, int], schema) -> Iterator:
    """The query's rows as Arrow batches of `schema`, read by SQLite's own C library through the ADBC driver (three
    times as fast as Python's sqlite3, which builds an object for every value)."""
    import adbc_driver_sqlite.dbapi
    import pyarrow as pa

    with adbc_driver_sqlite.dbapi.connect(f"{path.resolve().as_uri()}?mode=ro") as source, source.cursor() as cursor:
        cursor.execute(query, rows)
        for batch in cursor.fetch_record_batch():
            batch = pa.RecordBatch.from_arrays([batch.column(i).cast(field.type) for i, field in enumerate(schema)],
                                               schema=schema)
            batch.validate(full=True)  # SQLite hands over text that is not UTF-8 as it is: refused here
            yield batch


def _write_sqlite_part(path: str, table: str, columns: dict[str, str], rows: tuple[int, int], out: str) -> None:
    """Write the rows `low < rowid <= high` of an SQLite table's `columns` to a Parquet file, batch by batch (run in
    a worker process for a large export): natively, or through Python's sqlite3 where the native reader refuses the
    values (text that is not UTF-8, a column whose values change type), which reads anything."""
    import adbc_driver_manager
    import pyarrow as pa
    import pyarrow.parquet

    schema = pa.schema([(c, _arrow_type(kind)) for c, kind in columns.items()])
    select = ", ".join("rowid" if c == ROW_NUMBER else f'"{c}"' for c in columns)
    query = f'SELECT {select} FROM "{table}" WHERE rowid > ? AND rowid <= ?'

    def write(batches: Iterator) -> None:
        with pyarrow.parquet.ParquetWriter(out, schema, compression="none") as writer:
            for batch in batches:
                writer.write_batch(batch)

    try:
        write(_native_batches(Path(path), query, rows, schema))
        return
    except (adbc_driver_manager.Error, pa.ArrowException):
        pass  # the file is written again below, whole
    source = _open_sqlite(Path(path))
    try:
        write(_sqlite_batches(source.execute(query, rows), schema))
    finally:
        source.close()


def _parts(rowids: tuple[int | None, int | None], count: int) -> list[tuple[int, int]]:
    """`count` (low, high] rowid ranges covering a table's rowids."""
    low, high = rowids
    if low is None:
        return [(0, 0)]
    low -= 1
    return [(low + (high - low) * i // count, low + (high - low) * (i + 1) // count) for i in range(count)]


def _stage_sqlite(path: Path, con: duckdb.DuckDBPyConnection, details: bool) -> set[str]:
    """Stage the mapped tables of an nsys .sqlite export; the tables it has. Each table is read in rowid ranges, in
    worker processes for a large export, each written to a Parquet file that DuckDB then reads."""
    import pyarrow as pa

    source = None
    try:
        source = _open_sqlite(path)
        tables = {row[0] for row in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        plan = {}  # table -> (columns read, columns fetched, rowid ranges)
        for table in EXPORT_COLUMNS:
            if table in tables:
                read = _read(table, {row[1] for row in source.execute(f'PRAGMA table_info("{table}")')}, details)
                fetched = {c: kind for c, kind in EXPORT_COLUMNS[table].items() if c in read or c == ROW_NUMBER}
                rowids = source.execute(f'SELECT min(rowid), max(rowid) FROM "{table}"').fetchone()
                plan[table] = (read, fetched, rowids)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # a damaged schema page may hold any bytes
        raise InputError(f"{path}: not a readable SQLite file ({first_line(exc)})") from None
    finally:
        if source is not None:
            source.close()
    rows = sum((high or 0) - (low or 0) for _, _, (low, high) in plan.values())
    workers = min(_cores(), MAX_SQLITE_WORKERS) if rows > PARALLEL_ROWS else 1
    folder = _parts_folder(con)
    folder.mkdir(parents=True)
    try:
        jobs = {table: [(str(path), table, fetched, part, str(folder / f"{table}.{i}.parquet"))
                        for i, part in enumerate(_parts(rowids, workers if _large(rowids) else 1))]
                for table, (_, fetched, rowids) in plan.items()}
        everything = [job for table_jobs in jobs.values() for job in table_jobs]
        if not (workers > 1 and _in_workers(everything, workers)):
            for job in everything:
                _write_sqlite_part(*job)

        def stage_one(table: str) -> None:
            files = "[" + ", ".join(sql_string(job[-1]) for job in jobs[table]) + "]"
            projection = _projection(table, plan[table][0], f'"{ROW_NUMBER}"')
            con.execute(f"CREATE VIEW {_staged_table(table)} AS SELECT {projection} FROM read_parquet({files})")

        _stage_tables(con, set(plan), stage_one)
    except (sqlite3.DatabaseError, UnicodeDecodeError, OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: reading the SQLite export failed ({first_line(exc)})") from None
    return tables


def _in_workers(jobs: list[tuple], workers: int) -> bool:
    """Run the part-writing jobs in `workers` processes; False when they cannot start (a program that imports
    nsight-ingest without a main guard), and the caller runs them itself."""
    import concurrent.futures
    import multiprocessing

    if multiprocessing.current_process().daemon:
        return False  # a worker of a process pool (the nightly job's, Dask's) may not start processes
    context = multiprocessing.get_context("spawn")  # the parent runs DuckDB's threads: do not fork it
    try:
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            list(pool.map(_write_sqlite_part, *zip(*jobs, strict=True)))
    except concurrent.futures.process.BrokenProcessPool:
        return False
    return True


def _cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _parts_folder(con: duckdb.DuckDBPyConnection) -> Path:
    """Where the Parquet parts of an .sqlite export read into `con` are kept until it is unstaged."""
    base = settings.temp_dir() or tempfile.gettempdir()
    return Path(base) / f"nsight-ingest-export-{os.getpid()}-{id(con)}"


def _large(rowids: tuple[int | None, int | None]) -> bool:
    """True for a table large enough to be read in parts."""
    low, high = rowids
    return low is not None and high - low > PART_ROWS


def _stage_tables(con: duckdb.DuckDBPyConnection, present: set[str], stage_one: Callable[[str], None]) -> None:
    """Stage every mapped table: with `stage_one(table)` where the export has it, empty where it does not."""
    for table in EXPORT_COLUMNS:
        stage_one(table) if table in present else _stage_empty(con, table)


def _directory_tables(path: Path, form: str) -> dict[str, Path]:
    suffix = DIRECTORY_SUFFIX[form]
    return {file.name.removesuffix(suffix): file for file in path.iterdir() if file.name.endswith(suffix)}


def _stage_parquet(path: Path, con: duckdb.DuckDBPyConnection, details: bool) -> set[str]:
    """Stage an `nsys export --type parquetdir` directory: views over its Parquet files, read by DuckDB."""
    files = _directory_tables(path, "parquetdir")

    def stage_one(table: str) -> None:
        scan = f"read_parquet({sql_string(str(files[table]))}, file_row_number = true)"
        try:
            present = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}
        except duckdb.Error as exc:
            raise InputError(f"{files[table]}: not a readable Parquet file ({first_line(exc)})") from None
        con.execute(f"CREATE VIEW {_staged_table(table)} AS SELECT "
                    f"{_projection(table, _read(table, present, details), 'file_row_number + 1')} FROM {scan}")

    _stage_tables(con, set(files), stage_one)
    return set(files)


def _stage_arrow(path: Path, con: duckdb.DuckDBPyConnection, details: bool) -> set[str]:
    """Stage an `nsys export --type arrowdir` directory: its Arrow IPC stream files, batch by batch."""
    import pyarrow as pa
    import pyarrow.ipc

    files = _directory_tables(path, "arrowdir")

    def stage_one(table: str) -> None:
        try:
            with pyarrow.ipc.open_stream(files[table]) as stream:
                read = _read(table, set(stream.schema.names), details)
                con.register("nsys_export_batches", stream)
                try:
                    # the stream is read once, in order: row_number() numbers the rows as the file holds them
                    con.execute(f"CREATE TABLE {_staged_table(table)} AS SELECT "
                                f"{_projection(table, read, 'row_number() OVER ()')} FROM nsys_export_batches")
                finally:
                    con.unregister("nsys_export_batches")
        except (pa.ArrowException, OSError, duckdb.Error) as exc:
            raise InputError(f"{files[table]}: not a readable Arrow IPC stream ({first_line(exc)})") \
                from None

    _stage_tables(con, set(files), stage_one)
    return set(files)


STAGERS: dict[str, Callable[[Path, duckdb.DuckDBPyConnection, bool], set[str]]] = {
    "sqlite": _stage_sqlite, "parquetdir": _stage_parquet, "arrowdir": _stage_arrow}


def _stage(path: Path, form: str, con: duckdb.DuckDBPyConnection, details: bool) -> Staged:
    """Attach `nsys_export`, stage the export's tables (with `details`, the columns only a store in a file keeps)
    and the mapping's shared views; what the export says."""
    unstage(con)
    con.execute(f"ATTACH ':memory:' AS {STAGE}")
    try:
        tables = STAGERS[form](path, con, details)
        missing = [table for table in REQUIRED if table not in tables]
        if missing:
            raise InputError(f"{path}: not an nsys export with CUDA kernels: no {', '.join(missing)} table "
                             f"(was it captured with `nsys profile --trace=cuda`?)")
        con.execute(read_sql("readers/nsys_export_views.sql"))
        version = con.execute(
            f"SELECT any_value(value) FROM (SELECT * FROM {_staged_table('META_DATA_EXPORT')} UNION ALL "
            f"SELECT * FROM {_staged_table('EXPORT_META_DATA')}) WHERE name = 'EXPORT_PRODUCT_VERSION'").fetchone()[0]
    except BaseException:
        unstage(con)
        raise
    notes = []
    if "TARGET_INFO_GPU" not in tables:
        notes.append(f"{path}: the export has no TARGET_INFO_GPU table; devices are labelled 'GPU (N)'")
    return Staged(version, tuple(notes))


def unstage(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the staged export (and the files an .sqlite export was read into)."""
    con.execute(f"DETACH DATABASE IF EXISTS {STAGE}")
    shutil.rmtree(_parts_folder(con), ignore_errors=True)


def load(path: Path, form: str) -> Load:
    """The Load of every report an nsys export holds (one transaction, one traces row each)."""
    inserts = tuple(
        Insert(report, table, f"readers/{report}.sql", read_sql(f"readers/nsys_export_{report}.sql"))
        for report, table in REPORTS)
    return Load(REPORTS[0][0], inserts, stage=partial(_stage, path, form), unstage=unstage)
