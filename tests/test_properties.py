"""Property tests: interval math against a brute-force reference, percentiles against numpy, readers against random
but valid exports."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nsight_ingest import registry, runs, store
from nsight_ingest.readers import nsys
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.rules import load_rule_set
from tests.conftest import GPU_HEADER, KERN_EXEC_HEADER, kernel_row, launch_row, write

RULES = load_rule_set()
MACROS = store.connect()  # schema.sql's macros
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

intervals = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 40)), min_size=1, max_size=12)


def covered(spans: list[tuple[int, int]]) -> set[int]:
    """Every integer ns t with [t, t+1) inside one of the [start, end) spans."""
    return {t for start, end in spans for t in range(start, end)}


def brute_gaps(spans: list[tuple[int, int]]) -> list[int]:
    gaps, latest = [], None
    for start, end in sorted(spans):
        if latest is not None and start > latest:
            gaps.append(start - latest)
        latest = end if latest is None else max(latest, end)
    return gaps



@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.integers(0, 12) | st.integers(0, 10**12), min_size=1, max_size=50),
       p=st.sampled_from([0.0, 0.5, 0.9, 0.99, 1.0]))
def test_percentile_of_counts_matches_numpy(values, p):
    # the distinct values with their counts give the interpolated percentile of all values (numpy's "linear")
    got = MACROS.execute("""
        WITH counted AS (SELECT v, count(*) AS c FROM (SELECT unnest(?::BIGINT[]) AS v) GROUP BY v),
             ranked AS (SELECT *, sum(c) OVER (ORDER BY v) AS upto, sum(c) OVER () AS n FROM counted)
        SELECT percentile_of_counts(v, upto, n, ?) FROM ranked""", [values, p]).fetchone()[0]
    assert got == pytest.approx(float(np.percentile(values, 100 * p)), rel=1e-12, abs=1e-6)

@SETTINGS
@given(kernels=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 300), st.integers(0, 40)), min_size=1,
                        max_size=12, unique_by=lambda k: (k[0], k[1])),
       api=intervals)
def test_gaps_and_launch_overlap_match_brute_force(tmp_path_factory, kernels, api):
    folder = tmp_path_factory.mktemp("p")
    devices = ["GPU A (0)", "GPU B (1)"]
    gpu = write(folder / "p_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(start, dur, "k", device=devices[d]) for d, start, dur in kernels])
    launches = [launch_row(s, d, kernels[i % len(kernels)][1], 1, "k", device_index=kernels[i % len(kernels)][0])
                for i, (s, d) in enumerate(api)]
    write(folder / "p_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, launches)
    run = runs.Run(store.connect(), RULES)
    capture = runs.open_capture(run, CaptureFiles(str(gpu), str(folder / "p_cuda_kern_exec_trace.csv")))
    out = runs.answered(registry.CLASSIFY, runs.capture_scope(run, capture), capture, registry.CLASSIFY.defaults())
    spans = {d: [(s, s + dur) for dd, s, dur in kernels if dd == d] for d in (0, 1)}
    gaps = brute_gaps(spans[0]) + brute_gaps(spans[1])
    assert out["launch_gaps"]["positive_gap_count"] == len(gaps)
    assert out["launch_gaps"]["total_ns"] == sum(gaps)
    assert out["launch_gaps"]["maximum_ns"] == max(gaps, default=0)
    api_cover = covered([(s, s + d) for s, d in api])
    busy = covered(spans[0] + spans[1])
    assert out["cpu_gpu_overlap"]["launch_api_union_ns"] == len(api_cover)
    assert out["cpu_gpu_overlap"]["launch_api_gpu_overlap_ns"] == len(api_cover & busy)
    for index, label in enumerate(devices):
        if spans[index]:
            device_api = covered([(s, s + d) for i, (s, d) in enumerate(api) if kernels[i % len(kernels)][0] == index])
            block = out["devices"][label]["cpu_gpu_overlap"]
            assert block["launch_api_gpu_overlap_ns"] == len(device_api & covered(spans[index]))


names = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40) \
    .filter(lambda n: n.strip() == n and not n[0].isdigit())
TIME_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000}


@SETTINGS
@given(rows=st.lists(st.tuples(st.integers(0, 10**12), st.integers(0, 10**9), names), min_size=1, max_size=8),
       unit=st.sampled_from(sorted(TIME_UNITS)),
       quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]))
def test_reader_round_trip(tmp_path_factory, rows, unit, quoting):
    factor = TIME_UNITS[unit]
    header = next(csv.reader([GPU_HEADER.replace("(ns)", f"({unit})")]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=quoting, lineterminator="\n")
    writer.writerow(header)
    for start, duration, name in rows:
        # exact decimal text of ns / factor
        as_unit = [f"{value // factor}.{value % factor:0{len(str(factor)) - 1}d}" if factor > 1 else str(value)
                   for value in (start, duration)]
        writer.writerow([*as_unit, 1, 1, 1, 1, 128, 1, 1, 32, "0.000", "0.000", "", "", "", "", "NVIDIA X (0)", 1, "",
                         7, name])
    path = Path(tmp_path_factory.mktemp("r")) / "r_cuda_gpu_trace.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    (insert,) = nsys.load(path, "cuda_gpu_trace").inserts
    select_sql = insert.select_sql
    got = store.connect().execute(f"SELECT start_ns, duration_ns, name FROM ({select_sql})").fetchall()
    assert got == [(start, duration, name) for start, duration, name in rows]
