"""nsys CSV readers: header units, quoting, long names, op kinds, console lines, gzip, report detection."""

from __future__ import annotations

import csv
import gzip

import duckdb
import pytest

from nsight_ingest import store
from nsight_ingest.errors import InputError
from nsight_ingest.readers import nsys
from nsight_ingest.readers.source import locate_table, sibling
from nsight_ingest.sqlmodules import dict_rows
from tests.conftest import DATA, GPU_HEADER, SAMPLES, kernel_row, memop_row, write


def rows_of(path, report="cuda_gpu_trace"):
    (insert,) = nsys.load(path, report).inserts
    select_sql = insert.select_sql
    return dict_rows(duckdb.connect().execute(select_sql))


def test_units_are_taken_from_the_header(tmp_path):
    header = GPU_HEADER.replace("Start (ns)", "Start (ms)").replace("Duration (ns)", "Duration (us)")
    header = header.replace("Bytes (MB)", "Bytes (KB)").replace("Throughput (MB/s)", "Throughput (GB/s)")
    path = write(tmp_path / "u_cuda_gpu_trace.csv", header, [
        "1.5,2.25,9,,,,,,,,,,4.096,12.5,Pageable,Device,NVIDIA H200 (0),1,,7,[CUDA memcpy Host-to-Device]",
    ])
    (row,) = rows_of(path)
    assert row["start_ns"] == 1_500_000
    assert row["duration_ns"] == 2_250
    con = store.connect()
    store.ingest(con, path, "cuda_gpu_trace")
    assert con.execute("SELECT end_ns FROM gpu_ops").fetchone() == (1_502_250,)  # generated in the store
    assert row["transfer_bytes"] == 4_096
    assert row["throughput_bytes_per_s"] == pytest.approx(12.5e9)
    assert row["op_kind"] == "memcpy"
    assert row["device_index"] == 0


def test_unknown_unit_is_an_error_not_a_guess(tmp_path):
    path = write(tmp_path / "x_cuda_gpu_trace.csv", GPU_HEADER.replace("Start (ns)", "Start (fortnights)"),
                 [kernel_row(1, 1, "k")])
    with pytest.raises(InputError, match="unknown unit 'fortnights'"):
        nsys.load(path, "cuda_gpu_trace")


def test_quoted_names_with_commas_and_several_kb_names(tmp_path):
    long_name = "void cute::kernel<" + ", ".join(f"cute::C<{i}>" for i in range(600)) + ">(Params)"
    assert len(long_name) > 6000
    path = write(tmp_path / "q_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(10, 5, "vectorAdd(const float *, const float *, float *, int)"),
        kernel_row(20, 5, long_name),
        memop_row(30, 5, "[CUDA memset]"),
    ])
    rows = rows_of(path)
    assert [r["name"] for r in rows] == ["vectorAdd(const float *, const float *, float *, int)", long_name,
                                         "[CUDA memset]"]
    assert [r["op_kind"] for r in rows] == ["kernel", "kernel", "memset"]
    assert rows[0]["grid_x"] == 1 and rows[0]["block_x"] == 128 and rows[0]["stream_id"] == 7


def test_header_without_greenctx_from_older_nsys(tmp_path):
    header = GPU_HEADER.replace("GreenCtx,", "")
    path = write(tmp_path / "old_cuda_gpu_trace.csv", header,
                 ['5,6,1,1,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA A100 (2),1,7,"k(int, int)"'])
    (row,) = rows_of(path)
    assert row["green_context_id"] is None and row["stream_id"] == 7 and row["device_index"] == 2


def test_extra_unknown_columns_are_accepted(tmp_path):
    header = GPU_HEADER + ",FutureColumn (ns)"
    path = write(tmp_path / "new_cuda_gpu_trace.csv", header, [kernel_row(1, 2, "k") + ",77"])
    (row,) = rows_of(path)
    assert row["name"] == "k" and row["duration_ns"] == 2


