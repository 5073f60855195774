"""Every input form from the command line: one answer whatever the form of the same capture, stdin, .nsys-rep
through a stand-in nsys, the cache of ingested stores, and the one-line errors of bad inputs."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import sys

import pytest

from nsight_ingest import readers
from tests.conftest import DATA, GPU_HEADER, kernel_row

LLM = DATA / "h200_llm_serve"
FORMS = {"csv": LLM / "llm2_cuda_gpu_trace.csv", "sqlite": LLM / "llm2.sqlite", "parquetdir": LLM / "llm2_pq",
         "arrowdir": LLM / "llm2_arrow"}
STAND_IN = DATA / "stand_in" / "nsys"
REPORT_MAGIC = b"NVIDIA Tegra Profiler Report 36398880.\n"


def without_paths(result):
    """The result less what names the input files (their paths and hashes)."""
    if isinstance(result, dict):
        return {k: without_paths(v) for k, v in result.items()
                if not (k.startswith("source_") or k in ("inputs", "source"))}
    if isinstance(result, list):
        return [without_paths(v) for v in result]
    return result


@pytest.mark.parametrize("command", ["classify", "launches", "ranks"])
def test_one_answer_whatever_the_form(run_cli, command):
    answers = {}
    for form, path in FORMS.items():
        result = run_cli(command, path, "--no-cache")
        assert result.code == 0, result.err
        answers[form] = without_paths(result.json())
    assert answers["sqlite"] == answers["csv"] and answers["parquetdir"] == answers["csv"]
    assert answers["arrowdir"] == answers["csv"]


def test_counts_from_every_form_match_plain_sql(run_cli):
    with sqlite3.connect(FORMS["sqlite"]) as db:
        kernels, memsets = (db.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t}").fetchone()[0]
                            for t in ("KERNEL", "MEMSET"))
        span = db.execute('SELECT max("end") - min(start) FROM (SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL '
                          'UNION ALL SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_MEMSET)').fetchone()[0]
    for path in FORMS.values():
        out = run_cli("classify", path).json()
        assert (out["kernel_count"], out["gpu_operation_count"], out["gpu_span_ns"]) == (kernels, kernels + memsets,
                                                                                        span)
        assert set(out["devices"]) == {"NVIDIA H200 (0)"}
        queued = run_cli("queue-delay", path).json()["queue_delay_ns"]
        assert (queued["queued_kernels"], queued["not_queued_kernels"]) == (1245, 11)


def test_stdin_csv_plain_and_gzip(run_cli, tmp_path):
    alone = shutil.copy(FORMS["csv"], tmp_path / "alone_cuda_gpu_trace.csv")  # no siblings, as on a stream
    expected = without_paths(run_cli("classify", alone, "--no-cache").json())
    text = FORMS["csv"].read_bytes()
    for data in (text, gzip.compress(text)):
        result = run_cli("classify", "-", stdin=data)
        assert result.code == 0, result.err
        out = result.json()
        assert without_paths(out) == expected and out["source_gpu_trace"] == "<stdin>"
        assert "no sibling cuda_kern_exec_trace for <stdin>" in result.err


def test_a_pipe_is_read_like_stdin(run_cli, tmp_path):
    import os
    import threading

    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(FORMS["csv"].read_bytes()))
    writer.start()
    result = run_cli("classify", fifo)
    writer.join()
    assert result.code == 0, result.err
    assert result.json()["kernel_count"] == 1256


def fake_report(path, content: bytes = b"run 1"):
    path.write_bytes(REPORT_MAGIC + content)
    return path


@pytest.fixture
def stand_in(monkeypatch, tmp_path):
    """The stand-in nsys (exporting the real capture's parquetdir) and its log of runs."""
    log = tmp_path / "nsys.log"
    log.touch()
    monkeypatch.setenv("STAND_IN_EXPORT", str(FORMS["parquetdir"]))
    monkeypatch.setenv("STAND_IN_LOG", str(log))
    return lambda: log.read_text().splitlines()


def test_report_converted_once_beside_it_and_again_when_it_changes(run_cli, tmp_path, stand_in):
    report = fake_report(tmp_path / "run.nsys-rep")
    expected = without_paths(run_cli("classify", FORMS["parquetdir"], "--no-cache").json())
    first = run_cli("classify", report, "--nsys", STAND_IN)
    assert first.code == 0, first.err
    assert without_paths(first.json()) == expected and first.json()["source_gpu_trace"] == str(report)
    (runs,) = stand_in()
    assert runs.startswith("export --type parquetdir --force-overwrite true --output ")
    (conversion,) = (tmp_path / ".nsight-ingest-cache").iterdir()
    assert conversion.name.startswith("run.") and conversion.name.endswith(".parquetdir")
    assert run_cli("launches", report, "--nsys", STAND_IN).code == 0
    assert len(stand_in()) == 1  # the conversion of the same bytes is reused
    fake_report(report, b"run 2")
    assert run_cli("classify", report, "--nsys", STAND_IN).code == 0
    assert len(stand_in()) == 2
    (again,) = (tmp_path / ".nsight-ingest-cache").iterdir()
    assert again != conversion  # the conversion of the old bytes is gone


def test_a_damaged_conversion_is_never_cached_and_a_cached_one_damaged_later_is_made_again(run_cli, tmp_path,
                                                                                            stand_in):
    cut = fake_report(tmp_path / "cut.nsys-rep", b"cut-short")  # nsys exits 0 but its kernel table is cut short
    assert "nsys export wrote a damaged export (CUPTI_ACTIVITY_KIND_KERNEL.parquet cannot be read" in error_of(
        run_cli("classify", cut, "--nsys", STAND_IN))
    assert list((tmp_path / ".nsight-ingest-cache").iterdir()) == []  # nothing kept, not even a partial copy
    report = fake_report(tmp_path / "run.nsys-rep")
    expected = run_cli("classify", report, "--nsys", STAND_IN, "--no-cache").json()
    (conversion,) = (tmp_path / ".nsight-ingest-cache").iterdir()
    kernels = conversion / "CUPTI_ACTIVITY_KIND_KERNEL.parquet"
    kernels.write_bytes(kernels.read_bytes()[:100])  # the cached conversion damaged afterwards
    again = run_cli("classify", report, "--nsys", STAND_IN, "--no-cache")
    assert again.code == 0 and again.json() == expected
    assert len(stand_in()) == 3  # converted again
    # besides, its kernels are none the bundled component rules name: the hint that says so comes every time
    (warning,) = [line for line in again.err.strip().splitlines() if "the component rules" not in line]
    assert "its cached conversion" in warning and "was damaged (CUPTI_ACTIVITY_KIND_KERNEL.parquet" in warning
    whole = run_cli("classify", report, "--nsys", STAND_IN, "--no-cache").err.strip().splitlines()
    assert all("the component rules" in line for line in whole)  # whole again: no word of damage
    assert len(stand_in()) == 3


def test_a_hung_nsys_export_stops_at_its_timeout(run_cli, tmp_path, stand_in, monkeypatch):
    monkeypatch.setenv("NSIGHT_INGEST_EXPORT_TIMEOUT_S", "0.5")
    hung = fake_report(tmp_path / "hung.nsys-rep", b"hangs")
    assert "nsys export ran past 0.5 s ($NSIGHT_INGEST_EXPORT_TIMEOUT_S sets how long it may run)" in error_of(
        run_cli("classify", hung, "--nsys", STAND_IN))
    assert list((tmp_path / ".nsight-ingest-cache").iterdir()) == []


def test_report_conversion_in_the_cache_folder(run_cli, tmp_path, stand_in, monkeypatch, cache_folder):
    from nsight_ingest.readers import report as reports

    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
        fake_report(folder / "run.nsys-rep", folder.name.encode())
    monkeypatch.setenv("NSYS", str(STAND_IN))
    for _ in range(2):  # two reports of one name in two folders keep their own conversions
        for folder in (first, second):
            assert run_cli("classify", folder / "run.nsys-rep", "--cache-dir", tmp_path / "cache").code == 0
    assert len(stand_in()) == 2 and len(list((tmp_path / "cache" / "reports").iterdir())) == 2
    assert not (first / ".nsight-ingest-cache").exists()
    writable = reports._writable
    monkeypatch.setattr(reports, "_writable", lambda f: f.name != reports.BESIDE_REPORT and writable(f))
    third = fake_report(first / "other.nsys-rep")  # its folder cannot be written: the user's cache folder
    assert run_cli("classify", third).code == 0
    assert [p.name.startswith("other.") for p in (cache_folder / "reports").iterdir()] == [True]


def test_cached_store_is_read_back_and_rebuilt_when_the_bytes_change(run_cli, tmp_path, cache_folder,
                                                                     monkeypatch):
    trace = tmp_path / "t_cuda_gpu_trace.csv"
    shutil.copy(FORMS["csv"], trace)
    first = run_cli("classify", trace)
    assert first.code == 0, first.err
    (stored,) = (cache_folder / "stores").glob("*.duckdb")

    def no_parsing(*args, **kwargs):
        raise AssertionError("an input was parsed again")

    with monkeypatch.context() as patch:
        patch.setattr(readers, "load", no_parsing)
        again = run_cli("classify", trace)
        assert again.code == 0, again.err
        assert again.out == first.out
        assert run_cli("launches", trace).code == 0  # a new question on the stored inputs
    with trace.open("a") as fh:
        fh.write(kernel_row(10**9, 1000, "late_kernel") + "\n")
    changed = run_cli("classify", trace).json()
    assert changed["kernel_count"] == first.json()["kernel_count"] + 1
    assert len(list((cache_folder / "stores").glob("*.duckdb"))) == 2
    assert stored.exists()


def test_no_cache_keeps_no_store(run_cli, cache_folder):
    assert run_cli("classify", FORMS["sqlite"], "--no-cache").code == 0
    assert not (cache_folder / "stores").exists()


def test_least_recently_used_store_is_evicted(run_cli, tmp_path, cache_folder, monkeypatch):
    monkeypatch.setenv("NSIGHT_INGEST_CACHE_MAX_BYTES", "1")
    assert run_cli("classify", FORMS["sqlite"]).code == 0
    assert run_cli("classify", FORMS["parquetdir"]).code == 0
    stores = list((cache_folder / "stores").glob("*.duckdb"))
    assert len(stores) == 1  # only the one just written stays under a 1-byte cap
    assert run_cli("classify", FORMS["parquetdir"]).code == 0
    assert list((cache_folder / "stores").glob("*.duckdb")) == stores


def test_a_damaged_cached_store_is_rebuilt(run_cli, cache_folder):
    first = run_cli("classify", FORMS["sqlite"])
    (stored,) = (cache_folder / "stores").glob("*.duckdb")
    stored.write_bytes(b"not a database" * 100)
    again = run_cli("classify", FORMS["sqlite"])
    assert again.code == 0 and again.out == first.out
    assert "damaged cached store" in again.err
    assert run_cli("classify", FORMS["sqlite"]).err == first.err  # rebuilt whole: read back without a word


def error_of(result) -> str:
    assert result.code == 2, (result.code, result.err)
    assert result.out == "" and len(result.err.strip().splitlines()) == 1, result.err
    return result.err


def test_bad_inputs_one_line_and_nothing_written(run_cli, tmp_path, stand_in, cache_folder, monkeypatch):
    only_python = tmp_path / "bin"  # a PATH without nsys (the stand-in's python3 is all it has)
    only_python.mkdir()
    (only_python / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(only_python))
    monkeypatch.delenv("NSYS", raising=False)
    report = fake_report(tmp_path / "run.nsys-rep")
    assert "nsys export --type parquetdir" in error_of(run_cli("classify", report))
    damaged = fake_report(tmp_path / "bad.nsys-rep", b"unreadable")
    assert "nsys could not export the report: ERROR: the report file is damaged" in error_of(
        run_cli("classify", damaged, "--nsys", STAND_IN))
    assert "no such executable" in error_of(run_cli("classify", report, "--nsys", tmp_path / "nsys"))
    no_kernels = tmp_path / "no_kernels_pq"
    no_kernels.mkdir()
    shutil.copy(FORMS["parquetdir"] / "StringIds.parquet", no_kernels)
    assert "no CUPTI_ACTIVITY_KIND_KERNEL table" in error_of(run_cli("classify", no_kernels))
    assert "a directory that is no nsys export" in error_of(run_cli("classify", DATA / "ncu"))
    other = sqlite3.connect(tmp_path / "other.sqlite")
    other.execute("CREATE TABLE t (x INT)")
    other.commit()
    other.close()
    assert "not an nsys export" in error_of(run_cli("classify", tmp_path / "other.sqlite"))
    assert "a stream must be a CSV report" in error_of(run_cli("classify", "-", stdin=FORMS["sqlite"].read_bytes()))
    assert "no data on the stream" in error_of(run_cli("classify", "-", stdin=b""))
    db = tmp_path / "store.duckdb"
    assert "not an nsys export" in error_of(run_cli("classify", tmp_path / "other.sqlite", "--db", db))
    assert json.loads(run_cli("query", "--db", db, "--format", "json", "SELECT count(*) AS n FROM traces").out) \
        == [{"n": 0}]
    assert not (cache_folder / "stores").exists() or not list((cache_folder / "stores").glob("*.duckdb"))
    assert [p.name for p in (tmp_path / ".nsight-ingest-cache").iterdir()] == []  # no half-written conversion


def test_a_stream_with_a_header_only(run_cli):
    result = run_cli("classify", "-", stdin=(GPU_HEADER + "\n").encode())
    assert "header but no data rows" in error_of(result)


def test_siblings_of_a_csv_include_the_api_trace(run_cli, tmp_path):
    for report in ("cuda_gpu_trace", "cuda_kern_exec_trace", "cuda_api_trace"):
        shutil.copy(LLM / f"llm2_{report}.csv", tmp_path / f"x_{report}.csv")
    out = run_cli("classify", tmp_path / "x_cuda_gpu_trace.csv").json()
    assert {i["role"] for i in out["inputs"]} == {"gpu_trace", "kernel_exec_trace", "api_trace"}


def test_classify_the_2022_and_two_gpu_exports(run_cli):
    saxpy = DATA / "public" / "saxpy_mpi_cuda_2022.sqlite"
    with sqlite3.connect(saxpy) as db:
        operations = sum(db.execute(f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t}").fetchone()[0]
                         for t in ("KERNEL", "MEMCPY", "MEMSET"))
    out = run_cli("classify", saxpy).json()
    assert (out["gpu_operation_count"], out["kernel_count"]) == (operations, 5)
    assert out["launch_api"]["launch_api_calls"] == {"cudaLaunchKernel": 5}  # 5 launch rows, not 10
    two_gpus = run_cli("classify", DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite")
    assert set(two_gpus.json()["devices"]) == {"GPU (0)", "GPU (1)"}
    assert "no TARGET_INFO_GPU table; devices are labelled 'GPU (N)'" in two_gpus.err


def test_a_store_that_fails_while_answering_is_removed_and_the_answer_recomputed(run_cli, cache_folder,
                                                                                  monkeypatch):
    """DuckDB checks a block's checksum when it reads it: a cached store damaged where opening it did not look
    fails later, and the answer is then computed again from the inputs."""
    import duckdb

    from nsight_ingest import store

    first = run_cli("classify", FORMS["sqlite"])
    stored = store.cached_result
    calls = []

    def damaged_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise duckdb.IOException("Corrupt database file: computed checksum does not match the stored checksum")
        return stored(*args)

    monkeypatch.setattr(store, "cached_result", damaged_once)
    again = run_cli("classify", FORMS["sqlite"])
    assert again.code == 0, again.err
    assert again.out == first.out and "damaged cached store was removed" in again.err
    assert len(list((cache_folder / "stores").glob("*.duckdb"))) == 1  # rebuilt and kept again


def test_edited_code_is_not_answered_from_an_old_store(run_cli, cache_folder, monkeypatch):
    from nsight_ingest import store_cache

    assert run_cli("classify", FORMS["sqlite"]).code == 0
    monkeypatch.setattr(store_cache, "code_fingerprint", lambda: "an edited query")
    assert run_cli("classify", FORMS["sqlite"]).code == 0
    assert len(list((cache_folder / "stores").glob("*.duckdb"))) == 2


def test_an_unusable_cache_folder_is_a_warning(run_cli, tmp_path, monkeypatch):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("NSIGHT_INGEST_CACHE_DIR", str(not_a_folder))
    result = run_cli("classify", FORMS["sqlite"])
    assert result.code == 0 and "the cache folder cannot be used" in result.err


def test_stdin_closed_or_a_terminal(run_cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    assert "stdin is a terminal or closed" in error_of(run_cli("classify", "-"))


def test_ingest_of_an_export_stores_every_report_once(run_cli, tmp_path):
    out = run_cli("ingest", FORMS["sqlite"], "--db", tmp_path / "s.duckdb").json()
    assert {(i["role"], i["already_stored"]) for i in out[0]["inputs"]} == {
        ("gpu_trace", False), ("kernel_exec_trace", False), ("api_trace", False)}
