"""The nightly job: history, regressions against a rolling baseline, idempotence, crashes, locks, schedulers."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import duckdb
import pytest
from filelock import FileLock

from nsight_ingest import nightly
from tests import html_page
from tests.conftest import DATA
from tools.gen_trace import DIT_BLOCK, DIT_BLOCK_MEMOPS, generate

NIGHTS = 6


def make_night(folder, seed, gemm_factor=1.0, captures=("dit",)):
    folder.mkdir(parents=True, exist_ok=True)
    plan = dict(DIT_BLOCK)
    count, ms = plan["nvfp4_gemms"]
    plan["nvfp4_gemms"] = (count, ms * gemm_factor)
    for index, capture in enumerate(captures):
        generate(folder, capture, plan, DIT_BLOCK_MEMOPS, seed=seed * 10 + index)
    return folder


def summarize(run_cli, folder, history, night, *extra):
    result = run_cli("summarize", folder, "--history", history, "--date", f"2026-11-{night:02d}", "--workers", "2",
                     *extra)
    return result.code, json.loads(result.out) if result.out else None, result.err


def rows(history):
    return duckdb.sql(f"SELECT * EXCLUDE (run_id) FROM read_parquet('{history}/date=*/*.parquet', "
                      "hive_partitioning=true) ORDER BY ALL").fetchall()


@pytest.fixture(scope="module")
def baseline_nights(tmp_path_factory):
    root = tmp_path_factory.mktemp("nights")
    return [make_night(root / f"n{night}", seed=night) for night in range(1, NIGHTS + 1)]


def run_history(run_cli, nights, history):
    codes = [summarize(run_cli, folder, history, night)[0] for night, folder in enumerate(nights, start=1)]
    assert codes == [0] * len(nights)


def test_noise_only_history_is_not_flagged(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    run_history(run_cli, baseline_nights, history)
    code, out, _ = summarize(run_cli, make_night(tmp_path / "quiet", seed=99), history, 20)
    assert code == 0 and out["regressions"] == []
    assert out["checked_metrics"] > 10


def test_ten_percent_regression_is_flagged(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    run_history(run_cli, baseline_nights, history)
    code, out, _ = summarize(run_cli, make_night(tmp_path / "slow", seed=98, gemm_factor=1.10), history, 20)
    assert code == 1
    assert [(r["metric"], r["component"]) for r in out["regressions"]] == [("component_ms", "nvfp4_gemms")]
    (regression,) = out["regressions"]
    assert regression["baseline_runs"] == NIGHTS
    assert regression["value"] > regression["limit"] > regression["baseline_median"]
    markdown = (history / "reports" / "2026-11-20.md").read_text()
    assert "**1 regression(s)**" in markdown and "| dit | component_ms | nvfp4_gemms |" in markdown
    page = html_page.read(history / "reports" / "2026-11-20.html")
    metrics = page.tables["metrics"]
    assert metrics.row_classes.count("regressed") == 1 and metrics.row_classes[0] == "regressed"
    assert metrics.records()[0]["metric"] == "component_ms" and metrics.records()[0]["verdict"] == "regressed"


def test_rolling_baseline_by_hand(tmp_path):
    """Baseline values 100, 102, 98, 101, 99 (median 100, MAD 1): allowed max(3 x 1.4826 x 1, 5) = 5."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nsight_ingest import history as regressions

    history = tmp_path / "h"
    values = [100, 102, 98, 101, 99, 104.9, 105.1]  # nights 1-5 baseline; night 6 stays within, night 7 is over
    for night, value in enumerate(values, start=1):
        folder = history / f"date=2026-11-{night:02d}"
        folder.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist([{
            "run_id": f"r{night}", "capture": "c", "trace_sha256": f"s{night}", "metric": "kernel_time_ms",
            "component": None, "value": float(value), "unit": "ms", "rule_set_version": "v"}]), folder / "x.parquet")
    check = regressions.Baseline(runs=5, min_runs=3, directions={"kernel_time_ms": "up"})
    VERSIONS = regressions.RuleVersions("v", "f")
    (night6,) = regressions.night(history, dt.date(2026, 11, 6), VERSIONS, check).checks
    assert night6["baseline_median"] == 100 and night6["baseline_mad"] == 1
    assert night6["limit"] == pytest.approx(105.0) and not night6["regressed"]
    # night 7: the last 5 runs are 102, 98, 101, 99, 104.9: median 101, MAD 2, allowed max(8.8956, 5.05)
    (night7,) = regressions.night(history, dt.date(2026, 11, 7), VERSIONS, check).checks
    assert night7["baseline_median"] == 101 and night7["limit"] == pytest.approx(101 + 3 * 1.4826 * 2)
    assert not night7["regressed"]
    down = regressions.Baseline(runs=5, min_runs=3, directions={"kernel_time_ms": "down"})
    assert regressions.night(history, dt.date(2026, 11, 6), VERSIONS, down).checks[0]["limit"] == pytest.approx(95.0)


