"""The passes over ordered rows (nsight_ingest.passes) against plain-Python references, and a capture whose rows
are not in time order against the same capture in order."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nsight_ingest import passes, registry, store
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.rules import load_rule_set
from nsight_ingest.runs import Run, answered, capture_scope, open_capture
from tests.conftest import GPU_HEADER, KERN_EXEC_HEADER, kernel_row, launch_row, memop_row, write
from tests.intervals import intersection_length, length, union

LIMIT = 2**61  # the store's bound on times
groups = st.lists(st.tuples(st.integers(0, 3), st.integers(-LIMIT, LIMIT) | st.integers(-50, 50), st.booleans()),
                  max_size=40)


def runs(rows: list[tuple[int, int, bool]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by group: (group ids, values, valid, first-of-group)."""
    rows = sorted(rows, key=lambda r: r[0])
    group = np.array([g for g, _, _ in rows], dtype=np.int64)
    first = np.ones(len(rows), dtype=bool)
    first[1:] = group[1:] != group[:-1]
    return (group, np.array([v for _, v, _ in rows], dtype=np.int64), np.array([ok for _, _, ok in rows], dtype=bool),
            first)


@settings(max_examples=200, deadline=None)
@given(rows=groups)
def test_earlier_max_is_the_maximum_of_the_earlier_valid_rows_of_the_group(rows):
    group, values, valid, first = runs(rows)
    got, has = passes.earlier_max(values, first, valid)
    for index in range(len(values)):
        earlier = [int(values[i]) for i in range(index) if group[i] == group[index] and valid[i]]
        assert bool(has[index]) == bool(earlier)
        if earlier:
            assert int(got[index]) == max(earlier)


@settings(max_examples=100, deadline=None)
@given(rows=groups, by=st.sampled_from([1, 2, 4, -1, -3]))
def test_shifted_reads_within_the_group(rows, by):
    group, values, _, first = runs(rows)
    got, found = passes.shifted(values, np.cumsum(first), by)
    for index in range(len(values)):
        other = index - by
        expected = 0 <= other < len(values) and group[other] == group[index]
        assert bool(found[index]) == expected
        if expected:
            assert got[index] == values[other]


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.booleans()), max_size=20))
def test_sort_order_sorts_and_sees_sorted_rows(rows):
    keys = [np.array([r[i] for r in rows], dtype=np.int64) for i in range(3)]
    order = passes.sort_order(keys)
    assert (order is None) == (rows == sorted(rows))
    ordered = [rows[i] for i in (range(len(rows)) if order is None else order)]
    assert ordered == sorted(rows)


kernel_rows = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 200), st.integers(-5, 40), st.booleans(),
                                  st.integers(0, 2), st.integers(0, 1)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(kernels=kernel_rows, batch=st.integers(1, 8))
def test_communication_overlap_is_the_union_and_its_part_under_compute(kernels, batch):
    """Kernels (device, start, length, communicates, collective, stream) fed in batches: per device and group of
    its communication kernels, the kernels, their union and its part that the device's compute union covers."""
    kernels = sorted(kernels)
    expected = {}
    for device in {k[0] for k in kernels}:
        mine = [k for k in kernels if k[0] == device]
        compute = union([(s, s + d) for _, s, d, talks, _, _ in mine if not talks and d > 0])
        talking = [k for k in mine if k[3]]
        groups = [(0, 0, talking)] if talking else []
        groups += [(1, c, [k for k in talking if k[4] == c]) for c in {k[4] for k in talking}]
        groups += [(2, s, [k for k in talking if k[5] == s]) for s in {k[5] for k in talking}]
        for breakdown, label, chosen in groups:
            spans = union([(s, s + d) for _, s, d, _, _, _ in chosen if d > 0])
            expected[(device, passes.BREAKDOWNS[breakdown], label)] = (len(chosen), length(spans),
                                                                       intersection_length(spans, compute))
    stream = passes.CommunicationOverlap()
    for first in range(0, len(kernels), batch):
        part = kernels[first:first + batch]
        stream.step({name: np.array([row[i] if i != 2 else row[1] + row[2] for row in part], dtype=dtype)
                     for name, i, dtype in (("device_key", 0, np.uint64), ("start_ns", 1, np.int64),
                                            ("end_ns", 2, np.int64), ("is_communication", 3, bool),
                                            ("collective_key", 4, np.uint64), ("stream_key", 5, np.uint64))})
    out = stream.finish()
    got = {(int(d), str(b), int(label)): (int(k), int(t), int(o)) for d, b, label, k, t, o in zip(
        *(out[name] for name in ("device_key", "breakdown", "label_key", "kernels", "time_ns", "overlapped_ns")),
        strict=True)}
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(spans=st.lists(st.tuples(st.integers(-100, 200), st.integers(-5, 30)), max_size=20))
def test_merged_is_the_union_in_disjoint_pieces(spans):
    """Unordered intervals, some empty or reversed: the pieces are the union of the non-empty ones."""
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([s + d for s, d in spans], dtype=np.int64)
    got_starts, got_ends = passes.merged(starts, ends)
    assert list(zip(got_starts.tolist(), got_ends.tolist(), strict=True)) == union(
        [(s, s + d) for s, d in spans if d > 0])


