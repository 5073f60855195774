"""The DuckDB store: schema, content hashing and transactional, idempotent ingestion."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, replace
from multiprocessing.util import Finalize
from pathlib import Path
from typing import TypeVar

import duckdb

from nsight_ingest import readers, settings, user_sql
from nsight_ingest.errors import InputError, explain_duckdb_csv_error, first_line
from nsight_ingest.readers import nsys
from nsight_ingest.readers.forms import Input, as_input
from nsight_ingest.readers.source import SQLITE_MAGIC, file_hashes, starts_with, utf8_copy
from nsight_ingest.sqlcatalog import common_sql
from nsight_ingest.sqlfiles import read_sql, sql_string

T = TypeVar("T")


@dataclass(frozen=True)
class Ingested:
    """One input file as stored: where it came from, its hashes and how many rows it gave."""

    trace_id: int
    path: str
    report_type: str
    sha256: str
    content_sha256: str | None
    rows: int
    reused: bool  # True when the same content was already in the store
    notes: tuple[str, ...] = ()  # recoveries worth a warning


# Bounded memory: past this DuckDB spills to a temporary folder instead of growing (or failing).
TIME_LIMIT_NS = 2**61  # times and durations beyond are refused (the CHECKs of schema.sql)
MEMORY_LIMIT = settings.memory_limit()
# Each DuckDB thread holds buffers that cannot spill (a CSV reader's are 30 MiB), so the limit bounds the threads:
# under 512 MB, loading 4M operations on 24 threads failed "Out of Memory" instead of spilling (20 did not). 48 MiB
# a thread leaves twice that room: 10 threads under 512 MB, as fast as 16 on 16 cores at 1M operations.
MEMORY_PER_THREAD = 48 * 2**20

# Columns no analysis reads. A temporary store (it lives for one command) is made without them: not parsing and
# holding them, above all the kern_exec trace's copy of every kernel name, saves a third of the load time and
# memory. A store in a file the user names has every column.
DETAIL_COLUMNS = {  # the columns no analysis reads, which a temporary store leaves out
    "gpu_ops": nsys.detail_columns(nsys.GPU_TRACE),
    # grid_x .. block_z first: they are generated from grid_xyz / block_xyz
    "kernel_launches": ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                        *nsys.detail_columns(nsys.KERN_EXEC_TRACE)),
}


TEMPORARY = "temporary"  # the name a temporary store's database has on its connection


def connect(path: str | Path | None = None, *, read_only: bool = False, details: bool = False,
            spill: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open (or create) a store: a file; ':memory:', one in memory; None, a temporary one (temporary_store). One
    in memory or temporary is made without DETAIL_COLUMNS unless `details`. `spill` is DuckDB's spill folder
    (default: this process's, spill_folder)."""
    temporary, in_memory = path is None, path == ":memory:"
    target = ":memory:" if temporary or in_memory else _file_path(str(path))
    # A store in a file the user names keeps insertion order: unordered parallel inserts leave the blocks of partly
    # filled row groups free but inside the file (1M operations with 16 threads: 56-62 MB instead of 34 MB). A
    # temporary store's file is thrown away; the cache gets a compact copy of it (store_cache).
    spill = spill or spill_folder()
    config = {"memory_limit": MEMORY_LIMIT, "temp_directory": spill,
              "preserve_insertion_order": not (temporary or in_memory),
              # a store is a local file: no extension is fetched or loaded for a path that looks like a URL
              "autoinstall_known_extensions": False, "autoload_known_extensions": False}
    try:
        con = duckdb.connect(target, read_only=read_only, config=config)
    except duckdb.Error as exc:
        raise InputError(f"{path}: cannot open store ({first_line(exc)})") from None
    if temporary:
        temporary_store(con, spill)
    limit, threads = con.execute("SELECT parse_formatted_bytes(current_setting('memory_limit')), "
                                 "current_setting('threads')::INTEGER").fetchone()
    con.execute(f"SET threads = {max(1, min(threads, limit // MEMORY_PER_THREAD))}")
    con.execute("SET enable_progress_bar = false")  # DuckDB draws it on stdout: it would cut into a JSON answer
    if not read_only:
        con.execute(read_sql("schema.sql"))
        con.execute(common_sql())
        if (temporary or in_memory) and not details:
            for table, columns in DETAIL_COLUMNS.items():
                for column in columns:
                    con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    return con


