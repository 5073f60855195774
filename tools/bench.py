"""Benchmark: classify and ingest against a plain DuckDB scan of the same CSVs (`make bench`).

Generates a deterministic capture (tools/gen_trace.py) of --rows GPU operations with its kern_exec trace, then
times, each as a subprocess (the median of 5 runs, with the largest peak RSS): (a) the baseline, a Python process
that imports duckdb and scans
both CSVs with read_csv, touching the columns classify uses; (b) `nsight-ingest classify` end to end;
(c) `nsight-ingest findings` end to end; (d) `nsight-ingest timeline` end to end, writing a Perfetto trace of every
operation (--max-events above the capture's events); (e) `nsight-ingest report`, writing the HTML page;
(e') `nsight-ingest critical-path`, the dependency graph and its critical path; (e'') `nsight-ingest whatif
--launch-latency 2us`, the graph, one replay and its critical path;
(f) `nsight-ingest ingest` into a persistent store; and in-process (g) the classify summary of the stored capture.
--scaling repeats (a) and (b) at 4x and 16x the rows (16M operations: 7 GB of CSV). --readme writes the figures
into the bench table of docs/benchmark.md (date, commit and cores). --inputs writes the same capture as an nsys .sqlite
and a parquetdir too (tools/gen_export.py) and times, for each form, a bare scan of its files, `classify` cold
(--no-cache), its first run that fills the cache, and repeated `classify`, `launches` and `ranks` read from the cache.
--ranks N times `ranks` on N synthetic rank files (--kernels-per-rank each): cold in one process, cold on --workers
local Dask workers (each worker's peak RSS too), and the cached answer, against a bare scan of the same files; then,
in process, the bytes its tasks move and the client's own time; with --readme also on 4 files of 250k kernels, and
the ranks table of docs/benchmark.md gets both with the model of a 64-rank, 100 GB job built from those costs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.gen_trace import DIT_BLOCK, DIT_BLOCK_MEMOPS, dit_blocks  # noqa: E402

OUT = ROOT / "bench_out"
CLI = [sys.executable, "-m", "nsight_ingest"]
BASELINE = """
import sys, duckdb
gpu, kern = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.sql(f'''SELECT Name, sum("Start (ns)"), sum("Duration (ns)"), count(GrdX), count(Device)
            FROM read_csv('{gpu}') GROUP BY Name''').fetchall()
con.sql(f'''SELECT sum("API Start (ns)"), sum("API Dur (ns)"), sum("Kernel Start (ns)"), count("DevId"),
            count(DISTINCT "API Function") FROM read_csv('{kern}')''').fetchall()
"""


# Bare scans of an export's two big tables, reading the columns nsight-ingest reads: DuckDB reads Parquet itself;
# SQLite can only be read through Python's sqlite3 (DuckDB's sqlite scanner has no build for DuckDB 2).
EXPORT_COLUMNS = {"CUPTI_ACTIVITY_KIND_KERNEL": 'start, "end", deviceId, streamId, correlationId, globalPid, '
                                                'demangledName, gridX',
                  "CUPTI_ACTIVITY_KIND_RUNTIME": 'start, "end", eventClass, globalTid, correlationId, nameId, '
                                                 'returnValue'}
BASELINE_PARQUET = """
import sys, duckdb, json
folder, columns = sys.argv[1], json.loads(sys.argv[2])
for table, select in columns.items():
    sums = ', '.join(f'sum({c})' for c in select.split(', '))
    duckdb.sql(f"SELECT {sums} FROM '{folder}/{table}.parquet'").fetchall()
"""
BASELINE_ARROW = """
import sys, duckdb, json, pyarrow.ipc
folder, columns = sys.argv[1], json.loads(sys.argv[2])
for table, select in columns.items():
    sums = ', '.join(f'sum({c})' for c in select.split(', '))
    with pyarrow.ipc.open_stream(f'{folder}/{table}.arrow') as batches:
        duckdb.sql(f"SELECT {sums} FROM batches").fetchall()