def test_idempotent_and_skips_known_traces(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    summarize(run_cli, baseline_nights[0], history, 1)
    before = rows(history)
    code, out, _ = summarize(run_cli, baseline_nights[0], history, 1)
    assert code == 0 and out["written"] == [] and len(out["skipped"]) == 1
    assert rows(history) == before


def test_crash_mid_run_leaves_a_readable_history_and_the_next_run_completes(tmp_path):
    folder = make_night(tmp_path / "n", seed=5, captures=("a", "b", "c"))
    history = tmp_path / "history"

    def crashing(work, traces, rules_dir):
        yield traces[0], work(traces[0], rules_dir)
        raise KeyboardInterrupt  # the machine goes down after the first trace

    with pytest.raises(KeyboardInterrupt):
        nightly.summarize(folder, history, dt.date(2026, 11, 1), nightly.RuleFolders(), crashing)
    assert {r[0] for r in rows(history)} == {"a"}  # whole files only, readable
    assert not list(history.rglob("*.partial"))
    result = nightly.summarize(folder, history, dt.date(2026, 11, 1), nightly.RuleFolders(), nightly.local_runner(2))
    assert len(result.skipped) == 1 and len(result.written) == 2
    assert {r[0] for r in rows(history)} == {"a", "b", "c"}


def test_concurrent_run_waits_then_fails_clearly(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    history.mkdir()
    with FileLock(history / ".lock"):
        result = run_cli("summarize", baseline_nights[0], "--history", history, "--lock-timeout", "0.2")
    assert result.code == 2
    assert "another summarize run holds the history lock" in result.err
    assert not list(history.glob("date=*"))


def test_dask_and_local_schedulers_write_identical_histories(run_cli, tmp_path):
    from distributed import LocalCluster

    folder = make_night(tmp_path / "n", seed=7, captures=("a", "b"))
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert summarize(run_cli, folder, local, 3)[0] == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, processes=True) as cluster:
        code, out, err = summarize(run_cli, folder, remote, 3, "--scheduler", "dask", "--dask-address",
                                   cluster.scheduler_address)
    assert code == 0, err
    assert len(out["written"]) == 2
    assert rows(local) == rows(remote)


def test_discovery_pairs_siblings(tmp_path):
    folder = make_night(tmp_path / "n", seed=1, captures=("x",))
    (folder / "x_nvtx_pushpop_trace.csv").write_text("")
    (folder / "x_ncu_raw.csv").write_text("")
    (trace,) = nightly.discover(tmp_path)
    assert trace.name == "x" and trace.files.kern_exec.endswith("x_cuda_kern_exec_trace.csv")
    assert trace.files.nvtx_trace.endswith("x_nvtx_pushpop_trace.csv") and trace.files.ncu[0].endswith("x_ncu_raw.csv")


def test_discovery_keeps_one_form_per_capture(tmp_path):
    """The same capture as a report, an .sqlite and a CSV set counts once (the export is read); a parquetdir is a
    capture of its own name; cache folders and export folders are not searched."""
    llm = DATA / "h200_llm_serve"
    night = tmp_path / "night"
    night.mkdir()
    shutil.copy(llm / "llm2.sqlite", night / "run.sqlite")
    shutil.copy(llm / "llm2_cuda_gpu_trace.csv", night / "run_cuda_gpu_trace.csv")
    (night / "run.nsys-rep").write_bytes(b"NVIDIA Tegra Profiler Report 1\n")
    shutil.copytree(llm / "llm2_pq", night / "other_pq")
    shutil.copytree(llm / "llm2_pq", night / ".nsight-ingest-cache" / "run.0123.parquetdir")
    (night / "other_pq" / "nested_cuda_gpu_trace.csv").write_text("")
    found = {c.name: c.files.gpu_trace for c in nightly.discover(tmp_path)}
    assert found == {"run": str(night / "run.sqlite"), "other": str(night / "other_pq")}


# ---- a first or bad night -----------------------------------------------------------------------------------------

def test_an_empty_night_is_an_error_unless_allowed(run_cli, tmp_path):
    night, history = tmp_path / "empty", tmp_path / "history"
    night.mkdir()
    result = run_cli("summarize", night, "--history", history)
    assert result.code == 2 and result.err.count("\n") == 1 and "no captures found" in result.err
    allowed = run_cli("summarize", night, "--history", history, "--allow-empty")
    assert allowed.code == 0 and allowed.json()["traces_found"] == 0


def test_a_first_night_where_every_capture_fails(run_cli, tmp_path):
    night = tmp_path / "bad"
    night.mkdir()
    (night / "x_cuda_gpu_trace.csv").write_text("Start (ns),Duration (ns),CorrId,GrdX,Strm,Name\n1,abc,1,1,7,k\n")
    code, out, err = summarize(run_cli, night, tmp_path / "history", 1)
    assert code == 2 and out["failed"] and 'line 2: Could not convert string "abc"' in out["failed"][0]
    assert "internal error" not in err and (tmp_path / "history" / "reports" / "2026-11-01.html").is_file()


def test_a_damaged_history_file_is_listed_and_skipped(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    run_history(run_cli, baseline_nights[:3], history)
    damaged = sorted(history.glob("date=2026-11-02/*.parquet"))[0]
    damaged.write_bytes(damaged.read_bytes()[:100])  # cut short
    code, out, err = summarize(run_cli, baseline_nights[3], history, 4)
    assert code == 0 and out["damaged_history_files"] == [str(damaged)] and len(out["written"]) == 1
    assert f"{damaged}: cannot be read as history (cut short, overwritten or another schema): left out" in err
    assert str(damaged) in (history / "reports" / "2026-11-04.md").read_text()
    checks = nightly.history.night(history, dt.date(2026, 11, 4), nightly.RuleFolders().versions(),
                                    nightly.history.Baseline()).checks
    assert checks and {c["baseline_runs"] for c in checks} == {2}  # nights 1 and 3: the damaged night 2 is left out


def test_the_same_capture_on_a_later_night_gets_that_nights_rows(run_cli, baseline_nights, tmp_path):
    history = tmp_path / "history"
    summarize(run_cli, baseline_nights[0], history, 1)
    code, out, _ = summarize(run_cli, baseline_nights[0], history, 2)  # the same bytes, the next night
    assert code == 0 and len(out["written"]) == 1 and out["skipped"] == []
    nights = duckdb.sql(f"SELECT DISTINCT date FROM read_parquet('{history}/date=*/*.parquet', "
                        "hive_partitioning=true) ORDER BY 1").fetchall()
    assert [str(d) for (d,) in nights] == ["2026-11-01", "2026-11-02"]
    again = summarize(run_cli, baseline_nights[0], history, 2)[1]  # rerunning that night adds nothing
    assert again["written"] == [] and len(again["skipped"]) == 1


def test_history_that_is_a_file_or_cannot_be_written(run_cli, baseline_nights, tmp_path, monkeypatch):
    named = tmp_path / "history"
    named.write_text("not a folder")
    result = run_cli("summarize", baseline_nights[0], "--history", named)
    assert result.code == 2 and "--history names a file" in result.err and result.err.count("\n") == 1

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", "h/date=2026-11-01/x.parquet.partial")

    monkeypatch.setattr(nightly.history, "write_rows", full)
    result = run_cli("summarize", baseline_nights[0], "--history", tmp_path / "h", "--workers", "1")
    assert result.code == 2 and result.err.strip() == (
        "nsight-ingest: error: h/date=2026-11-01/x.parquet.partial: No space left on device")


@pytest.mark.parametrize("option", [("--workers", "-1"), ("--baseline-runs", "0"), ("--mad-k", "-1")])
def test_bad_option_values_are_one_line(run_cli, baseline_nights, tmp_path, option):
    result = run_cli("summarize", baseline_nights[0], "--history", tmp_path / "h", *option)
    assert result.code == 2 and result.err.count("\n") == 1 and "is not in the range" in result.err


def test_unreachable_dask_scheduler(run_cli, baseline_nights, tmp_path, monkeypatch):
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    import dask

    dask.config.refresh()
    try:
        result = run_cli("summarize", baseline_nights[0], "--history", tmp_path / "h", "--scheduler", "dask",
                         "--dask-address", "127.0.0.1:9")
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
        dask.config.refresh()
    assert result.code == 2 and result.err.count("\n") == 1 and "no Dask scheduler reached" in result.err


def test_history_files_of_another_shape_are_listed_and_skipped(run_cli, baseline_nights, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    history = tmp_path / "history"
    run_history(run_cli, baseline_nights[:1], history)
    other = history / "date=2026-11-01" / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), other)
    text_value = history / "date=2026-11-01" / "text.parquet"
    pq.write_table(pa.table({name: ["1"] for name in nightly.history.HISTORY_COLUMNS}), text_value)
    (history / "date=garbage").mkdir()
    no_night = history / "date=garbage" / "x.parquet"
    no_night.write_bytes(sorted(history.glob("date=2026-11-01/2*.parquet"))[0].read_bytes())
    code, out, _ = summarize(run_cli, baseline_nights[1], history, 2)
    assert code == 0 and sorted(out["damaged_history_files"]) == sorted(map(str, (other, text_value, no_night)))


def test_a_pipe_or_a_dangling_link_in_the_night_fails_alone(run_cli, tmp_path):
    import os

    night = tmp_path / "night"
    night.mkdir()
    os.mkfifo(night / "pipe_cuda_gpu_trace.csv")
    (night / "gone_cuda_gpu_trace.csv").symlink_to(tmp_path / "nowhere.csv")
    (night / "ok_cuda_gpu_trace.csv").write_bytes((DATA.parent.parent / "sample_traces" /
                                                   "h200_dit_oneblock_cuda_gpu_trace.csv").read_bytes())
    code, out, _ = summarize(run_cli, night, tmp_path / "history", 1)
    assert code == 2 and len(out["written"]) == 1
    assert sorted(f.split(": ")[0].rsplit("/", 1)[-1] for f in out["failed"]) == ["gone_cuda_gpu_trace.csv",
                                                                                  "pipe_cuda_gpu_trace.csv"]


def test_lock_timeout_that_is_not_a_number(run_cli, baseline_nights, tmp_path):
    result = run_cli("summarize", baseline_nights[0], "--history", tmp_path / "h", "--lock-timeout", "nan")
    assert result.code == 2 and "--lock-timeout nan: not a number" in result.err


def test_family_and_top_kernel_rows(run_cli, baseline_nights, tmp_path):
    """Per capture: family_ms and family_launches for every family (the family in the component column) that sum
    to the kernel time, and kernel_ms for the top 20 kernels, each keyed by kernel_key in the kernel column."""
    from nsight_ingest.history import TOP_KERNELS

    history = tmp_path / "history"
    assert summarize(run_cli, baseline_nights[0], history, 1)[0] == 0
    con = duckdb.connect()
    con.execute(f"CREATE TABLE kept AS SELECT metric, component, kernel, value "
                f"FROM read_parquet('{history}/date=*/*.parquet')")
    families = dict(con.execute("SELECT component, value FROM kept WHERE metric = 'family_ms'").fetchall())
    assert next(iter(families)) == "gemm" and len(families) == 12
    (kernel_ms,) = con.execute("SELECT value FROM kept WHERE metric = 'kernel_time_ms'").fetchone()
    assert sum(families.values()) == pytest.approx(kernel_ms)
    kernels = con.execute("SELECT kernel, value FROM kept WHERE metric = 'kernel_ms' ORDER BY value DESC").fetchall()
    (names,) = con.execute(f"SELECT count(DISTINCT Name) FROM read_csv('{baseline_nights[0]}/*_cuda_gpu_trace.csv') "
                           "WHERE Name NOT LIKE '[CUDA%'").fetchone()
    assert len(kernels) == min(TOP_KERNELS, names)
    assert all(" " not in key for key, _ in kernels)  # kernel_key (no spaces), not the name
    (keyed,) = con.execute("SELECT count(*) FROM kept WHERE metric <> 'kernel_ms' AND kernel IS NOT NULL").fetchone()
    assert keyed == 0


def test_history_written_before_kernels_were_kept_is_read(run_cli, baseline_nights, tmp_path):
    """A file of the history's earlier shape (no `kernel`, no `family_set_version`) is no damage: its rows are the
    baseline of the component metrics, so an upgrade keeps judging them."""
    import pyarrow.parquet as pq

    history = tmp_path / "history"
    run_history(run_cli, baseline_nights[:3], history)
    for path in history.glob("date=*/*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["kernel", "family_set_version"]), path)
    code, out, _ = summarize(run_cli, baseline_nights[3], history, 4)
    assert code == 0 and out["damaged_history_files"] == []
    checks = nightly.history.night(history, dt.date(2026, 11, 4), nightly.RuleFolders().versions(),
                                    nightly.history.Baseline()).checks
    assert {(c["metric"], c["baseline_runs"]) for c in checks if c["metric"] == "kernel_time_ms"} == {
        ("kernel_time_ms", 3)}


def test_a_new_family_set_starts_a_new_baseline_for_family_metrics_only(tmp_path):
    """Nights 1-3 under family set f1, night 4 under f2: family_ms has no baseline under f2, kernel_time_ms (the
    same component rules) keeps its three runs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nsight_ingest import history as regressions

    root = tmp_path / "h"
    for night, families in ((1, "f1"), (2, "f1"), (3, "f1"), (4, "f2")):
        folder = root / f"date=2026-11-{night:02d}"
        folder.mkdir(parents=True)
        rows = [{"run_id": f"r{night}", "capture": "c", "trace_sha256": f"s{night}", "metric": metric,
                 "component": component, "value": 10.0, "unit": "ms", "rule_set_version": "v", "kernel": None,
                 "family_set_version": families}
                for metric, component in (("kernel_time_ms", None), ("family_ms", "gemm"))]
        pq.write_table(pa.Table.from_pylist(rows, schema=regressions.history_schema()), folder / "x.parquet")
    judged = regressions.Baseline(directions={"kernel_time_ms": "up", "family_ms": "up"})
    checks = regressions.night(root, dt.date(2026, 11, 4), regressions.RuleVersions("v", "f2"), judged).checks
    assert {c["metric"]: c["baseline_runs"] for c in checks} == {"kernel_time_ms": 3, "family_ms": None}


def test_two_captures_of_the_same_bytes_both_get_rows(run_cli, tmp_path):
    night = make_night(tmp_path / "night", seed=5)
    for path in list(night.iterdir()):
        shutil.copy(path, night / path.name.replace("dit", "copy"))
    code, out, _ = summarize(run_cli, night, tmp_path / "history", 1)
    assert code == 0 and len(out["written"]) == 2
    assert {r[0] for r in rows(tmp_path / "history")} == {"dit", "copy"}
