"""Bad input, faults and concurrency: one case per item of the list in the README's "Exit codes and errors"."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from tests.conftest import DATA, GPU_HEADER, KERN_EXEC_HEADER, SAMPLES, kernel_row, launch_row, write, write_rules

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
                                "zero_duration_kernels": 1, "overlapping_kernels_same_stream": 1,
                                # no API trace, no kern_exec trace: whether graphs were replayed is unknown
                                "graph_launches": None, "untraced_graph_launches": None, "graph_kernels": None,
                                # no kernel summary to count against; every kernel row of the trace, left out or not
                                "summary_kernels": None, "traced_kernels": 5}
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


# ---- user SQL: rule files and `query` can read what they are given and nothing else -----------------------------

RULE_HEAD = "-- component: a | test rule\n"


def rules_folder(tmp_path, body: str):
    return write_rules(tmp_path / "rules", {"10_a.sql": RULE_HEAD + body})


def stored_rows(db) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM gpu_ops), "
                           "(SELECT count(*) FROM kernel_launches)").fetchone()
    finally:
        con.close()


@pytest.mark.parametrize(("body", "message"), [
    ("COPY (SELECT 1) TO '{out}'", "only a SELECT statement may run here, not COPY"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names); COPY (SELECT 1) TO '{out}'; SELECT (1",
     "SQL does not parse"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names; COPY (SELECT 1) TO '{out}'",
     "must be exactly one SQL statement, found 2"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names; DELETE FROM gpu_ops",
     "must be exactly one SQL statement, found 2"),
    ("ATTACH '{out}' AS other", "not ATTACH"),
    ("LOAD httpfs", "not LOAD"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names, read_csv('/etc/passwd')",
     "file system operations are disabled"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names WHERE name IN (SELECT name FROM gpu_ops)",
     "gpu_ops does not exist"),
    ("SELECT name, getenv('HOME') AS component, 1 AS priority FROM kernel_names", "getenv does not exist"),
    ("SELECT name, 'a' AS component, 1 AS priority FROM kernel_names, (SELECT current_setting('threads') AS t) "
     "WHERE set_config('enable_external_access', 'true') IS NULL", "rule SQL failed"),
])
def test_hostile_rule_files_are_refused_and_change_nothing(run_cli, tmp_path, body, message):
    out, db = tmp_path / "written.csv", tmp_path / "store.duckdb"
    assert run_cli("classify", GOOD, "--db", db).code == 0
    before = stored_rows(db)
    line = error_line(run_cli("classify", GOOD, "--db", db, "--rules", rules_folder(tmp_path, body.format(out=out))))
    assert message in line
    assert not out.exists() and stored_rows(db) == before


def test_a_rule_sees_only_its_relation(run_cli, tmp_path):
    # what a rule can list of its database: no table (kernel_names is a read-only view), no other database
    body = ("SELECT k.name, 'a' AS component, 1 AS priority FROM kernel_names k "
            "WHERE (SELECT count(*) FROM duckdb_tables()) = 0 "
            "AND (SELECT count(*) FROM duckdb_databases() WHERE NOT internal) = 1")
    out = run_cli("classify", GOOD, "--rules", rules_folder(tmp_path, body)).json()
    assert out["components"]["a"]["launches"] == out["kernel_count"]


@pytest.fixture
def store_file(run_cli, tmp_path):
    db = tmp_path / "store.duckdb"
    assert run_cli("classify", GOOD, "--db", db).code == 0
    return db


@pytest.mark.parametrize(("sql", "message"), [
    ("COPY gpu_ops TO '{out}'", "not COPY"),
    ("SELECT * FROM gpu_ops; COPY gpu_ops TO '{out}'", "exactly one SQL statement, found 2"),
    ("ATTACH '{other}' AS other (READ_WRITE)", "not ATTACH"),
    ("ATTACH '{other}' AS other (READ_WRITE); DELETE FROM other.gpu_ops", "exactly one SQL statement"),
    ("DELETE FROM gpu_ops", "not DELETE"),
    ("SELECT * FROM read_csv('/etc/passwd')", "file system operations are disabled"),
    ("SELECT * FROM read_text('{other}')", "file system operations are disabled"),
    ("SELECT set_config('enable_external_access', 'true')", "query failed"),
    ("", "exactly one SQL statement, found 0"),
])
def test_query_reads_and_writes_nothing(run_cli, tmp_path, store_file, sql, message):
    out, other = tmp_path / "written.csv", tmp_path / "other.duckdb"
    assert run_cli("classify", GOOD, "--db", other).code == 0
    before = stored_rows(store_file), stored_rows(other)
    line = error_line(run_cli("query", sql.format(out=out, other=other), "--db", store_file))
    assert message in line
    assert not out.exists() and (stored_rows(store_file), stored_rows(other)) == before


@pytest.mark.parametrize("sql", ["SELECT count(*) AS n FROM gpu_ops", "DESCRIBE gpu_ops", "SHOW TABLES",
                                 "SUMMARIZE gpu_ops", "FROM traces SELECT report_type", "EXPLAIN SELECT 1"])
def test_query_still_reads_the_store(run_cli, store_file, sql):
    result = run_cli("query", sql, "--db", store_file, "--format", "json")
    assert result.code == 0 and result.json()


def test_sqlite_paths_with_uri_characters(run_cli, tmp_path):
    # with the path pasted into a URI, 'a#b.sqlite' opened 'a' and 'c?d.sqlite' lost mode=ro and created 'c'
    export = DATA / "h200_llm_serve" / "llm2.sqlite"
    (tmp_path / "a").write_bytes((DATA / "public" / "saxpy_mpi_cuda_2022.sqlite").read_bytes())
    for name in ("a#b.sqlite", "c?d.sqlite", "e%20f.sqlite"):
        (tmp_path / name).write_bytes(export.read_bytes())
        out = run_cli("classify", tmp_path / name, "--no-cache").json()
        assert out["kernel_count"] == 1256
        assert out["inputs"][0]["sha256"] == hashlib.sha256(export.read_bytes()).hexdigest()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "a#b.sqlite", "c?d.sqlite", "e%20f.sqlite"]


def test_corrupt_sqlite_page_is_one_line(run_cli, tmp_path):
    data = bytearray((DATA / "h200_llm_serve" / "llm2.sqlite").read_bytes())
    data[4096 * 3: 4096 * 3 + 4096] = b"\xde\xad\xbe\xef" * 1024
    (tmp_path / "c.sqlite").write_bytes(bytes(data))
    assert "database disk image is malformed" in error_line(run_cli("classify", tmp_path / "c.sqlite"))


# ---- no wrong answer without a word ------------------------------------------------------------------------------

def without_column(source, target, column: str, **replace_values):
    rows = list(csv.reader(source.open()))
    index = rows[0].index(column)
    for name, value in replace_values.items():
        at = rows[0].index(name)
        for row in rows[1:]:
            row[at] = value
    with target.open("w", newline="") as fh:
        csv.writer(fh).writerows([row[:index] + row[index + 1:] for row in rows])
    return target


@pytest.mark.parametrize("device_index", ["0", "1"])
def test_gpu_trace_without_device_column(run_cli, tmp_path, device_index):
    gpu = without_column(GOOD, tmp_path / "x_cuda_gpu_trace.csv", "Device")
    rows = list(csv.reader(KERN.open()))
    at = rows[0].index("DevId")
    for row in rows[1:]:
        row[at] = device_index  # the launches name a device the kernels do not
    with (tmp_path / "x_cuda_kern_exec_trace.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    overlap = run_cli("classify", gpu).json()["cpu_gpu_overlap"]
    assert (overlap["launch_api_union_ns"], overlap["launch_api_gpu_overlap_ns"]) == (418_457, 16_062)
    assert overlap == run_cli("classify", GOOD).json()["cpu_gpu_overlap"]


def test_ncu_metric_column_twice_keeps_the_first(run_cli, tmp_path):
    lines = (DATA / "ncu" / "h200_dit_raw_metrics.csv").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = [r for r in csv.reader(lines[start:]) if r]
    at = rows[0].index("gpu__time_duration.sum")
    twice = [[*rows[0], rows[0][at]], [*rows[1], rows[1][at]],
             *([*row, str(float(row[at].replace(",", "")) * 2)] for row in rows[2:])]
    path = tmp_path / "twice.csv"
    with path.open("w", newline="") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL).writerows(twice)
    db = tmp_path / "s.duckdb"
    result = run_cli("ncu", path, "--db", db)
    assert result.code == 0 and "column 'gpu__time_duration.sum' appears 2 times; the first is used" in result.err
    first = {int(row[0]): float(row[at].replace(",", "")) for row in rows[2:]}
    stored = duckdb.connect(str(db)).execute("SELECT result_id, value FROM ncu_metrics "
                                             "WHERE metric = 'gpu__time_duration.sum'").fetchall()
    assert dict(stored) == first and len(stored) == len(first)


def test_abba_timing_that_is_not_a_number(run_cli, tmp_path):
    timings = tmp_path / "t.csv"
    timings.write_text("trial,variant,update,seconds\n" + "".join(
        f"{t},{v},{u},{'nan' if (t, v, u) == (1, 'after', 2) else 1.0 + u / 10}\n"
        for t in range(2) for v in ("before", "after") for u in range(4)))
    assert "1 timing(s) are not a finite number of seconds" in error_line(run_cli("compare", "--abba", timings))


def test_json_output_never_holds_nan():
    from nsight_ingest import report

    text = report.to_json({"a": float("nan"), "b": [float("inf"), 1.5], "c": {"d": -float("inf")}})
    assert json.loads(text) == {"a": None, "b": [None, 1.5], "c": {"d": None}}


def test_console_lines_around_a_table_keep_line_numbers(run_cli, tmp_path):
    lines = GOOD.read_text().splitlines()
    bad = lines[5].split(",")
    bad[1] = "abc"
    lines[5] = ",".join(bad)  # the table's line 6
    console = ["Generating SQLite file x.sqlite from x.nsys-rep",
               "Processing [x.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... ", ""]
    path = tmp_path / "stdout.txt"
    path.write_text("\n".join([*console, *lines, "", "Processing [x.sqlite] with [y.py]... ", "SKIPPED: y"]) + "\n")
    assert "line 9:" in error_line(run_cli("classify", path))


def test_quoted_line_break_after_console_lines(run_cli, tmp_path):
    lines = GOOD.read_text().splitlines()
    row = lines[3].split(",", 20)
    row[20] = '"kernel with a\nline break"'
    lines[3] = ",".join(row)
    plain = tmp_path / "plain_cuda_gpu_trace.csv"
    plain.write_text("\n".join(lines) + "\n")
    console = tmp_path / "stdout.txt"
    console.write_text("\n".join(["Processing [x.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... ", *lines, "",
                                  "Processing [x.sqlite] with [y.py]... "]) + "\n")
    assert run_cli("classify", console).json()["kernel_time_ns"] == run_cli("classify", plain).json()["kernel_time_ns"]


@pytest.mark.parametrize("store_args", [(), ("--db", "{db}")])
def test_values_no_analysis_reads_become_null_in_every_store(run_cli, tmp_path, store_args):
    lines = GOOD.read_text().splitlines()
    row = lines[2].split(",")
    row[4], row[10] = "x4", "1e300"  # GrdY not a number, StcSMem beyond a BIGINT of bytes
    lines[2] = ",".join(row)
    path = tmp_path / "d_cuda_gpu_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    db = tmp_path / "s.duckdb"
    result = run_cli("classify", path, *(a.format(db=db) for a in store_args))
    assert result.code == 0 and result.json()["gpu_operation_count"] == 28
    assert "2 value(s) in 1 row(s) of cuda_gpu_trace did not parse" in result.err
    if store_args:
        got = duckdb.connect(str(db)).execute("SELECT grid_y, static_smem_bytes, unparsed_values FROM gpu_ops "
                                              "WHERE unparsed_values > 0").fetchall()
        assert got == [(None, None, 2)]


@pytest.mark.parametrize("store_args", [(), ("--db", "{db}")])
def test_a_value_an_analysis_reads_must_parse_in_every_store(run_cli, tmp_path, store_args):
    lines = GOOD.read_text().splitlines()
    row = lines[2].split(",")
    row[19] = "seven"  # Strm
    lines[2] = ",".join(row)
    path = tmp_path / "s_cuda_gpu_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    line = error_line(run_cli("classify", path, *(a.format(db=tmp_path / "s.duckdb") for a in store_args)))
    assert 'line 3: Could not convert string "seven"' in line


# ---- half-written results ----------------------------------------------------------------------------------------

def test_capture_goes_in_whole_or_not_at_all(run_cli, tmp_path):
    (tmp_path / "x_cuda_gpu_trace.csv").write_bytes(GOOD.read_bytes())
    launches = KERN.read_text().splitlines()
    launches[2] = "abc" + launches[2][launches[2].index(","):]
    (tmp_path / "x_cuda_kern_exec_trace.csv").write_text("\n".join(launches) + "\n")
    db = tmp_path / "s.duckdb"
    assert "x_cuda_kern_exec_trace.csv: line 3" in error_line(run_cli("ingest", tmp_path / "x_cuda_gpu_trace.csv",
                                                                      "--db", db))
    assert stored_rows(db) == (0, 0, 0)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM captures").fetchone() == (0,)


def test_reports_are_written_whole(tmp_path, monkeypatch):
    from nsight_ingest.report import write_whole

    page = tmp_path / "night.html"
    write_whole(page, "old report")

    def disk_full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(type(page), "write_text", disk_full)
    with pytest.raises(OSError):
        write_whole(page, "new report")
    monkeypatch.undo()
    assert page.read_text() == "old report" and [p.name for p in tmp_path.iterdir()] == ["night.html"]


# ---- exit 3 only for bugs: bad input and a hostile environment are one line, exit 2 -------------------------------

def test_start_at_the_bottom_of_int64(run_cli, tmp_path):
    lines = GOOD.read_text().splitlines()
    lines[1] = str(-(2**63)) + lines[1][lines[1].index(","):]
    path = tmp_path / "m_cuda_gpu_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    assert "a start_ns value lies beyond +-2^61 ns" in error_line(run_cli("classify", path))


@pytest.mark.parametrize(("spec", "message"), [
    ("0:99999999999999999999", "times lie within"), ("5:1", "the end must come after the start"),
    ("a:b", "expected START_NS:END_NS"),
])
def test_bad_range(run_cli, spec, message):
    assert message in error_line(run_cli("classify", GOOD, "--range", spec))


def test_unreadable_file(run_cli, tmp_path, monkeypatch):
    path = tmp_path / "u_cuda_gpu_trace.csv"
    path.write_bytes(GOOD.read_bytes())
    real_open = type(path).open

    def denied(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(type(path), "open", denied)
    assert error_line(run_cli("classify", path, "--no-cache")).endswith("u_cuda_gpu_trace.csv: Permission denied")


def test_rule_file_that_is_not_utf8(run_cli, tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "a.sql").write_bytes(RULE_HEAD.encode() + b"SELECT name, '\xff' AS component, 1 AS priority "
                                   b"FROM kernel_names")
    assert "rule file is not UTF-8 text" in error_line(run_cli("classify", GOOD, "--rules", folder))


def test_folder_named_like_a_rule_file(run_cli, tmp_path):
    folder = tmp_path / "rules"
    (folder / "b.sql").mkdir(parents=True)
    assert "is not a file" in error_line(run_cli("classify", GOOD, "--rules", folder))


def test_disk_full_during_ingest(run_cli, tmp_path, monkeypatch):
    from nsight_ingest import store

    def full(*args, **kwargs):
        raise duckdb.IOException("IO Error: Could not write file \"s.duckdb.wal\": No space left on device")

    monkeypatch.setattr(store, "_insert", full)
    assert "No space left on device" in error_line(run_cli("ingest", GOOD, "--db", tmp_path / "s.duckdb"))


def test_out_of_memory_names_the_limit(run_cli, monkeypatch):
    from nsight_ingest import store

    def exhausted(*args, **kwargs):
        raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block of size 256.0 KiB")

    monkeypatch.setattr(store, "_insert", exhausted)
    assert "raise NSIGHT_INGEST_MEMORY_LIMIT" in error_line(run_cli("classify", GOOD, "--no-cache"))


def test_usage_errors_are_one_line(run_cli):
    line = error_line(run_cli("classify", GOOD, "--no-such-option"))
    assert line.startswith("nsight-ingest: error: ") and "No such option: --no-such-option" in line
    assert "(see --help)" in line
    assert "Missing parameter" in error_line(run_cli("query"))


@pytest.mark.parametrize(("args", "message"), [
    (("--bound-at-least", "nan"), "--bound-at-least nan: not a number"),
    (("--bound-at-least", "200"), "is not in the range 0<=x<=100"),
    (("--dominance", "0.5"), "is not in the range x>=1"),
])
def test_ncu_thresholds_are_numbers_in_range(run_cli, args, message):
    assert message in error_line(run_cli("ncu", DATA / "ncu" / "h200_dit_raw_metrics.csv", *args))


def test_nightly_limits_are_numbers(run_cli, tmp_path):
    line = error_line(run_cli("summarize", tmp_path, "--history", tmp_path / "h", "--mad-k", "nan"))
    assert "--mad-k nan: not a number" in line


# ---- found by an independent adversarial review ------------------------------------------------------------------

def test_a_rule_cannot_change_what_the_next_rule_sees(run_cli, tmp_path):
    folder = write_rules(tmp_path / "rules", {
        "00_first.sql": RULE_HEAD + "WITH gone AS (DELETE FROM kernel_names RETURNING name) "
                                    "SELECT name, 'a' AS component, 1 AS priority FROM gone WHERE false"})
    assert "Can only delete from base table" in error_line(run_cli("classify", GOOD, "--rules", folder))


def test_a_rule_cannot_read_the_spill_folder_duckdb_would_allow(run_cli, tmp_path, monkeypatch):
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "x.csv").write_text("secret\nhello_from_tmp\n")
    monkeypatch.chdir(tmp_path)
    body = "SELECT name, 'a' AS component, 1 AS priority FROM kernel_names, read_csv('.tmp/x.csv')"
    assert "file system operations are disabled" in error_line(
        run_cli("classify", GOOD, "--rules", rules_folder(tmp_path, body)))


def test_a_comment_does_not_make_a_context_rule(run_cli, tmp_path):
    body = "-- unlike the kernel_contexts rules, this one reads names\nSELECT name, 'a' AS component, 1 AS priority " \
           "FROM kernel_names"
    out = run_cli("classify", GOOD, "--rules", rules_folder(tmp_path, body)).json()
    assert out["components"]["a"]["launches"] == out["kernel_count"]


@pytest.mark.parametrize("sql", ["EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1", "EXPLAIN ANALYZE CHECKPOINT",
                                 "EXPLAIN ANALYZE SET VARIABLE x = 1"])
def test_explain_runs_only_a_select(run_cli, store_file, sql):
    assert "only a SELECT statement may run here" in error_line(run_cli("query", sql, "--db", store_file))
    assert run_cli("query", "EXPLAIN ANALYZE SELECT count(*) FROM gpu_ops", "--db", store_file).code == 0


@pytest.mark.parametrize("db", ["md:foo", "s3://bucket/x.duckdb", "sqlite:x.db", "", ":memory:x", "q?d/x.duckdb"])
def test_a_store_is_a_plain_file_path(run_cli, tmp_path, monkeypatch, db):
    monkeypatch.chdir(tmp_path)
    assert "a store is a DuckDB file, named by a plain path" in error_line(run_cli("classify", GOOD, "--db", db))
    assert list(tmp_path.iterdir()) == []  # nothing fetched, nothing created


def test_an_nsys_sqlite_given_as_the_store(run_cli):
    line = error_line(run_cli("query", "SELECT 1", "--db", DATA / "h200_llm_serve" / "llm2.sqlite"))
    assert "an SQLite file (an nsys export?), not a DuckDB store" in line


def test_query_json_with_a_column_name_twice(run_cli, store_file):
    assert "appear twice" in error_line(run_cli("query", "SELECT 1 AS a, 2 AS a", "--db", store_file, "--format",
                                                "json"))
    assert run_cli("query", "SELECT 1 AS a, 2 AS a", "--db", store_file, "--format", "csv").out == "a,a\n1,2\n"


def test_sqlite_schema_bytes_that_are_not_utf8(run_cli, tmp_path):
    data = bytearray((DATA / "h200_llm_serve" / "llm2.sqlite").read_bytes())
    data[504471] = 0xBA  # inside a table's CREATE statement in sqlite_master
    (tmp_path / "s.sqlite").write_bytes(bytes(data))
    assert "not a readable SQLite file" in error_line(run_cli("classify", tmp_path / "s.sqlite"))


@pytest.mark.parametrize(("args", "message"), [
    (("launches", GOOD, "--top", "9223372036854775808"), "is not in the range"),
    (("classify", GOOD, "--nvtx", ""), "--nvtx needs a range name"),
    (("classify", GOOD, "--per-nvtx", " "), "--per-nvtx needs a range name"),
    (("classify", GOOD, "--range", "99999999999999999999:"), "times lie within"),
])
def test_option_values_out_of_reach(run_cli, args, message):
    assert message in error_line(run_cli(*args))


def test_binary_stream_is_refused_at_once(run_cli):
    assert "this one holds binary data" in error_line(run_cli("classify", "-", stdin=b"\0" * (1 << 20)))


@pytest.mark.parametrize(("rows", "message"), [
    ("1,before,1,1\n1,after,1,0\n", "not a finite number of seconds above 0"),
    ("1,before,1,1\n1,after,1,2\n1,after,1,3\n", "1 row(s) repeat a (trial, variant, update)"),
])
def test_abba_zero_and_repeated_timings(run_cli, tmp_path, rows, message):
    (tmp_path / "t.csv").write_text("trial,variant,update,seconds\n" + rows)
    assert message in error_line(run_cli("compare", "--abba", tmp_path / "t.csv"))


def test_an_option_out_of_range_is_one_line_and_no_help(run_cli):
    """A bad option value: one line on stderr, nothing on stdout (the help is for a group given no arguments)."""
    out = run_cli("classify", "x_cuda_gpu_trace.csv", "--top", "0")
    assert out.code == 2 and out.out == "" and len(out.err.strip().splitlines()) == 1 and "--top" not in out.out
    assert "Usage" in run_cli().out


def test_a_rule_that_never_ends_is_stopped(run_cli, tmp_path, monkeypatch):
    """A rule file whose recursion never ends is interrupted after the rules' time limit: one line, exit 2."""
    from nsight_ingest import rules

    monkeypatch.setattr(rules, "RULE_SECONDS", 0.5)
    folder = write_rules(tmp_path / "families", {"f.sql": (
        "-- family: a | x\nWITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) "
        "SELECT name, 'a' AS family, 1 AS priority FROM kernel_names, t WHERE n < 0")})
    trace = write(tmp_path / "t_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 10, "k")])
    out = run_cli("classify", str(trace), "--families", str(folder), "--no-cache")
    assert out.code == 2 and "ran longer than 0.5 s" in out.err and len(out.err.strip().splitlines()) == 1