"""
BASELINE_SQLITE = """
import sys, sqlite3, json
db, columns = sqlite3.connect(sys.argv[1]), json.loads(sys.argv[2])
for table, select in columns.items():
    cursor = db.execute(f"SELECT {select} FROM {table}")
    while cursor.fetchmany(65536):
        pass
"""
REPEATS = 5


def _high_water(pid: int) -> int:
    """The peak RSS (bytes) of a live process so far: its VmHWM."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _tree_peak(pid: int, done: threading.Event, peak: list[int]) -> None:
    """Every 20 ms, the larger of the process's own peak so far and the summed RSS of it and all its descendants
    (the .sqlite reader's workers, Dask's worker processes) in peak[0]; the largest RSS one descendant reached in
    peak[1] (a Dask worker's peak)."""
    import psutil

    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while True:
        total = 0
        with contextlib.suppress(psutil.Error, OSError):  # the process (or a worker) ended meanwhile
            peak[0] = max(peak[0], _high_water(pid))
            total = root.memory_info().rss
            for process in root.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    rss = process.memory_info().rss
                    total += rss
                    peak[1] = max(peak[1], rss)
        peak[0] = max(peak[0], total)
        if done.wait(0.02):
            return


class Timed(NamedTuple):
    """A step's wall seconds, the peak RSS of its process tree and the largest peak of one of its subprocesses
    (bytes; 0 without subprocesses)."""

    seconds: float
    peak_rss: int
    subprocess_peak_rss: int = 0


def run_once(command: list[str]) -> Timed:
    """Wall seconds and peak RSS of one subprocess with its own subprocesses, sampled while it runs. Not the rusage
    of the ended child: Linux counts into it the RSS this process had when it forked the child."""
    # stderr in a file, not a pipe: a step that warns a lot would fill the pipe and wait forever
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=ROOT)
        done, peak = threading.Event(), [0, 0]
        sampler = threading.Thread(target=_tree_peak, args=(process.pid, done, peak))
        sampler.start()
        status = process.wait()
        elapsed = time.perf_counter() - start
        done.set()
        sampler.join()
        if status != 0:
            errors.seek(0)
            raise SystemExit(f"benchmark step failed: {' '.join(command)}: {errors.read().decode()[-500:]}")
    return Timed(elapsed, peak[0], peak[1])


def run(command: list[str], prepare: Callable[[], object] | None = None) -> Timed:
    """Median wall seconds and the largest peaks of REPEATS runs of one subprocess, each after `prepare()`
    (untimed) when given."""
    runs = []
    for _ in range(REPEATS):
        if prepare:
            prepare()
        runs.append(run_once(command))
    return Timed(statistics.median(r.seconds for r in runs), max(r.peak_rss for r in runs),
                 max(r.subprocess_peak_rss for r in runs))


def new_store(store_path: Path, ingest: list[str] | None = None) -> Callable[[], None]:
    """A `prepare` for run(): remove the store, then (given) run the untimed `ingest` command into a new one."""

    def prepare() -> None:
        store_path.unlink(missing_ok=True)
        if ingest:
            run_once(ingest)

    return prepare


def written_whole(folder: Path, write: Callable[[Path], object]) -> Path:
    """`folder`, unless it is there, filled by `write` beside it and renamed when whole, so that a run cut short
    leaves no half-generated input for the next to reuse."""
    if not folder.exists():
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        write(partial)
        partial.rename(folder)
    return folder


def capture(rows: int) -> tuple[Path, Path]:
    """The generated capture of about `rows` GPU operations (cached in bench_out/)."""
    per_block = sum(count for count, _ in DIT_BLOCK.values()) + DIT_BLOCK_MEMOPS
    repeats = max(1, round(rows / per_block))
    folder = OUT / f"rows_{repeats * per_block}"
    written_whole(folder, lambda partial: dit_blocks(partial, "bench", repeats=repeats))
    return folder / "bench_cuda_gpu_trace.csv", folder / "bench_cuda_kern_exec_trace.csv"


