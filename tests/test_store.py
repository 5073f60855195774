"""Store: schema, content hashing, idempotent and transactional ingestion."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import duckdb
import pytest

from nsight_ingest import store
from nsight_ingest.errors import InputError
from tests.conftest import GPU_HEADER, SAMPLES, kernel_row, write

TRACE = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"


def counts(con):
    return con.execute("SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM gpu_ops)").fetchone()


def test_ingest_records_provenance():
    con = store.connect()
    ingested = store.ingest(con, TRACE, "cuda_gpu_trace")
    assert ingested.sha256 == hashlib.sha256(TRACE.read_bytes()).hexdigest()
    assert ingested.rows == 28 and not ingested.reused
    path, sha, report, rows = con.execute("SELECT path, sha256, report_type, rows FROM traces").fetchone()
    assert (path, sha, report, rows) == (str(TRACE), ingested.sha256, "cuda_gpu_trace", 28)


def test_same_file_twice_is_stored_once(tmp_path):
    con = store.connect()
    first = store.ingest(con, TRACE, "cuda_gpu_trace")
    again = store.ingest(con, TRACE, "cuda_gpu_trace")
    copy = shutil.copy(TRACE, tmp_path / "renamed_cuda_gpu_trace.csv")
    moved = store.ingest(con, copy, "cuda_gpu_trace")
    assert again.reused and moved.reused
    assert first.trace_id == again.trace_id == moved.trace_id
    assert counts(con) == (1, 28)


def test_gzip_records_both_hashes(tmp_path):
    target = tmp_path / "z_cuda_gpu_trace.csv.gz"
    target.write_bytes(gzip.compress(TRACE.read_bytes()))
    ingested = store.ingest(store.connect(), target, "cuda_gpu_trace")
    assert ingested.sha256 == hashlib.sha256(target.read_bytes()).hexdigest()
    assert ingested.content_sha256 == hashlib.sha256(TRACE.read_bytes()).hexdigest()


def test_failed_ingest_leaves_nothing_behind(tmp_path):
    con = store.connect()
    store.ingest(con, TRACE, "cuda_gpu_trace")
    bad = write(tmp_path / "bad_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(1, 2, "a"), kernel_row(3, 4, "b"), "5,notanumber,1,1,1,1,1,1,1,1,0,0,,,,,D (0),1,,7,c"])
    with pytest.raises(InputError, match=r"line 4: Could not convert string 'notanumber'|notanumber"):
        store.ingest(con, bad, "cuda_gpu_trace")
    assert counts(con) == (1, 28)


def test_header_only_is_rejected_and_rolled_back(tmp_path):
    con = store.connect()
    empty = write(tmp_path / "h_cuda_gpu_trace.csv", GPU_HEADER, [])
    with pytest.raises(InputError, match="header but no data rows"):
        store.ingest(con, empty, "cuda_gpu_trace")
    assert counts(con) == (0, 0)


def test_persisted_store_survives_reopen(tmp_path):
    db = tmp_path / "store.duckdb"
    con = store.connect(db)
    capture = store.ingest_capture(con, TRACE, SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv")
    con.close()
    con = store.connect(db)
    again = store.ingest_capture(con, TRACE, SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv")
    assert again.capture_id == capture.capture_id
    assert con.execute("SELECT count(*) FROM captures").fetchone() == (1,)
    # every launch row of this capture finds its kernel on (device, start)
    assert con.execute("SELECT count(*) FROM launched_kernels").fetchone() == (26,)


def test_a_temporary_store_is_made_without_detail_columns(tmp_path):
    kern_exec = SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv"
    lean, full, in_file = store.connect(), store.connect(details=True), store.connect(tmp_path / "s.duckdb")
    for con in (lean, full, in_file):
        store.ingest(con, TRACE, "cuda_gpu_trace")
        store.ingest(con, kern_exec, "cuda_kern_exec_trace")

    def columns(con, table):
        return {c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ?",
                                          [table]).fetchall()}

    for table, detail in store.DETAIL_COLUMNS.items():
        assert columns(full, table) == columns(in_file, table) == columns(lean, table) | set(detail)
        kept = sorted(columns(lean, table))
        count_of = "SELECT " + ", ".join(f"count({c}), sum(hash({c}))" for c in kept) + f" FROM {table}"
        assert lean.execute(count_of).fetchone() == full.execute(count_of).fetchone()  # the rest loaded alike
    # the kern_exec trace's kernel names are detail: a full store keeps them
    assert full.execute("SELECT count(kernel_name) FROM kernel_launches").fetchone() == (26,)


def test_threads_are_bounded_by_the_memory_limit(monkeypatch):
    # each thread needs store.MEMORY_PER_THREAD (48 MiB) that cannot spill: 100 MB (95.4 MiB) has room for one
    monkeypatch.setattr(store, "MEMORY_LIMIT", "100MB")
    assert store.connect().execute("SELECT current_setting('threads')").fetchone() == (1,)
    # with room to spare, DuckDB's own count (the cores) stands
    monkeypatch.setattr(store, "MEMORY_LIMIT", "64GB")
    cores = duckdb.connect().execute("SELECT current_setting('threads')").fetchone()
    assert store.connect().execute("SELECT current_setting('threads')").fetchone() == cores


def test_a_store_written_before_traces_had_notes_is_used(tmp_path):
    db = tmp_path / "old.duckdb"
    old = duckdb.connect(str(db))
    old.execute("CREATE TABLE traces (trace_id INTEGER PRIMARY KEY, path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, "
                "content_sha256 VARCHAR, report_type VARCHAR NOT NULL, rows BIGINT NOT NULL, nsys_version VARCHAR, "
                "ingested_at TIMESTAMP NOT NULL, UNIQUE (sha256, report_type))")
    old.close()
    con = store.connect(db)
    assert store.ingest(con, TRACE, "cuda_gpu_trace").rows == 28
    assert con.execute("SELECT notes FROM traces").fetchall() == [([],)]


def test_a_temporary_store_is_a_file_that_goes_with_its_connection(monkeypatch, tmp_path):
    monkeypatch.setenv("NSIGHT_INGEST_TEMP_DIR", str(tmp_path))
    con = store.connect()
    store.ingest(con, TRACE, "cuda_gpu_trace")
    (path,) = [p for (p,) in con.execute("SELECT path FROM duckdb_databases() WHERE database_name = ?",
                                         [store.TEMPORARY]).fetchall()]
    assert con.execute("SELECT current_database()").fetchone() == (store.TEMPORARY,)
    assert tmp_path in Path(path).parents and Path(path).is_file()
    con.close()
    del con
    assert not Path(path).exists()


def test_a_command_leaves_nothing_in_the_temporary_folder(tmp_path):
    import os
    import subprocess
    import sys

    folder = tmp_path / "temporary"
    done = subprocess.run([sys.executable, "-m", "nsight_ingest", "classify", str(TRACE), "--no-cache"],
                          env={**os.environ, "NSIGHT_INGEST_TEMP_DIR": str(folder)}, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_temporary_folder_that_cannot_hold_the_store_is_one_line(monkeypatch, tmp_path):
    (tmp_path / "a_file").write_text("x")  # a folder below a file can never be made (not even by root)
    monkeypatch.setenv("NSIGHT_INGEST_TEMP_DIR", str(tmp_path / "a_file" / "below"))
    monkeypatch.setattr(store, "_SPILL_FOLDERS", {})
    with pytest.raises(InputError, match=r"cannot hold the command's temporary store .*NSIGHT_INGEST_TEMP_DIR"):
        store.connect()


def test_a_store_in_memory_is_one(tmp_path):
    con = store.connect(":memory:")
    assert con.execute("SELECT current_database()").fetchone() == ("memory",)
    store.ingest(con, TRACE, "cuda_gpu_trace")
    assert counts(con) == (1, 28)


def _connect_and_name_the_spill_folder() -> str:
    store.connect().execute("CREATE TABLE t AS SELECT 1")
    return store.spill_folder()


def test_a_pool_worker_removes_its_spill_folder(monkeypatch, tmp_path):
    """A worker of a process pool ends without running atexit handlers; its folder (and stores) go all the same."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    monkeypatch.setenv("NSIGHT_INGEST_TEMP_DIR", str(tmp_path))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        folder = pool.submit(_connect_and_name_the_spill_folder).result()
    assert Path(folder).parent == tmp_path and not Path(folder).exists()