def test_console_lines_before_the_table_are_skipped():
    path = DATA / "nsys" / "vecadd_v3_stdout_with_console_lines.txt"
    table = locate_table(path, "cuda_gpu_trace")
    assert table.header_line == 2
    with open(path, newline="") as fh:
        expected = list(csv.reader(fh.readlines()[3:]))
    expected = [r for r in expected if r]
    rows = rows_of(path)
    assert len(rows) == len(expected) == 1013
    assert sum(r["duration_ns"] for r in rows) == sum(int(r[1]) for r in expected)
    kinds = {k: sum(1 for r in rows if r["op_kind"] == k) for k in ("kernel", "memcpy", "memset")}
    assert kinds["kernel"] == sum(1 for r in expected if r[3] != "")
    assert kinds["memcpy"] == sum(1 for r in expected if r[20].startswith("[CUDA memcpy"))


def test_gzip_is_read_transparently(tmp_path):
    source = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"
    target = tmp_path / "z_cuda_gpu_trace.csv.gz"
    target.write_bytes(gzip.compress(source.read_bytes()))
    assert rows_of(target) == rows_of(source)


@pytest.mark.parametrize("variant", ["base", "mangled", "nvtx-name"])
def test_name_mode_variants_parse(variant):
    path = DATA / "nsys" / f"llama3_rtx4060ti_cuda_gpu_trace_{variant}.csv"
    with open(path, newline="") as fh:
        expected = [r["Name"] for r in csv.DictReader(fh)]
    assert [r["name"] for r in rows_of(path)] == expected


def test_kern_exec_trace_columns():
    path = SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv"
    con = store.connect(details=True)
    store.ingest(con, path, "cuda_kern_exec_trace")
    rows = dict_rows(con.execute("SELECT * FROM kernel_launches ORDER BY api_start_ns"))
    first = rows[0]
    # 13960801,72649,,,14025830,1568,72649,457,457,0,cudaLaunchKernel,   2    1    1, 128    1    1,...
    assert (first["api_start_ns"], first["api_duration_ns"]) == (13960801, 72649)
    assert first["queue_start_ns"] is None and first["queue_duration_ns"] is None
    assert (first["kernel_start_ns"], first["kernel_duration_ns"], first["device_index"]) == (14025830, 1568, 0)
    # the store parses the exported triples on read
    assert first["grid_xyz"] == "   2    1    1"
    assert (first["grid_x"], first["grid_y"], first["grid_z"]) == (2, 1, 1)
    assert (first["block_x"], first["block_y"], first["block_z"]) == (128, 1, 1)
    assert {r["api_function"] for r in rows} == {"cudaLaunchKernel", "cuLaunchKernelEx"}


def test_nvtx_and_api_traces():
    (step,) = rows_of(SAMPLES / "h200_dit_oneblock_nvtx_pushpop_trace.csv", "nvtx_pushpop_trace")
    assert (step["name"], step["range_name"], step["start_ns"], step["end_ns"]) == (
        ":step 0", "step 0", 13777273, 16545358)
    calls = rows_of(SAMPLES / "h200_dit_oneblock_cuda_api_trace.csv", "cuda_api_trace")
    assert calls[0]["name"] == "cuProfilerStart" and calls[0]["corr_id"] == 70 and calls[0]["thread_name"] == "python3"


@pytest.mark.parametrize(("path", "message"), [
    (SAMPLES / "h200_dit_oneblock_cuda_api_trace.csv", "is a cuda_api_trace report, expected cuda_gpu_trace"),
    (SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv", "is a cuda_kern_exec_trace report"),
    (DATA / "nsys" / "bad_stdout_warnings_only.txt", "no CSV table found, only console output"),
])
def test_wrong_report_type_is_named(path, message):
    with pytest.raises(InputError, match=message):
        nsys.load(path, "cuda_gpu_trace")


def test_sibling_keeps_the_users_spelling(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench\\run_cuda_kern_exec_trace.csv.gz").write_text("x")
    assert sibling("bench\\run_cuda_gpu_trace.csv.gz", "cuda_kern_exec_trace") == (
        "bench\\run_cuda_kern_exec_trace.csv.gz")
    assert sibling("bench\\other_cuda_gpu_trace.csv", "cuda_kern_exec_trace") is None


def test_sibling_of_the_other_compression(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run_cuda_kern_exec_trace.csv").write_text("x")
    (tmp_path / "z_cuda_kern_exec_trace.csv.gz").write_text("x")
    assert sibling("run_cuda_gpu_trace.csv.gz", "cuda_kern_exec_trace") == "run_cuda_kern_exec_trace.csv"
    assert sibling("z_cuda_gpu_trace.csv", "cuda_kern_exec_trace") == "z_cuda_kern_exec_trace.csv.gz"
