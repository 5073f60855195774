"""nsys exports (.sqlite, parquetdir, arrowdir) read through one SQL mapping: the real H200 capture in every form
against its CSV reports and plain SQL on the export, the 2022 and two-GPU exports, and hand-built exports for the
naming, queueing and missing-table rules."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nsight_ingest import store
from nsight_ingest.errors import InputError
from tests.conftest import DATA

LLM = DATA / "h200_llm_serve"
EXPORTS = {"sqlite": LLM / "llm2.sqlite", "parquetdir": LLM / "llm2_pq", "arrowdir": LLM / "llm2_arrow"}
CSV = {"cuda_gpu_trace": LLM / "llm2_cuda_gpu_trace.csv", "cuda_kern_exec_trace": LLM / "llm2_cuda_kern_exec_trace.csv",
       "cuda_api_trace": LLM / "llm2_cuda_api_trace.csv", "nvtx_pushpop_trace": LLM / "llm2_nvtx_pushpop_trace.csv"}
# The columns both forms give exactly (the CSV rounds sizes to 0.001 MB, so bytes and throughput differ).
COMPARED = {
    "cuda_gpu_trace": ("gpu_ops", "start_ns, duration_ns, op_kind, corr_id, grid_x, grid_y, grid_z, block_x, block_y, "
                                  "block_z, registers_per_thread, src_mem_kind, dst_mem_kind, device, device_index, "
                                  "context_id, green_context_id, stream_id, name"),
    "cuda_kern_exec_trace": ("kernel_launches", "* EXCLUDE (trace_id)"),
    "cuda_api_trace": ("api_calls", "* EXCLUDE (trace_id)"),
    "nvtx_pushpop_trace": ("nvtx_ranges", "* EXCLUDE (trace_id)"),
}


def rows(con, report: str, source) -> list[tuple]:
    table, columns = COMPARED[report]
    trace_id = store.ingest(con, source, report).trace_id
    return sorted(con.execute(f"SELECT {columns} FROM {table} WHERE trace_id = ?", [trace_id]).fetchall(),
                  key=lambda row: tuple((value is None, str(value)) for value in row))


@pytest.mark.parametrize("form", EXPORTS)
@pytest.mark.parametrize("report", COMPARED)
def test_every_export_form_gives_the_rows_of_the_csv_reports(form, report):
    con = store.connect(details=True)
    assert rows(con, report, EXPORTS[form]) == rows(con, report, CSV[report])


def test_counts_match_plain_sql_on_the_export():
    with sqlite3.connect(EXPORTS["sqlite"]) as db:
        kernels, memsets = (db.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t}").fetchone()[0]
                            for t in ("KERNEL", "MEMSET"))
        launches = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                              "ON r.correlationId = k.correlationId").fetchone()[0]
        calls = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0]
        queued = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                            "ON r.correlationId = k.correlationId WHERE k.start >= r.\"end\"").fetchone()[0]
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "CUPTI_ACTIVITY_KIND_MEMCPY" not in tables
    con = store.connect()
    capture = store.ingest_capture(con, EXPORTS["sqlite"], EXPORTS["sqlite"], api=EXPORTS["sqlite"])
    assert capture.gpu_trace.rows == kernels + memsets == 1256 + 24  # no MEMCPY table: the memsets are kept
    assert (capture.kern_exec.rows, capture.api.rows) == (launches, calls) == (1256, 2321)
    assert con.execute("SELECT count(*) FROM kernel_launches WHERE queue_start_ns IS NOT NULL AND "
                       "queue_start_ns = api_end_ns AND queue_start_ns + queue_duration_ns = kernel_start_ns"
                       ).fetchone()[0] == queued == 1245
    assert capture.gpu_trace.sha256 == capture.kern_exec.sha256  # one export, one traces row per report


def test_the_2022_export_schema():
    """nsys 2022.2 (schema 2.9.1): EXPORT_META_DATA, no greenContextId, no ENUM tables, CUDA backtrace rows."""
    path = DATA / "public" / "saxpy_mpi_cuda_2022.sqlite"
    with sqlite3.connect(path) as db:
        kernels, copies, sets = (db.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t}").fetchone()[0]
                                 for t in ("KERNEL", "MEMCPY", "MEMSET"))
        copy_kinds = dict(db.execute("SELECT copyKind, count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1"))
    con = store.connect(details=True)
    capture = store.ingest_capture(con, path, path)
    assert capture.gpu_trace.rows == kernels + copies + sets and (kernels, copies) == (5, 15)
    assert capture.kern_exec.rows == 5  # the backtrace rows (event class 67) repeat calls: not joined
    names = dict(con.execute("SELECT name, count(*) FROM gpu_ops WHERE op_kind = 'memcpy' GROUP BY 1").fetchall())
    fixed = {1: "Host-to-Device", 2: "Device-to-Host", 8: "Device-to-Device"}
    assert names == {f"[CUDA memcpy {fixed[kind]}]": n for kind, n in copy_kinds.items()}
    assert con.execute("SELECT DISTINCT device, green_context_id FROM gpu_ops").fetchall() == [
        ("NVIDIA A100-SXM4-40GB (0)", None)]
    assert con.execute("SELECT nsys_version FROM traces").fetchall()[0] == ("2022.2.1.31",)


@pytest.mark.parametrize("name", ["2gpu_mfu_before_nccl.sqlite", "h100_2gpu_1s_no_nccl.sqlite"])
def test_two_gpu_exports_without_a_device_table(name):
    path = DATA / "multi_rank" / name
    with sqlite3.connect(path) as db:
        ops = sum(db.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t}").fetchone()[0]
                  for t in ("KERNEL", "MEMCPY", "MEMSET"))
        launches = db.execute(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
            "r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)").fetchone()[0]
        devices = {f"GPU ({d})" for (d,) in db.execute("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL")}
    con = store.connect()
    capture = store.ingest_capture(con, path, path)
    assert (capture.gpu_trace.rows, capture.kern_exec.rows) == (ops, launches)
    assert {d for (d,) in con.execute("SELECT DISTINCT device FROM gpu_ops").fetchall()} == devices
    assert any("no TARGET_INFO_GPU" in note for note in capture.gpu_trace.notes)


def write_export(path: Path, api_names: list[str], *, tables: tuple[str, ...] = ()) -> Path:
    """A small nsys-schema .sqlite: one kernel per API call, the call ending 10 ns after the kernel starts for even
    calls (not queued) and 10 ns before it for odd ones (queued); plus `tables` created empty."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, contextId INT, streamId INT,
            correlationId INT, globalPid INT, demangledName INT, gridX INT, gridY INT, gridZ INT, blockX INT,
            blockY INT, blockZ INT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, "end" INT, eventClass INT, globalTid INT,
            correlationId INT, nameId INT, returnValue INT);
        INSERT INTO StringIds VALUES (0, 'k');
    """)
    pid = 7 << 24
    for i, name in enumerate(api_names, start=1):
        db.execute("INSERT INTO StringIds VALUES (?, ?)", [i, name])
        start = 1000 * i
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 0, 2, 1, 1, 128, 1, 1)",
                   [start, start + 100, i, pid])
        api_end = start + (10 if i % 2 == 0 else -10)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0)",
                   [start - 500, api_end, pid + 9, i, i])
    for table in tables:
        db.execute(f"CREATE TABLE {table} (id INT)")
    db.commit()
    db.close()
    return path


def test_api_names_as_the_reports_print_them(tmp_path):
    """nsys's reports drop `_v` and four characters at the end of a name; longer suffixes stay (pairs seen in
    the samples)."""
    pairs = {"cudaLaunchKernel_v7000": "cudaLaunchKernel", "cudaMemsetAsync_v3020": "cudaMemsetAsync",
             "cudaDeviceSynchronize_v3020": "cudaDeviceSynchronize",
             "cudaLaunchKernelExC_v11060": "cudaLaunchKernelExC_v11060",
             "cudaStreamIsCapturing_v10000": "cudaStreamIsCapturing_v10000",
             "cudaGraphLaunch_v10000": "cudaGraphLaunch_v10000", "cuLaunchKernelEx": "cuLaunchKernelEx"}
    path = write_export(tmp_path / "names.sqlite", list(pairs))
    con = store.connect()
    store.ingest(con, path, "cuda_gpu_trace")
    assert [name for (name,) in con.execute("SELECT name FROM api_calls ORDER BY start_ns").fetchall()] == \
        list(pairs.values())
    assert [name for (name,) in con.execute("SELECT api_function FROM kernel_launches ORDER BY api_start_ns")
            .fetchall()] == list(pairs.values())


def test_queueing_as_the_kern_exec_report_has_it(tmp_path):
    path = write_export(tmp_path / "q.sqlite", ["cuLaunchKernel"] * 4)
    con = store.connect(details=True)
    store.ingest(con, path, "cuda_gpu_trace")
    got = con.execute("SELECT kernel_start_ns, queue_start_ns, queue_duration_ns, total_duration_ns, grid_xyz "
                      "FROM kernel_launches ORDER BY 1").fetchall()
    # odd calls end 10 ns before their kernel starts: queued from the call's end for 10 ns
    assert got == [(1000, 990, 10, 600, "   2    1    1"), (2000, None, None, 600, "   2    1    1"),
                   (3000, 2990, 10, 600, "   2    1    1"), (4000, None, None, 600, "   2    1    1")]
    assert con.execute("SELECT DISTINCT device FROM gpu_ops").fetchall() == [("GPU (0)",)]


def test_an_export_without_kernels_or_not_an_export(tmp_path):
    con = store.connect()
    empty = sqlite3.connect(tmp_path / "other.sqlite")
    empty.execute("CREATE TABLE t (x INT)")
    empty.commit()
    empty.close()
    with pytest.raises(InputError, match="not an nsys export with CUDA kernels: no CUPTI_ACTIVITY_KIND_KERNEL"):
        store.ingest(con, tmp_path / "other.sqlite", "cuda_gpu_trace")
    folder = tmp_path / "pq"
    folder.mkdir()
    (folder / "StringIds.parquet").write_bytes((LLM / "llm2_pq" / "StringIds.parquet").read_bytes())
    with pytest.raises(InputError, match="no CUPTI_ACTIVITY_KIND_KERNEL table"):
        store.ingest(con, folder, "cuda_gpu_trace")
    assert con.execute("SELECT count(*) FROM traces").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = 'nsys_export'").fetchone()[0] == 0


def test_sqlite_read_natively_and_through_python_where_the_native_reader_refuses(tmp_path, monkeypatch):
    """SQLite's C library reads the export (ADBC); a table holding text that is not UTF-8, which it refuses, is read
    through Python's sqlite3 instead (the bytes replaced): every other value the same."""
    from nsight_ingest.readers import export

    fallbacks = []
    python_read = export._sqlite_batches
    monkeypatch.setattr(export, "_sqlite_batches", lambda cursor, schema: fallbacks.append(schema.names) or
                        python_read(cursor, schema))
    con = store.connect(details=True)
    good = rows(con, "cuda_gpu_trace", EXPORTS["sqlite"])
    assert fallbacks == []  # read natively
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(EXPORTS["sqlite"].read_bytes())
    with sqlite3.connect(damaged) as db:
        (name_id,) = db.execute("SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()
        (name,) = db.execute("SELECT value FROM StringIds WHERE id = ?", [name_id]).fetchone()
        db.execute("UPDATE StringIds SET value = CAST(? AS TEXT) WHERE id = ?", [b"\xff" + name.encode(), name_id])
    got = rows(store.connect(details=True), "cuda_gpu_trace", damaged)
    assert fallbacks and all("value" in names for names in fallbacks)  # only StringIds went through Python
    name_column = COMPARED["cuda_gpu_trace"][1].split(", ").index("name")
    assert len(got) == len(good)
    changed = [(a, b) for a, b in zip(sorted(got), sorted(good), strict=True) if a != b]
    assert changed and all(a[name_column] == "\ufffd" + b[name_column] and a[:name_column] == b[:name_column]
                           for a, b in changed)


def test_a_large_sqlite_export_is_read_in_parts_by_workers(monkeypatch):
    """Above PARALLEL_ROWS rows, tables are read in rowid ranges by worker processes: the same rows, NVTX range
    ids (rowids) included."""
    from nsight_ingest.readers import export

    con = store.connect(details=True)
    whole = {report: rows(con, report, EXPORTS["sqlite"]) for report in COMPARED}
    used = []
    in_workers = export._in_workers
    monkeypatch.setattr(export, "_in_workers", lambda jobs, workers: used.append((len(jobs), workers)) or
                        in_workers(jobs, workers))
    monkeypatch.setattr(export, "PARALLEL_ROWS", 100)
    monkeypatch.setattr(export, "PART_ROWS", 10)
    monkeypatch.setattr(export, "_cores", lambda: 3)
    con = store.connect(details=True)
    assert {report: rows(con, report, EXPORTS["sqlite"]) for report in COMPARED} == whole
    ((jobs, workers),) = used
    assert workers == 3 and jobs > len(export.EXPORT_COLUMNS)  # the large tables in three parts each