def line_count(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b"")) - 1


def measure(rows: int, full: bool) -> dict:
    gpu, kern = capture(rows)
    operations = line_count(gpu)
    total_rows = operations + line_count(kern)
    csv_bytes = gpu.stat().st_size + kern.stat().st_size
    steps = {"baseline_duckdb_scan": run([sys.executable, "-c", BASELINE, str(gpu), str(kern)]),
             "classify": run([*CLI, "classify", str(gpu), "--no-cache"])}
    result = {"gpu_operations": operations, "rows": total_rows, "csv_bytes": csv_bytes}
    if full:
        store_path = OUT / "bench_store.duckdb"
        store_path.unlink(missing_ok=True)
        ingest = [*CLI, "ingest", str(gpu), "--db", str(store_path)]
        steps["findings"] = run([*CLI, "findings", str(gpu), "--no-cache"])
        steps["timeline"] = run([*CLI, "timeline", str(gpu), "-o", str(OUT / "bench.pftrace"), "--no-cache",
                                 "--max-events", str(10 * total_rows)])
        steps["report"] = run([*CLI, "report", str(gpu), "-o", str(OUT / "bench.html"), "--no-cache"])
        steps["critical_path"] = run([*CLI, "critical-path", str(gpu), "--no-cache"])
        steps["whatif"] = run([*CLI, "whatif", str(gpu), "--launch-latency", "2us", "--no-cache"])
        steps["ingest_to_store"] = run(ingest, new_store(store_path))
        result["store_bytes"] = store_path.stat().st_size
        steps["classify_stored_first"] = run([*CLI, "classify", str(gpu), "--db", str(store_path)],
                                             new_store(store_path, ingest))
        steps["classify_stored_again"] = run([*CLI, "classify", str(gpu), "--db", str(store_path)])
        result["requery_seconds"], result["recompute_seconds"] = requery(store_path)
        small = ROOT / "sample_traces" / "h200_dit_oneblock_cuda_gpu_trace.csv"
        result["small_classify_seconds"] = run([*CLI, "classify", str(small), "--no-cache"])[0]
    base = steps["baseline_duckdb_scan"][0]
    result["steps"] = {name: {"seconds": seconds, "ratio_to_baseline": seconds / base,
                              "rows_per_second": total_rows / seconds, "peak_rss_bytes": rss}
                       for name, (seconds, rss, _) in steps.items()}
    return result


def requery(store_path: Path) -> tuple[float, float]:
    """In process, median seconds of (reading the stored classify summary of the ingested capture, recomputing
    it from the stored rows)."""
    from nsight_ingest import registry, runs, store
    from nsight_ingest.rules import load_rule_set

    run_ = runs.Run(store.connect(store_path), load_rule_set())
    con = run_.con
    capture_ = store.stored_capture(con, 1)

    def timed(action) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            action()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    (request,) = con.execute("SELECT request FROM summaries WHERE capture_id = 1").fetchone()
    stored = timed(lambda: store.cached_result(con, capture_.capture_id, request))
    recomputed = timed(lambda: runs.answered(registry.CLASSIFY, runs.capture_scope(run_, capture_), capture_,
                                             registry.CLASSIFY.defaults()))
    con.close()
    return stored, recomputed


def parts(rows: int) -> dict[str, float]:
    """In process, the median seconds of each part of `classify` on the generated capture over REPEATS runs: the
    load of each file into a fresh temporary store, every SQL module it builds or queries, and the rest (Python)."""
    from nsight_ingest import registry, runs, store
    from nsight_ingest.readers.capture import CaptureFiles
    from nsight_ingest.rules import load_rule_set

    gpu, kern = capture(rows)
    measured: list[dict[str, float]] = []
    for _ in range(REPEATS):
        run_ = runs.Run(store.connect(), load_rule_set())
        started = time.perf_counter()
        stored = runs.open_capture(run_, CaptureFiles(str(gpu), str(kern)))
        loaded = time.perf_counter()
        scope = runs.capture_scope(run_, stored)
        registry.CLASSIFY.answer(scope, stored, registry.CLASSIFY.defaults())
        done = time.perf_counter()
        measured.append({"load both files": loaded - started, **scope.seconds,
                         "python (shaping, rule set)": done - loaded - sum(scope.seconds.values())})
        run_.con.close()
    return {name: statistics.median(r.get(name, 0.0) for r in measured) for name in measured[0]}


