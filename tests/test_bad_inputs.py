"""Bad input, faults and concurrency: one case per item of the list in the README's "Exit codes and errors"."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from tests.conftest import DATA, GPU_HEADER, KERN_EXEC_HEADER, SAMPLES, kernel_row, launch_row, write

GOOD = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"
API = SAMPLES / "h200_dit_oneblock_cuda_api_trace.csv"
KERN = SAMPLES / "h200_dit_oneblock_cuda_kern_exec_trace.csv"


def error_line(result) -> str:
    assert result.code == 2, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, result.err
    return lines[0]


# ---- files that cannot be read: one line, exit 2 --------------------------------------------------------------

def test_empty_file(run_cli, tmp_path):
    (tmp_path / "e.csv").write_bytes(b"")
    assert "file is empty" in error_line(run_cli("classify", tmp_path / "e.csv"))


def test_header_only(run_cli, tmp_path):
    assert "header but no data rows" in error_line(run_cli("classify", write(tmp_path / "h.csv", GPU_HEADER, [])))


def test_truncated_mid_row(run_cli, tmp_path):
    text = GOOD.read_text()
    cut = text.rstrip("\n").rfind(",NVIDIA H200 (0),")  # inside the last row, before its name
    (tmp_path / "t.csv").write_text(text[:cut] + "\n")
    assert "line 29" in error_line(run_cli("classify", tmp_path / "t.csv"))


def test_truncated_mid_quote(run_cli, tmp_path):
    text = GOOD.read_text()
    (tmp_path / "q.csv").write_text(text[: text.rfind('"void') + 20])
    assert "unterminated quote" in error_line(run_cli("classify", tmp_path / "q.csv"))


def test_api_trace_given_as_gpu_trace(run_cli):
    assert "is a cuda_api_trace report, expected cuda_gpu_trace" in error_line(run_cli("classify", API))


def test_ncu_file_given_to_classify(run_cli):
    line = error_line(run_cli("classify", DATA / "ncu" / "h200_smallapp_raw_stdout.csv"))
    assert "is a ncu_raw report, expected cuda_gpu_trace" in line


def test_missing_required_columns_are_named(run_cli, tmp_path):
    header = GPU_HEADER.replace("Duration (ns),", "").replace(",Name", ",Kernel")
    path = write(tmp_path / "m.csv", header, ["1,2,1,1,1,1,1,1,1,0,0,,,,,D (0),1,,7,k"])
    assert "missing required column(s): Duration, Name" in error_line(run_cli("classify", path))


def test_corrupted_gzip(run_cli, tmp_path):
    data = gzip.compress(GOOD.read_bytes())
    (tmp_path / "c.csv.gz").write_bytes(data[:40] + b"\x00garbage\x00" + data[60:])
    assert "corrupted gzip" in error_line(run_cli("classify", tmp_path / "c.csv.gz"))


def test_directory_instead_of_file(run_cli, tmp_path):
    assert "a directory that is no nsys export" in error_line(run_cli("classify", tmp_path))


def test_zero_byte_gzip(run_cli, tmp_path):
    (tmp_path / "z.csv.gz").write_bytes(b"")
    assert "file is empty" in error_line(run_cli("classify", tmp_path / "z.csv.gz"))


def test_console_output_without_table(run_cli):
    line = error_line(run_cli("classify", DATA / "nsys" / "bad_stdout_warnings_only.txt"))
    assert "no CSV table found, only console output" in line


# ---- files that are read with a documented recovery ------------------------------------------------------------

def stdout_capture(tmp_path, reports: list) -> object:
    """An `nsys stats` stdout capture: console lines, then each report's table, then a blank line."""
    parts = ["Generating SQLite file x.sqlite from x.nsys-rep\n"]
    for report in reports:
        parts.append(f"Processing [x.sqlite] with [/opt/nsys/reports/{report.name}.py]... \n")
        parts.append(report.read_text() + "\n")
    path = tmp_path / "stdout.txt"
    path.write_text("".join(parts))
    return path


def test_stdout_with_several_reports_picks_the_right_one(run_cli, tmp_path):
    path = stdout_capture(tmp_path, [API, GOOD, KERN])
    out = run_cli("classify", path, "--kern-exec", path).json()
    assert out["gpu_operation_count"] == 28 and out["kernel_count"] == 26
    assert out["launch_api"]["runtime_kernel_launches"] == 26
    assert out["cpu_gpu_overlap"]["launch_api_union_ns"] > 0


def test_stdout_without_the_wanted_report_says_which_are_there(run_cli, tmp_path):
    line = error_line(run_cli("classify", stdout_capture(tmp_path, [API, KERN])))
    assert "this is a cuda_api_trace, cuda_kern_exec_trace report, expected cuda_gpu_trace" in line


def test_utf8_bom(run_cli, tmp_path):
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + GOOD.read_bytes())
    out = run_cli("classify", tmp_path / "bom.csv").json()
    assert out["gpu_operation_count"] == 28