@settings(max_examples=200, deadline=None)
@given(first=st.lists(st.tuples(st.integers(-100, 200), st.integers(1, 30)), max_size=15),
       second=st.lists(st.tuples(st.integers(-100, 200), st.integers(1, 30)), max_size=15))
def test_merged_unions_is_the_union_of_both(first, second):
    """Two unions (one rank's busy intervals, the ranks' so far): their union, as merged gives it."""
    def as_union(spans):
        return passes.merged(np.array([s for s, _ in spans], dtype=np.int64),
                             np.array([s + d for s, d in spans], dtype=np.int64))

    got_starts, got_ends = passes.merged_unions(as_union(first), as_union(second))
    assert list(zip(got_starts.tolist(), got_ends.tolist(), strict=True)) == union(
        [(s, s + d) for s, d in first + second])


def _capture(folder, shuffle: bool):
    """A two-GPU, two-stream capture with memory operations and launch rows, its rows in start order or not."""
    rng = random.Random(7)
    kernels, memops, launches, clock = [], [], [], 1_000
    for step in range(60):
        device = f"NVIDIA H200 ({step % 2})"
        clock += rng.randint(0, 400)
        duration = rng.randint(1, 900)
        name = ["ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ampere_sgemm_128x64_nn", "void at::native::vectorized"
                "_elementwise_kernel<4, at::native::FillFunctor<float>>", "rmsnorm_kernel"][step % 4]
        kernels.append(kernel_row(clock, duration, name, device=device, stream=7 + step % 3))
        launches.append(launch_row(clock - rng.randint(100, 3_000), rng.randint(50, 2_000), clock, duration, name,
                                   device_index=step % 2))
        if step % 7 == 0:
            memops.append(memop_row(clock + rng.randint(0, 300), rng.randint(10, 500), "[CUDA memcpy Host-to-Device]",
                                    device=device))
        clock += rng.randint(-300, duration)  # some kernels overlap the next
    ops = kernels + memops
    if shuffle:
        rng.shuffle(ops)
        rng.shuffle(launches)
    folder = folder / ("shuffled" if shuffle else "ordered")
    folder.mkdir()
    gpu = write(folder / "run_cuda_gpu_trace.csv", GPU_HEADER, ops)
    kern = write(folder / "run_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, launches)
    return CaptureFiles(str(gpu), str(kern))


def _answers(files: CaptureFiles) -> dict:
    """classify, launches and findings of the capture, with its folder's name taken out of the file names."""
    run = Run(store.connect(), load_rule_set())
    capture = open_capture(run, files)
    answers = {analysis.name: answered(analysis, capture_scope(run, capture), capture, analysis.defaults())
               for analysis in (registry.CLASSIFY, registry.LAUNCHES, registry.FINDINGS)}
    for answer in answers.values():
        answer.pop("inputs")
    folder = str(Path(files.gpu_trace).parent)
    return json.loads(json.dumps(answers).replace(folder, "FOLDER"))


def test_rows_out_of_time_order_give_the_answers_of_rows_in_order(tmp_path):
    ordered, shuffled = _answers(_capture(tmp_path, False)), _answers(_capture(tmp_path, True))
    assert ordered["classify"]["kernel_count"] == 60
    assert ordered["classify"]["launch_gaps"]["positive_gap_count"] > 0
    assert ordered["classify"]["communication"]["time_ns"] > 0
    assert shuffled == ordered


def test_streamed_passes_over_batches_of_three_rows_give_the_answers_of_one_batch(tmp_path, monkeypatch):
    """The streamed passes carry their state from batch to batch (neighbours back and on, the latest end of a
    stream, the unions): batches of 3 rows, streams and devices split across them, answer as one batch does."""
    from nsight_ingest import passes

    files = _capture(tmp_path, True)
    whole = _answers(files)
    monkeypatch.setattr(passes, "STREAM_BATCH", 3)
    assert _answers(files) == whole