BASELINE_RANKS = """
import sys, duckdb
con = duckdb.connect()
for path in sys.argv[1:]:
    con.sql(f'''SELECT Name, sum("Start (ns)"), sum("Duration (ns)"), count(Device), count(Strm)
                FROM read_csv('{path}') GROUP BY Name''').fetchall()
"""


def measure_ranks(ranks: int, kernels_per_rank: int, workers: int) -> dict:
    """`nsight-ingest ranks` over `ranks` synthetic rank files of about `kernels_per_rank` kernels each, cold (an
    empty cache folder) in this process and on `workers` local Dask workers, then the cached answer; against a
    bare DuckDB scan of the same files; with the bytes the tasks move and the client's own time."""

    from tools.gen_ranks import generate

    folder = OUT / f"ranks_{ranks}x{kernels_per_rank}"
    written_whole(folder, lambda partial: generate(partial, ranks=ranks, steps=max(1, kernels_per_rank // 12),
                                                   seed=3))
    files = sorted(str(p) for p in folder.glob("*_cuda_gpu_trace.csv"))
    cache_dir = OUT / "ranks_cache"
    command = [*CLI, "ranks", *files, "--cache-dir", str(cache_dir)]

    def empty_cache() -> None:
        shutil.rmtree(cache_dir, ignore_errors=True)

    spread = f"ranks, {workers} workers"
    timed = {"bare scan": run([sys.executable, "-c", BASELINE_RANKS, *files]),
             "ranks, 1 worker (this process)": run(command, empty_cache),
             spread: run([*command, "--workers", str(workers)], empty_cache),
             "ranks, cached answer": run(command)}
    rows = sum(line_count(Path(f)) for f in files)
    scan = timed["bare scan"].seconds
    return {"ranks": ranks, "kernels": rows, "csv_bytes": sum(Path(f).stat().st_size for f in files),
            "workers": workers, "cores": os.cpu_count(),
            "speedup": timed["ranks, 1 worker (this process)"].seconds / timed[spread].seconds,
            **traffic(files, cache_dir),
            "steps": {name: {"seconds": step.seconds, "ratio_to_baseline": step.seconds / scan,
                             "rows_per_second": rows / step.seconds, "peak_rss_bytes": step.peak_rss,
                             "worker_peak_rss_bytes": step.subprocess_peak_rss or step.peak_rss}
                      for name, step in timed.items()}}


def traffic(files: list[str], cache_dir: Path) -> dict:
    """In process, on the rank stores the cold runs left in the cache (the kept answer removed): the bytes the
    tasks of `ranks` would move between client and workers (pickled arguments out, results back, as Dask sends
    them) and the seconds the client spends outside the tasks (clock alignment, merging the ranks' figures)."""
    import pickle

    from nsight_ingest import cluster, ranks_job, runs
    from nsight_ingest.readers.capture import CaptureFiles, Sources
    from nsight_ingest.rules import load_rule_set

    shutil.rmtree(cache_dir / "answers", ignore_errors=True)
    counted = {"moved_bytes": 0, "task_seconds": 0.0}
    mapped = cluster.Cluster.map

    def counting(self, task, arguments, labels, where_last=False, each=None):
        def weighed(result):  # each result as it comes back, before the client folds it
            counted["moved_bytes"] += len(pickle.dumps(result))
            return each(result) if each else result

        started = time.perf_counter()
        results = mapped(self, task, arguments, labels, where_last, weighed)
        counted["task_seconds"] += time.perf_counter() - started
        counted["moved_bytes"] += sum(len(pickle.dumps((task, *args))) for args in arguments)
        return results

    cluster.Cluster.map = counting
    try:
        started = time.perf_counter()
        ranks_job.analyse_ranks(runs.Run(None, load_rule_set(), sources=Sources(cache_dir=cache_dir)),
                                [CaptureFiles(f) for f in files], {})
        total = time.perf_counter() - started
    finally:
        cluster.Cluster.map = mapped
    return {"moved_bytes": counted["moved_bytes"], "client_seconds": total - counted["task_seconds"]}


JOB_RANKS, JOB_BYTES = 64, 100e9  # the job docs/benchmark.md models from the measured costs
NETWORK_BYTES_PER_S = 1.25e9  # 10 Gb/s between workers and client: an assumption, not measured


def job_model(result: dict, workers: list[int]) -> list[str]:
    """From the measured costs, the time of a JOB_RANKS-rank job of JOB_BYTES of CSV on each count of one-core
    workers, and what bounds it: a worker's time per byte of rank file (the spread run), scaled to the job's rank
    size; waves of ranks; the client's time and the bytes moved, scaled by ranks and bytes."""
    spread = result["steps"][f"ranks, {result['workers']} workers"]["seconds"]
    per_byte = spread * result["workers"] / result["csv_bytes"]  # one worker's seconds per byte of its ranks
    rank_bytes = JOB_BYTES / JOB_RANKS
    scale = JOB_BYTES / result["csv_bytes"]
    client = result["client_seconds"] * scale
    moved = result["moved_bytes"] * scale
    lines = [f"A {JOB_RANKS}-rank job of {JOB_BYTES / 1e9:,.0f} GB of CSV ({rank_bytes / 1e9:.2f} GB a rank), from "
             f"these costs: a worker reads a rank in {per_byte * rank_bytes:,.0f} s; the client spends "
             f"{client:,.0f} s; {moved / 1e9:,.2f} GB travel ({moved / NETWORK_BYTES_PER_S:,.1f} s at 10 Gb/s).", "",
             "| workers | waves | workers' time s | client s | transfer s | total s | bottleneck |",
             "|---:|---:|---:|---:|---:|---:|---|"]
    for count in workers:
        waves = -(-JOB_RANKS // count)
        reading, transfer = waves * per_byte * rank_bytes, moved / NETWORK_BYTES_PER_S
        parts = {"the ranks' tasks": reading, "the client's merge": client, "the network": transfer}
        lines.append(f"| {count} | {waves} | {reading:,.0f} | {client:,.0f} | {transfer:,.1f} | "
                     f"{sum(parts.values()):,.0f} | {max(parts, key=parts.get)} |")
    return lines


def print_ranks(result: dict) -> None:
    print(f"ranks: {result['ranks']} files, {result['kernels']:,} kernels; {result['cores']} cores")
    print(f"{'step':<32}{'seconds':>9}{'x baseline':>12}{'rows/s':>14}{'peak RSS MB':>13}{'worker MB':>11}")
    for name, step in result["steps"].items():
        print(f"{name:<32}{step['seconds']:>9.2f}{step['ratio_to_baseline']:>12.2f}{step['rows_per_second']:>14,.0f}"
              f"{step['peak_rss_bytes'] / 2**20:>13,.0f}{step['worker_peak_rss_bytes'] / 2**20:>11,.0f}")
    print(f"{result['workers']} workers: {result['speedup']:.2f}x faster than one process; "
          f"{result['moved_bytes'] / 1e6:,.1f} MB moved; the client's own time {result['client_seconds']:.2f} s")


def inputs_markdown(result: dict) -> str:
    """The input-form figures of a run as Markdown: each form's steps, against its bare scan and the CSV."""
    csv_cold = result["forms"]["csv"]["steps"]["classify (no cache)"]["seconds"]
    lines = [_provenance(), "", f"{result['gpu_operations']:,} GPU operations as each input form:", "",
             "| form | MB | step | seconds | x bare scan | x CSV | peak RSS MB |", "|---|---:|---|---:|---:|---:|---:|"]
    for form, measured in result["forms"].items():
        bare = measured["steps"]["bare scan"]["seconds"]
        lines += [f"| {form} | {measured['bytes'] / 1e6:,.0f} | {name} | {step['seconds']:.2f} | "
                  f"{step['seconds'] / bare:.2f} | {step['seconds'] / csv_cold:.2f} | "
                  f"{step['peak_rss_bytes'] / 2**20:,.0f} |" for name, step in measured["steps"].items()]
    return "\n".join(lines)


def ranks_markdown(results: list[dict]) -> str:
    """The ranks figures of a run as Markdown, then the modelled large job."""
    lines = [_provenance()]
    for result in results:
        lines += ["", f"{result['ranks']} rank files of {result['kernels'] // result['ranks']:,} kernels "
                      f"({result['csv_bytes'] / 1e6:,.0f} MB of CSV): {result['workers']} workers "
                      f"{result['speedup']:.2f}x faster than 1; {result['moved_bytes'] / 1e6:,.1f} MB moved between "
                      f"client and workers; the client's own time {result['client_seconds']:.2f} s.", "",
                  "| step | seconds | x bare scan | peak RSS MB | per-worker peak RSS MB |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {name} | {step['seconds']:.2f} | {step['ratio_to_baseline']:.2f} | "
                  f"{step['peak_rss_bytes'] / 2**20:,.0f} | {step['worker_peak_rss_bytes'] / 2**20:,.0f} |"
                  for name, step in result["steps"].items()]
    return "\n".join([*lines, "", *job_model(results[-1], [1, 2, 8, 16, 64])])


def measure_inputs(rows: int) -> dict:
    """`classify` (and the cached questions) on one capture as a CSV set, the same gzipped, an nsys .sqlite, a
    parquetdir and an arrowdir."""
    import gzip

    from tools.gen_export import write_exports

    gpu, kern = capture(rows)
    exports = gpu.parent / "exports"
    sqlite_path, parquet, arrow = exports / "bench.sqlite", exports / "bench_pq", exports / "bench_arrow"
    written_whole(exports, lambda partial: write_exports(gpu, kern, partial / "bench.sqlite", partial / "bench_pq",
                                                         partial / "bench_arrow"))
    gzipped = {path: gpu.parent / "gz" / f"{path.name}.gz" for path in (gpu, kern)}
    for path, packed in gzipped.items():
        if not packed.exists():
            packed.parent.mkdir(exist_ok=True)
            partial = packed.with_name(packed.name + ".partial")
            with path.open("rb") as plain, gzip.open(partial, "wb", compresslevel=1) as out:
                shutil.copyfileobj(plain, out, 1 << 24)
            partial.rename(packed)
    columns = json.dumps(EXPORT_COLUMNS)
    forms = {"csv": (gpu, [sys.executable, "-c", BASELINE, str(gpu), str(kern)], [gpu, kern]),
             "csv.gz": (gzipped[gpu], [sys.executable, "-c", BASELINE, *map(str, gzipped.values())],
                        list(gzipped.values())),
             "sqlite": (sqlite_path, [sys.executable, "-c", BASELINE_SQLITE, str(sqlite_path), columns],
                        [sqlite_path]),
             "parquetdir": (parquet, [sys.executable, "-c", BASELINE_PARQUET, str(parquet), columns],
                            list(parquet.iterdir())),
             "arrowdir": (arrow, [sys.executable, "-c", BASELINE_ARROW, str(arrow), columns], list(arrow.iterdir()))}
    cache = OUT / "cache"
    os.environ["NSIGHT_INGEST_CACHE_DIR"] = str(cache)
    result = {"gpu_operations": line_count(gpu), "forms": {}}
    for form, (path, baseline, files) in forms.items():
        shutil.rmtree(cache, ignore_errors=True)
        steps = {"bare scan": run(baseline), "classify (no cache)": run([*CLI, "classify", str(path), "--no-cache"]),
                 "classify, first (fills cache)": run([*CLI, "classify", str(path)],
                                                      lambda: shutil.rmtree(cache, ignore_errors=True))}
        for command in ("classify", "launches", "ranks"):
            run_once([*CLI, command, str(path)])  # untimed: the question is asked once before
            steps[f"{command} again (cached)"] = run([*CLI, command, str(path)])
        result["forms"][form] = {"bytes": sum(f.stat().st_size for f in files),
                                 "steps": {name: {"seconds": seconds, "peak_rss_bytes": rss}
                                           for name, (seconds, rss, _) in steps.items()}}
    shutil.rmtree(cache, ignore_errors=True)
    return result


def print_inputs(result: dict) -> None:
    print(f"{result['gpu_operations']:,} GPU operations as each input form; {os.cpu_count()} cores")
    print(f"{'form':<12}{'MB':>6}  {'step':<30}{'seconds':>9}{'x bare scan':>13}{'x CSV':>7}{'peak RSS MB':>13}")
    csv_cold = result["forms"]["csv"]["steps"]["classify (no cache)"]["seconds"]
    for form, measured in result["forms"].items():
        bare = measured["steps"]["bare scan"]["seconds"]
        for name, step in measured["steps"].items():
            print(f"{form:<12}{measured['bytes'] / 1e6:>6.0f}  {name:<30}{step['seconds']:>9.2f}"
                  f"{step['seconds'] / bare:>13.2f}{step['seconds'] / csv_cold:>7.2f}"
                  f"{step['peak_rss_bytes'] / 2**20:>13,.0f}")


def print_table(result: dict) -> None:
    print(f"{result['gpu_operations']:,} GPU operations, {result['rows']:,} CSV rows,"
          f" {result['csv_bytes'] / 1e6:,.0f} MB of CSV; {os.cpu_count()} cores")
    print(f"{'step':<22}{'seconds':>9}{'x baseline':>12}{'rows/s':>14}{'peak RSS MB':>13}")
    for name, step in result["steps"].items():
        print(f"{name:<22}{step['seconds']:>9.2f}{step['ratio_to_baseline']:>12.2f}{step['rows_per_second']:>14,.0f}"
              f"{step['peak_rss_bytes'] / 2**20:>13,.0f}")
    if "store_bytes" in result:
        print(f"store {result['store_bytes'] / 1e6:,.0f} MB = {result['store_bytes'] / result['csv_bytes']:.3f} of the"
              f" CSV; re-query of the stored capture {result['requery_seconds']:.4f} s (recomputed from the stored"
              f" rows: {result['recompute_seconds']:.2f} s); classify of a 28-row trace"
              f" {result['small_classify_seconds']:.2f} s")


BENCH_PAGE = ROOT / "docs" / "benchmark.md"
BENCH_TABLES = {"capture": ("<!-- bench table: written by tools/bench.py --readme -->", "<!-- end of bench table -->"),
                 "ranks": ("<!-- ranks bench table: written by tools/bench.py --ranks N --readme -->",
                           "<!-- end of ranks bench table -->"),
                 "inputs": ("<!-- inputs bench table: written by tools/bench.py --inputs --readme -->",
                            "<!-- end of inputs bench table -->")}


def _provenance() -> str:
    """When the figures were measured, at which commit, on how many cores, how many runs a step."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return (f"Run {time.strftime('%Y-%m-%d', time.gmtime())} at commit `{commit.stdout.strip() or '?'}`"
            f"{' (with changes not committed)' if dirty else ''}, {os.cpu_count()} cores, the median of {REPEATS}"
            f" run(s) per step with its largest peak RSS (the peak of the process tree).")


def markdown(results: list[dict]) -> str:
    """The figures of a run as Markdown: when, which commit, how many cores, then a table per size."""
    lines = [_provenance()]
    for result in results:
        lines += ["", f"{result['gpu_operations']:,} GPU operations ({result['rows']:,} CSV rows, "
                      f"{result['csv_bytes'] / 1e6:,.0f} MB of CSV):", "",
                  "| step | seconds | x bare scan | rows/s | peak RSS MB |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {name} | {step['seconds']:.2f} | {step['ratio_to_baseline']:.2f} | "
                  f"{step['rows_per_second']:,.0f} | {step['peak_rss_bytes'] / 2**20:,.0f} |"
                  for name, step in result["steps"].items()]
    first = results[0]
    if "store_bytes" in first:
        lines += ["", f"Store {first['store_bytes'] / 1e6:,.0f} MB; the stored summary re-read in "
                      f"{first['requery_seconds']:.4f} s; classify of a 28-row trace "
                      f"{first['small_classify_seconds']:.2f} s."]
    lines += [f"classify at {r['gpu_operations']:,} operations: {scaled(first, r)}." for r in results[1:]]
    return "\n".join(lines)


def scaled(first: dict, result: dict) -> str:
    """How classify's time and peak grew from the first size to this one."""
    one, this = first["steps"]["classify"], result["steps"]["classify"]
    return (f"{this['seconds'] / one['seconds']:.2f}x the time, {this['peak_rss_bytes'] / one['peak_rss_bytes']:.2f}x "
            f"the peak RSS of {first['gpu_operations']:,}")


def write_readme(text: str, table: str = "capture") -> None:
    """Put `text` between the benchmark page's markers of `table`, in place of what was there."""
    begin, end = BENCH_TABLES[table]
    readme = BENCH_PAGE.read_text()
    if begin not in readme or end not in readme:
        sys.exit(f"{BENCH_PAGE} has no {begin!r} ... {end!r} section to write the figures into")
    head, rest = readme.split(begin, 1)
    BENCH_PAGE.write_text(f"{head}{begin}\n{text}\n{end}{rest.split(end, 1)[1]}")


def main() -> None:
    global REPEATS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000, help="GPU operations at 1x (default 1M)")
    parser.add_argument("--scaling", action="store_true", help="also run 4x and 16x")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--ranks", type=int, default=0, help="also time `ranks` on this many synthetic rank files")
    parser.add_argument("--kernels-per-rank", type=int, default=250_000)
    parser.add_argument("--workers", type=int, default=2, help="local Dask workers of the spread `ranks` run")
    parser.add_argument("--parts", action="store_true", help="only the time of each part of classify, in process")
    parser.add_argument("--inputs", action="store_true", help="only classify of each input form, cold and cached")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs per step (the median is reported)")
    parser.add_argument("--readme", action="store_true", help="also write the figures into docs/benchmark.md")
    args = parser.parse_args()
    REPEATS = args.repeats
    if args.inputs:
        result = measure_inputs(args.rows)
        if args.readme:
            write_readme(inputs_markdown(result), "inputs")
        print(json.dumps(result, indent=2)) if args.json else print_inputs(result)
        return
    if args.parts:
        timed = parts(args.rows)
        print(json.dumps(timed, indent=2) if args.json else "\n".join(
            f"{name:<34}{seconds:>7.3f} s" for name, seconds in sorted(timed.items(), key=lambda kv: -kv[1])))
        return
    if args.ranks:
        result = measure_ranks(args.ranks, args.kernels_per_rank, args.workers)
        if args.readme:
            write_readme(ranks_markdown([measure_ranks(4, 250_000, args.workers), result]), "ranks")
        print(json.dumps(result, indent=2)) if args.json else print_ranks(result)
        return
    results = [measure(args.rows, full=True)]
    if args.scaling:
        results += [measure(args.rows * factor, full=False) for factor in (4, 16)]
    if args.readme:
        write_readme(markdown(results))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for result in results:
        print_table(result)
        print()
    for result in results[1:]:
        print(f"classify at {result['gpu_operations']:,} operations: {scaled(results[0], result)}")


if __name__ == "__main__":
    main()