def spill_folder() -> str:
    """This process's folder for DuckDB's spills and its temporary stores, made on first use. It is unique to the
    process (processes of other hosts or containers may share the temporary folder, and a pid with it) and removed
    when the process ends, a worker of a multiprocessing pool too (it ends without running atexit handlers, but
    runs multiprocessing's finalizers); DuckDB itself leaves the folder behind. A folder that cannot be made is
    the command's bad input."""
    key = (os.getpid(), os.path.abspath(settings.temp_dir() or tempfile.gettempdir()))
    if key not in _SPILL_FOLDERS:
        try:
            os.makedirs(key[1], exist_ok=True)
            folder = tempfile.mkdtemp(prefix=f"nsight-ingest-{key[0]}-", dir=key[1])
        except OSError as exc:
            raise InputError(_no_temporary_room(key[1], exc)) from None
        Finalize(None, shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True}, exitpriority=0)
        _SPILL_FOLDERS[key] = folder
    return _SPILL_FOLDERS[key]


_SPILL_FOLDERS: dict[tuple[int, str], str] = {}  # by pid (a forked process makes its own) and temporary folder


def temporary_store(con: duckdb.DuckDBPyConnection, folder: str) -> None:
    """Make a file of `folder`, written without a log, the default database of `con`; the file goes when `con`
    does, or at exit. Why a file and not memory: DuckDB writes a file's tables compressed as they are loaded (a
    tenth of their size), while an in-memory table stays whole until it spills uncompressed; past about 1.5M
    operations under the memory limit that made every query read spilled blocks (4M operations: 29 s -> 20 s)."""
    path = os.path.join(folder, f"store-{uuid.uuid4().hex}.duckdb")
    try:
        con.execute(f"ATTACH {sql_string(path)} AS {TEMPORARY} (RECOVERY_MODE no_wal_writes)")
        con.execute(f"USE {TEMPORARY}")
    except duckdb.Error as exc:
        con.close()
        _remove_store_file(path)
        raise InputError(_no_temporary_room(folder, exc)) from None
    weakref.finalize(con, _remove_store_file, path)


def _no_temporary_room(folder: str, exc: Exception) -> str:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else first_line(exc)
    return (f"{folder}: cannot hold the command's temporary store ({reason}); give ${settings.TEMP_DIR} a folder "
            f"that can be written, with room for about a tenth of the inputs")


def _remove_store_file(path: str) -> None:
    for leftover in (path, f"{path}.wal"):
        with suppress(OSError):
            os.remove(leftover)


_NOT_A_FILE = re.compile(r"^(?:$|:|[A-Za-z][\w+.-]+:)")  # empty, ':memory:NAME', 'md:', 's3://', 'sqlite:'...


def _file_path(path: str) -> str:
    """`path` when it names a store file DuckDB keeps as given; refused otherwise (DuckDB reads a prefix as an
    extension to load, and mangles its WAL file's name under a '?')."""
    if _NOT_A_FILE.match(path) or "?" in path:
        raise InputError(f"{path!r}: a store is a DuckDB file, named by a plain path (no URL, prefix or '?')")
    if Path(path).is_file() and starts_with(Path(path), SQLITE_MAGIC):
        raise InputError(f"{path}: an SQLite file (an nsys export?), not a DuckDB store: give it as the capture")
    return path


def _stored_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The columns `table` has (a temporary store lacks the detail columns readers give)."""
    return con.execute("SELECT list(column_name) FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main'"
                       " AND database_name = current_database()", [table]).fetchone()[0]


def _existing(con: duckdb.DuckDBPyConnection, sha256: str, report_type: str) -> tuple[int, int, list[str]] | None:
    """(trace_id, rows, notes) of the input with these bytes stored as `report_type`, if it is."""
    return con.execute("SELECT trace_id, rows, notes FROM traces WHERE sha256 = ? AND report_type = ?",
                       [sha256, report_type]).fetchone()


class _InvalidUtf8(Exception):
    """DuckDB's fast path met bytes that are not UTF-8 in `source`."""

    def __init__(self, source: Input) -> None:
        super().__init__(source.label)
        self.source = source