def test_crlf_line_ends(run_cli, tmp_path):
    (tmp_path / "crlf_cuda_gpu_trace.csv").write_bytes(GOOD.read_bytes().replace(b"\n", b"\r\n"))
    db = tmp_path / "s.duckdb"
    out = run_cli("classify", tmp_path / "crlf_cuda_gpu_trace.csv", "--db", db).json()
    assert out["gpu_operation_count"] == 28
    names = duckdb.connect(str(db)).execute("SELECT count(*) FROM gpu_ops WHERE name LIKE '%\r%'").fetchone()
    assert names == (0,)


def test_non_utf8_bytes_in_a_name_are_replaced_and_counted(run_cli, tmp_path):
    data = GOOD.read_bytes().replace(b"nvjet_sm90_tst_64x8", b"nvjet_\xff\xfe_sm90_tst_64x8", 1)
    (tmp_path / "latin_cuda_gpu_trace.csv").write_bytes(data)
    db = tmp_path / "s.duckdb"
    result = run_cli("classify", tmp_path / "latin_cuda_gpu_trace.csv", "--db", db)
    assert result.code == 0
    assert "2 invalid UTF-8 byte sequence(s) replaced with U+FFFD; rows kept" in result.err
    assert result.json()["gpu_operation_count"] == 28
    (name,) = duckdb.connect(str(db)).execute("SELECT name FROM gpu_ops WHERE name LIKE 'nvjet_%\ufffd%'").fetchone()
    assert name.startswith("nvjet_\ufffd\ufffd_sm90_tst_64x8")


@pytest.mark.parametrize(("text", "value"), [
    ("5,472", 5472.0), ("1,234.5", 1234.5), ("1.234,5", 1234.5), ("1.234.567", 1234567.0), ("3,17", 3.17),
    ("1.234", 1.234), ("-2,000", -2000.0), ("n/a", None),
])
def test_ncu_number_formats(run_cli, tmp_path, text, value):
    header = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
    row = f'"0","1","app","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","S","custom__metric","","{text}"'
    out = run_cli("ncu", write(tmp_path / "n.csv", header, [row]), "--all-metrics").json()
    got = out["kernels"][0]["metrics"]["custom__metric"]
    assert got["value"] == (value if value is not None else text)


def test_extra_unknown_columns_are_accepted(run_cli, tmp_path):
    path = write(tmp_path / "x.csv", GPU_HEADER + ",NewColumn (ns)", [kernel_row(0, 5, "k") + ",1"])
    assert run_cli("classify", path).json()["kernel_time_ns"] == 5


def test_integrity_block(run_cli, tmp_path):
    path = write(tmp_path / "i_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, "a"),
        kernel_row(50, 100, "b"),                 # starts before a ended, same stream: overlap, kept
        kernel_row(300, 0, "c"),                  # zero length, kept
        kernel_row(400, -5, "d"),                 # negative: left out
        kernel_row(500, 4_000_000_000_000, "e"),  # over an hour: left out
    ])
    result = run_cli("classify", path)
    out = result.json()
    assert out["integrity"] == {"negative_duration_operations": 1, "absurd_duration_operations": 1,
                                "zero_duration_kernels": 1, "overlapping_kernels_same_stream": 1}
    assert out["kernel_count"] == 3 and out["kernel_time_ns"] == 200
    assert "1 GPU operation(s) with negative durations left out" in result.err
    assert "durations over an hour left out" in result.err


def test_kern_exec_of_another_capture(run_cli, tmp_path):
    gpu = write(tmp_path / "o_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(i * 100, 50, "k") for i in range(10)])
    write(tmp_path / "o_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER,
          [launch_row(i * 100 - 20, 10, i * 100 + (0 if i < 4 else 7), 50, "k") for i in range(10)])
    result = run_cli("classify", gpu)
    assert result.json()["integrity"]["launch_match_percent"] == pytest.approx(40.0)
    assert "only 40.0% of its rows match a kernel" in result.err


# ---- store faults and concurrency -----------------------------------------------------------------------------

def nsight_ingest(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "nsight_ingest", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_kill_mid_ingest_leaves_no_partial_trace(tmp_path):
    db, marker = tmp_path / "store.duckdb", tmp_path / "paused"
    env = {**os.environ, "NSIGHT_INGEST_TEST_PAUSE": str(marker)}
    process = nsight_ingest("classify", GOOD, "--db", db, env=env)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)  # after the rows were inserted, before COMMIT
    process.wait()
    con = duckdb.connect(str(db))
    assert con.execute("SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM gpu_ops)").fetchone() == (0, 0)
    con.close()
    done = nsight_ingest("classify", GOOD, "--db", db)
    _, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    con = duckdb.connect(str(db))
    assert con.execute("SELECT count(*) FROM gpu_ops").fetchone() == (28,)


def test_second_writer_gets_a_clear_error(tmp_path):
    db, marker = tmp_path / "store.duckdb", tmp_path / "paused"
    env = {**os.environ, "NSIGHT_INGEST_TEST_PAUSE": str(marker)}
    holder = nsight_ingest("classify", GOOD, "--db", db, env=env)
    try:
        while not marker.exists():
            assert holder.poll() is None, holder.communicate()
            time.sleep(0.05)
        second = nsight_ingest("classify", GOOD, "--db", db)
        _, err = second.communicate(timeout=60)
        assert second.returncode == 2
        assert err.strip().count("\n") == 0 and "cannot open store" in err
    finally:
        holder.kill()
        holder.wait()