def _pause_for_tests() -> None:
    """Test-only hook: with NSIGHT_INGEST_TEST_PAUSE=FILE, announce FILE and wait before COMMIT (kill tests)."""
    marker = os.environ.get("NSIGHT_INGEST_TEST_PAUSE")
    if marker:
        Path(marker).write_text("paused before commit\n")
        time.sleep(120)


def _unparsed(con: duckdb.DuckDBPyConnection, load: readers.Load, trace_ids: dict[str, int], label: str,
              stored: dict[str, list[str]]) -> tuple[str, ...]:
    """A note per report whose rows hold values that did not parse (in columns no analysis reads: left NULL);
    `stored` gives each table's columns."""
    notes = []
    for insert in load.inserts:
        if "unparsed_values" in stored[insert.table]:
            values, rows = con.execute(f"SELECT sum(unparsed_values), count_if(unparsed_values > 0) FROM {insert.table}"
                                       f" WHERE trace_id = ?", [trace_ids[insert.report_type]]).fetchone()
            if values:
                notes.append(f"{label}: {values} value(s) in {rows} row(s) of {insert.report_type} did not parse, in "
                             f"columns no analysis reads; they are NULL (unparsed_values counts them per row)")
    return tuple(notes)


@contextmanager
def _atomic(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction: what is written inside is stored whole, or (on any error, a kill) not at all."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        _pause_for_tests()
        con.execute("COMMIT")
    except BaseException:
        with suppress(duckdb.Error):  # a COMMIT that failed has ended the transaction already
            con.execute("ROLLBACK")
        raise


def _insert(con: duckdb.DuckDBPyConnection, load: readers.Load, source: Input, hashing: Future,
            staged: readers.Staged) -> dict[str, Ingested]:
    """Run a load's inserts in the open transaction and record a traces row per report; bytes stored before give
    the stored traces (the rows just inserted are taken out again)."""
    label = source.label
    try:
        for sql, rows in load.setup:
            con.executemany(sql, rows) if rows else con.execute(sql)
        trace_ids = {report: con.execute("SELECT nextval('trace_id_seq')").fetchone()[0]
                     for report in load.report_types}
        rows: dict[str, int] = {}  # the rows of each report: those of its first insert
        stored = {insert.table: _stored_columns(con, insert.table) for insert in load.inserts}
        for insert in load.inserts:
            count = con.execute(f"INSERT INTO {insert.table} BY NAME SELECT $trace_id AS trace_id, "
                                f"COLUMNS(lambda c: list_contains($stored, c)) FROM ({insert.select_sql})",
                                {"trace_id": trace_ids[insert.report_type],
                                 "stored": stored[insert.table]}).fetchone()[0]
            rows.setdefault(insert.report_type, count)
        notes = staged.notes + _unparsed(con, load, trace_ids, label, stored)
        sha256, content_sha256 = hashing.result()
        if rows[load.report_type] == 0:
            what = "holds no GPU operations" if load.stage else f"{load.report_type} has a header but no data rows"
            raise InputError(f"{label}: {what}")
        if _existing(con, sha256, load.report_type):
            for insert in load.inserts:
                con.execute(f"DELETE FROM {insert.table} WHERE trace_id = ?", [trace_ids[insert.report_type]])
            return {report: _stored(con, sha256, report, label, content_sha256) for report in load.report_types}
        for report, trace_id in trace_ids.items():
            con.execute("INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP, ?)",
                        [trace_id, label, sha256, content_sha256, report, rows[report], staged.nsys_version,
                         list(notes)])
    except duckdb.Error as exc:
        if "Invalid unicode" in str(exc) and not load.stage:
            raise _InvalidUtf8(source) from None
        raise explain_duckdb_csv_error(label, exc, load.lines_before) from None
    return {report: Ingested(trace_ids[report], label, report, sha256, content_sha256, rows[report], False,
                             notes) for report in load.report_types}


def _stored(con: duckdb.DuckDBPyConnection, sha256: str, report_type: str, label: str,
            content_sha256: str | None) -> Ingested:
    trace_id, rows, notes = _existing(con, sha256, report_type)
    return Ingested(trace_id, label, report_type, sha256, content_sha256, rows, True, tuple(notes))


def _load(source: Input, report_type: str) -> readers.Load:
    try:
        return readers.load(source.path, source.form, report_type)
    except InputError as exc:
        if source.streamed:  # name the stream, not its temporary copy
            raise InputError(str(exc).replace(str(source.path), source.label)) from None
        raise


def _together(con: duckdb.DuckDBPyConnection, wanted: list[tuple[Input, str]], decoded: dict[Path, tuple[Path, str]],
              finish: Callable[[list[dict[str, Ingested]]], T]) -> T:
    """Store each (input, report type) of `wanted` and then `finish(results)` (per item, the reports its input
    gave) in one transaction. An input already stored is not read again; `decoded` maps an input that is not UTF-8
    to its decoded copy and a note. Reading and staging happen before the transaction: it only inserts."""
    details = "context_id" in _stored_columns(con, "gpu_ops")  # a store in a file keeps every column
    results: list[dict[str, Ingested] | None] = [None] * len(wanted)
    pending = []
    with ThreadPoolExecutor(max_workers=1) as pool, ExitStack() as cleanup:
        for index, (source, report_type) in enumerate(wanted):
            hashing = Future()
            if con.execute("SELECT count(*) > 0 FROM traces WHERE report_type = ?", [report_type]).fetchone()[0]:
                # a store with inputs of this kind: hash first, so an input already stored is not parsed again
                sha256, content_sha256 = file_hashes(source.identity)
                if _existing(con, sha256, report_type):  # with every other report of the same bytes (an export)
                    results[index] = {report: _stored(con, sha256, report, source.label, content_sha256)
                                      for (report,) in con.execute("SELECT report_type FROM traces WHERE sha256 = ?",
                                                                   [sha256]).fetchall()}
                    continue
                hashing.set_result((sha256, content_sha256))
            else:  # hashlib releases the GIL, so hashing in a thread overlaps DuckDB's parsing
                hashing = pool.submit(file_hashes, source.identity)
            copy, note = decoded.get(source.path, (None, None))
            load = _load(replace(source, path=copy) if copy else source, report_type)
            if load.temporary:
                cleanup.callback(load.temporary.unlink, missing_ok=True)
            staged = readers.Staged(None)
            if load.stage:
                cleanup.callback(load.unstage, con)
                staged = load.stage(con, details)
            staged = replace(staged, notes=staged.notes + load.notes + ((note,) if note else ()))
            pending.append((index, source, report_type, load, hashing, staged))
        with _atomic(con):
            for index, source, report_type, load, hashing, staged in pending:
                results[index] = _insert(con, load, source, hashing, staged)
                if report_type not in results[index]:
                    raise InputError(f"{source.label}: holds no {report_type} (it gives {', '.join(results[index])})")
            return finish(results)


def _stored_together(con: duckdb.DuckDBPyConnection, wanted: list[tuple[Input, str]],
                     finish: Callable[[list[dict[str, Ingested]]], T]) -> T:
    """_together, again with a decoded copy of an input in which DuckDB met bytes that are not UTF-8 (its rows kept,
    the replaced sequences counted in a note)."""
    decoded: dict[Path, tuple[Path, str]] = {}
    try:
        while True:
            try:
                return _together(con, wanted, decoded, finish)
            except _InvalidUtf8 as bad:
                if bad.source.path in decoded:
                    raise InputError(f"{bad.source.label}: not UTF-8 text even after decoding") from None
                copy, replaced = utf8_copy(bad.source.path)
                decoded[bad.source.path] = (copy, f"{bad.source.label}: {replaced} invalid UTF-8 byte sequence(s) "
                                                  f"replaced with U+FFFD; rows kept")
    finally:
        for copy, _ in decoded.values():
            copy.unlink(missing_ok=True)


def ingest(con: duckdb.DuckDBPyConnection, source: Input | str | Path, report_type: str) -> Ingested:
    """Load one input's `report_type` in one transaction (an nsys export: every report it holds, once);
    identical content is stored once."""
    return _stored_together(con, [(as_input(source), report_type)], lambda results: results[0][report_type])


@dataclass(frozen=True)
class Capture:
    """The files of one capture analysed together, as stored."""

    capture_id: int
    gpu_trace: Ingested
    kern_exec: Ingested | None = None
    nvtx: Ingested | None = None
    ncu: tuple[Ingested, ...] = ()
    api: Ingested | None = None
    api_summary: Ingested | None = None  # nsys stats cuda_api_sum: calls per API function
    kernel_summary: Ingested | None = None  # nsys stats cuda_gpu_kern_sum: launches per kernel name

    def roles(self) -> list[tuple[Ingested, str]]:
        """Every stored input file of the capture with its role."""
        files = ((self.gpu_trace, "gpu_trace"), (self.kern_exec, "kernel_exec_trace"), (self.nvtx, "nvtx_trace"),
                 (self.api, "api_trace"), (self.api_summary, "api_summary"), (self.kernel_summary, "kernel_summary"))
        return [(i, role) for i, role in files if i is not None] + [(i, i.report_type) for i in self.ncu]


def ingest_capture(
    con: duckdb.DuckDBPyConnection,
    gpu_trace: Input | str | Path,
    kern_exec: Input | str | Path | None = None,
    nvtx: Input | str | Path | None = None,
    ncu: tuple[Input | str | Path, ...] = (),
    api: Input | str | Path | None = None,
    api_summary: Input | str | Path | None = None,
    kernel_summary: Input | str | Path | None = None,
) -> Capture:
    """Ingest a cuda_gpu_trace with its optional kern_exec, NVTX, CUDA API, summary (cuda_api_sum,
    cuda_gpu_kern_sum) and ncu exports and record them as one capture, in one transaction: all of them or none (a
    report an nsys export holds no rows of is left out)."""
    from nsight_ingest.readers import ncu as ncu_reader

    gpu = as_input(gpu_trace)
    siblings = {report: as_input(source) for report, source in (
        ("cuda_kern_exec_trace", kern_exec), ("nvtx_pushpop_trace", nvtx), ("cuda_api_trace", api),
        ("cuda_api_sum", api_summary), ("cuda_gpu_kern_sum", kernel_summary)) if source is not None}
    for report, source in siblings.items():
        if source.is_export and source.path != gpu.path:  # one export is staged at a time: another goes in first
            ingest(con, source, report)
    separate = [(source, report) for report, source in siblings.items()
                if not (gpu.is_export and source.path == gpu.path)]  # an export holds every report itself
    profiles = [as_input(source) for source in ncu]
    wanted = [(gpu, "cuda_gpu_trace"), *separate, *((p, ncu_reader.detect(p.path)) for p in profiles)]

    def link(results: list[dict[str, Ingested]]) -> Capture:
        reports = dict(results[0])  # an export holds every report itself
        profiles = []
        for (_, report), result in zip(wanted[1:], results[1:], strict=True):
            if report in siblings:
                reports[report] = result[report]
            else:
                profiles.append(result[report])
        chosen = (reports.get(report) if report in siblings else None for report in (
            "cuda_kern_exec_trace", "nvtx_pushpop_trace", "cuda_api_trace", "cuda_api_sum", "cuda_gpu_kern_sum"))
        launches, ranges, calls, *summaries = (i if i is not None and i.rows else None for i in chosen)
        return _capture_row(con, results[0]["cuda_gpu_trace"], launches, ranges, calls, tuple(profiles), *summaries)

    return _stored_together(con, wanted, link)


def _capture_row(con: duckdb.DuckDBPyConnection, gpu: Ingested, launches: Ingested | None, ranges: Ingested | None,
                 calls: Ingested | None, profiles: tuple[Ingested, ...], api_summary: Ingested | None = None,
                 kernel_summary: Ingested | None = None) -> Capture:
    """The captures row of these stored inputs (made, or found and completed)."""
    kern_id = launches.trace_id if launches else None
    row = con.execute(
        "SELECT capture_id FROM captures WHERE gpu_trace_id = ? AND kern_exec_trace_id IS NOT DISTINCT FROM ?",
        [gpu.trace_id, kern_id],
    ).fetchone()
    if row is None:
        row = con.execute(
            "INSERT INTO captures BY NAME SELECT nextval('capture_id_seq') AS capture_id, ? AS gpu_trace_id, "
            "?::INTEGER AS kern_exec_trace_id RETURNING capture_id",
            [gpu.trace_id, kern_id],
        ).fetchone()
    for column, given in (("nvtx_trace_id", ranges), ("api_trace_id", calls), ("api_summary_id", api_summary),
                          ("kernel_summary_id", kernel_summary)):
        if given is not None:
            con.execute(f"UPDATE captures SET {column} = ? WHERE capture_id = ?", [given.trace_id, row[0]])
    return Capture(row[0], gpu, launches, ranges, profiles, calls, api_summary, kernel_summary)


def ingest_ncu(con: duckdb.DuckDBPyConnection, source: Input | str | Path) -> Ingested:
    """Ingest an ncu export, raw or details page, whichever it is."""
    from nsight_ingest.readers import ncu

    source = as_input(source)
    return ingest(con, source, ncu.detect(source.path))


def stored_capture(con: duckdb.DuckDBPyConnection, capture_id: int) -> Capture:
    """A capture already in the store, to analyse again without reading any file."""
    row = con.execute("SELECT gpu_trace_id, kern_exec_trace_id, nvtx_trace_id, api_trace_id, api_summary_id, "
                      "kernel_summary_id FROM captures WHERE capture_id = ?", [capture_id]).fetchone()
    if row is None:
        raise InputError(f"no capture {capture_id} in the store")

    def stored(trace_id: int | None) -> Ingested | None:
        if trace_id is None:
            return None
        path, sha, content, kind, rows = con.execute(
            "SELECT path, sha256, content_sha256, report_type, rows FROM traces WHERE trace_id = ?", [trace_id]
        ).fetchone()
        return Ingested(trace_id, path, kind, sha, content, rows, True)

    return Capture(capture_id, stored(row[0]), stored(row[1]), stored(row[2]), api=stored(row[3]),
                   api_summary=stored(row[4]), kernel_summary=stored(row[5]))


def query(path: str | Path, sql: str) -> tuple[list[str], list[tuple]]:
    """The columns and rows of the user's one reading statement on a store in a file, opened read-only and cut off
    from every file and other database (nsight_ingest.user_sql)."""
    statement = user_sql.one_statement(sql, "query", user_sql.READING)
    if not Path(path).is_file():
        raise InputError(f"{path}: no such store")
    # a spill folder of its own: the process's holds its temporary stores, which the query must not read
    with tempfile.TemporaryDirectory(prefix="nsight-ingest-query-", dir=spill_folder()) as spill:
        con = user_sql.lock(connect(path, read_only=True, spill=spill))
        try:
            cursor = con.execute(statement)
            columns = [d[0] for d in cursor.description] if cursor.description else []
            return columns, cursor.fetchall() if columns else []
        except duckdb.Error as exc:
            raise InputError(f"query failed: {first_line(exc)}") from None
        finally:
            con.close()


def cached_result(con: duckdb.DuckDBPyConnection, capture_id: int, request: str) -> dict | None:
    """A result stored for this capture and request (command, options, rule-set version), if any."""
    row = con.execute("SELECT result FROM summaries WHERE capture_id = ? AND request = ?",
                      [capture_id, request]).fetchone()
    return json.loads(row[0]) if row else None


def remember_result(con: duckdb.DuckDBPyConnection, capture_id: int, request: str, result: dict) -> None:
    """Store a computed result so the same question is answered from the store next time."""
    con.execute("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, now()::TIMESTAMP)",
                [capture_id, request, json.dumps(result)])
