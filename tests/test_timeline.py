"""The timeline command: a hand-built capture checked slice by slice in both formats, the project's copy of the
h200_llm_serve capture read back and checked against plain sqlite3, windows, the event limit and bad output paths."""

from __future__ import annotations

import gzip
import os
import signal
import sqlite3
import time
from itertools import pairwise
from pathlib import Path

import duckdb
import pytest

from tests.conftest import API_HEADER, DATA, GPU_HEADER, KERN_EXEC_HEADER, SAMPLES, launch_row, memop_row, write
from tests.intervals import length, union
from tests.perfetto_reader import Read, Slice, read_json, read_perfetto

NVTX_HEADER = ("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
               "ParentId,RangeStack,NameTree")
GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
FILL = ("void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
        "std::array<char *, (unsigned long)1>>(int, T2, T3)")
T0 = 1_000_000
GPU = "NVIDIA H200 (0)"

# One device, one thread (pid 1, tid 1, "python"); times relative to T0 (ns):
#   (a kernel's correlation id is that of the API call that launched it: K2 and K3 share the graph launch's)
#   K1 gemm [0,100) stream 7, corr 11, grid 4x2x1, block 128x1x1, launched by cudaLaunchKernel [-20,-10)
#   memcpy [100,150) stream 7 (1000 bytes, Pageable -> Device), its call cudaMemcpyAsync [90,95)
#   cudaStreamSynchronize [120,180)
#   K2 gemm [250,400) stream 7 and K3 fill (family memory) [350,450) stream 7, both launched by one
#      cudaGraphLaunch [200,210): K3 overlaps K2 without nesting, so it goes to a second lane of stream 7
#   K4 fill [510,600) stream 20, launched by cudaLaunchKernel [495,505)
#   NVTX: "step" [-30,520), "attention" [190,215) inside it
# span [0,600); kernel union [0,100) + [250,450) + [510,600) = 390
# gaps between kernels: [100,250) 150 ns: memory 50 ([100,150)), synchronization 30 ([150,180)), CPU launch 30
#   ([180,210): the graph launch returns at 210), other 40 ([210,250)): memory transfer holds longest;
#   [450,510) 60 ns: CPU launch 55 ([450,505)), other 5: CPU launch
KERNELS = [  # (start, duration, name, stream, corr, grid, block, call start)
    (0, 100, GEMM, 7, 11, (4, 2, 1), (128, 1, 1), -20),
    (250, 150, GEMM, 7, 12, (8, 1, 1), (256, 1, 1), 200),
    (350, 100, FILL, 7, 12, (16, 1, 1), (64, 2, 1), 200),
    (510, 90, FILL, 20, 14, (2, 1, 1), (32, 1, 1), 495),
]


def gpu_row(start: int, duration: int, name: str, stream: int, corr: int, grid: tuple, block: tuple) -> str:
    return (f"{T0 + start},{duration},{corr},{','.join(map(str, grid))},{','.join(map(str, block))},32,0.000,0.000,"
            f',,,,{GPU},1,,{stream},"{name}"')


def hand_capture(folder: Path) -> Path:
    """The hand-built capture's CSV set (gpu, kern_exec, api, nvtx) in `folder`."""
    folder.mkdir(exist_ok=True)
    gpu = write(folder / "hand_cuda_gpu_trace.csv", GPU_HEADER,
                [gpu_row(s, d, n, stream, corr, g, b) for s, d, n, stream, corr, g, b, _ in KERNELS]
                + [memop_row(T0 + 100, 50, "[CUDA memcpy Host-to-Device]")])
    write(folder / "hand_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER,
          [launch_row(T0 + call, 10, T0 + s, d, n, "cudaGraphLaunch" if call == 200 else "cudaLaunchKernel")
           for s, d, n, *_, call in KERNELS])
    write(folder / "hand_cuda_api_trace.csv", API_HEADER, [
        f"{T0 - 20},10,cudaLaunchKernel_v7000,0,11,1,1,20,python",
        f"{T0 + 90},5,cudaMemcpyAsync_v3020,0,2,1,1,20,python",
        f"{T0 + 120},60,cudaStreamSynchronize_v3020,0,15,1,1,20,python",
        f"{T0 + 200},10,cudaGraphLaunch_v10000,0,12,1,1,20,python",
        f"{T0 + 495},10,cudaLaunchKernel_v7000,0,14,1,1,20,python",
    ])
    write(folder / "hand_nvtx_pushpop_trace.csv", NVTX_HEADER, [
        f"{T0 - 30},{T0 + 520},550,25,525,step,1,1,0,1,1,,:step,:step",
        f"{T0 + 190},{T0 + 215},25,0,25,attention,1,1,1,0,2,1,:step:attention,:step:attention",
    ])
    return gpu


def slice_rows(slices: list[Slice], *keys: str) -> list[tuple]:
    """(process, track, start relative to T0, end, name, the args `keys`) per slice."""
    return [(s.process, s.track, s.start_ns - T0, s.end_ns - T0, s.name, *(s.args.get(k) for k in keys))
            for s in slices]


GPU_KEYS = ("op_kind", "component", "family", "corr_id", "duration_ns", "grid_x", "grid_y", "grid_z", "block_x",
            "block_y", "block_z", "transfer_bytes", "src_mem_kind", "dst_mem_kind")
PATH_TRACK = "critical path (critical-path)"
EXPECTED_GPU = [  # by track name; the gemm is no component of the default set: 'other'; a fill is of family memory
    (GPU, "Stream 20", 510, 600, "vectorized_elementwise_kernel", "kernel", "other", "memory", 14, 90, 2, 1, 1,
     32, 1, 1, None, None, None),
    (GPU, "Stream 7", 0, 100, "Kernel2", "kernel", "other", "gemm", 11, 100, 4, 2, 1, 128, 1, 1, None, None, None),
    (GPU, "Stream 7", 100, 150, "[CUDA memcpy Host-to-Device]", "memcpy", None, None, 2, 50, None, None, None,
     None, None, None, 1000, "Pageable", "Device"),
    (GPU, "Stream 7", 250, 400, "Kernel2", "kernel", "other", "gemm", 12, 150, 8, 1, 1, 256, 1, 1, None, None, None),
    (GPU, "Stream 7 (overlapping 1)", 350, 450, "vectorized_elementwise_kernel", "kernel", "other", "memory",
     12, 100, 16, 1, 1, 64, 2, 1, None, None, None),
]
EXPECTED_CPU = [
    ("python (pid 1)", "python", -20, -10, "cudaLaunchKernel_v7000", "launch", 11),
    ("python (pid 1)", "python", 90, 95, "cudaMemcpyAsync_v3020", "api", 2),
    ("python (pid 1)", "python", 120, 180, "cudaStreamSynchronize_v3020", "synchronization", 15),
    ("python (pid 1)", "python", 200, 210, "cudaGraphLaunch_v10000", "launch", 12),
    ("python (pid 1)", "python", 495, 505, "cudaLaunchKernel_v7000", "launch", 14),
]
EXPECTED_NVTX = [
    ("python (pid 1)", "NVTX · python", -30, 520, "step", 0),
    ("python (pid 1)", "NVTX · python", 190, 215, "attention", 1),
]
EXPECTED_GAPS = [
    (GPU, "Largest idle gaps", 100, 250, "idle 150 ns: memory transfer", 150, 50, 30, 30, 40),
    (GPU, "Largest idle gaps", 450, 510, "idle 60 ns: cpu launch", 60, 0, 0, 55, 5),
]
# the critical path, back from the fill that ends last: its launch latency after its call at 495, the CPU work since
# the graph launch returned at 210, the graph launch, the CPU work since the synchronization returned at 180, which
# waited 30 ns past the memcpy's end, the memcpy (its stream's K1 ended at 100, after its launch call), K1
EXPECTED_PATH = [
    ("Critical path", PATH_TRACK, 0, 100, "kernel: Kernel2", "kernel"),
    ("Critical path", PATH_TRACK, 100, 150, "memcpy: [CUDA memcpy Host-to-Device]", "memcpy"),
    ("Critical path", PATH_TRACK, 150, 180, "synchronization: cudaStreamSynchronize_v3020", "synchronization"),
    ("Critical path", PATH_TRACK, 180, 200, "cpu work: cudaGraphLaunch_v10000", "cpu_work"),
    ("Critical path", PATH_TRACK, 200, 210, "launch call: cudaGraphLaunch_v10000", "launch_call"),
    ("Critical path", PATH_TRACK, 210, 495, "cpu work: cudaLaunchKernel_v7000", "cpu_work"),
    ("Critical path", PATH_TRACK, 495, 510, "launch latency: vectorized_elementwise_kernel", "launch_latency"),
    ("Critical path", PATH_TRACK, 510, 600, "kernel: vectorized_elementwise_kernel", "kernel"),
]
# the launch call's start -> its kernel's start
EXPECTED_FLOWS = {(-20, 0), (200, 250), (200, 350), (495, 510)}
# bins of 100 ns (--bins 6 over the 600 ns span), as % of the bin; a sample where the value changes, and 0 at the end
EXPECTED_SAMPLES = {
    "GPU busy % (union of kernels)": [(0, 100.0), (100, 0.0), (200, 50.0), (300, 100.0), (400, 50.0), (500, 90.0),
                                      (600, 0.0)],
    "gemm kernel time %": [(0, 100.0), (100, 0.0), (200, 50.0), (300, 100.0), (400, 0.0), (600, 0.0)],
    "memory kernel time %": [(0, 0.0), (300, 50.0), (500, 90.0), (600, 0.0)],
}


def check_hand_built(read: Read) -> None:
    """The hand-built capture's timeline, slice by slice (as the comments above work it out)."""
    assert slice_rows(read.on("Stream"), *GPU_KEYS) == EXPECTED_GPU
    assert slice_rows(read.on("python"), "kind", "corr_id") == EXPECTED_CPU
    assert slice_rows(read.on("NVTX"), "level") == EXPECTED_NVTX
    assert slice_rows(read.on("Largest"), "gap_ns", "memory_transfer_ns", "synchronization_ns", "cpu_launch_ns",
                      "other_ns") == EXPECTED_GAPS
    assert slice_rows(read.on("critical"), "category") == EXPECTED_PATH
    assert len(read.slices) == 5 + 5 + 2 + 2 + 8
    assert {(a - T0, b - T0) for a, b in read.flows()} == EXPECTED_FLOWS
    full_names = {s.start_ns - T0: s.args["full_name"] for s in read.on("Stream")}
    assert full_names == {0: GEMM, 100: "[CUDA memcpy Host-to-Device]", 250: GEMM, 350: FILL, 510: FILL}
    samples = {track: [(ts - T0, value) for ts, value in values] for (_, track), values in read.samples.items()}
    assert samples == EXPECTED_SAMPLES


def test_hand_built_capture_slice_by_slice(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    result = run_cli("timeline", gpu, "-o", tmp_path / "hand.pftrace", "--bins", "6", "--critical-path")
    assert result.code == 0, result.err
    read = read_perfetto(tmp_path / "hand.pftrace")
    assert read.timestamps_sorted
    check_hand_built(read)
    answer = result.json()
    assert answer["format"] == "perfetto"
    assert answer["events"] == {"gpu_slices": 5, "gap_markers": 2, "cpu_slices": 5, "nvtx_slices": 2,
                                "critical_path": 8, "counter_samples": 17, "flows": 4}
    assert [i["role"] for i in answer["inputs"]] == ["gpu_trace", "kernel_exec_trace", "nvtx_trace", "api_trace"]
    assert answer["cut_at_ns"] is None and answer["time_offset_ns"] == 0


@pytest.mark.parametrize("max_events", ["9", "1000"])
def test_written_a_few_slices_at_a_time_the_file_is_the_same(tmp_path, run_cli, monkeypatch, max_events):
    """The slices stay in the store and are read a stretch of time at a time: stretches of 2 slice starts (events
    of one slice in different stretches, a cut among them) write the same bytes as one stretch."""
    from nsight_ingest.report import timeline

    gpu = hand_capture(tmp_path / "capture")
    files = []
    for part in (1 << 16, 2):
        monkeypatch.setattr(timeline, "PART", part)
        files.append(tmp_path / f"part_{part}.pftrace")
        result = run_cli("timeline", gpu, "-o", files[-1], "--bins", "6", "--max-events", max_events,
                         "--critical-path")
        assert result.code == 0, result.err
    assert files[0].read_bytes() == files[1].read_bytes()


def test_hand_built_capture_as_chrome_json(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    result = run_cli("timeline", gpu, "-o", tmp_path / "hand.json", "--bins", "6", "--critical-path")
    assert result.code == 0, result.err
    check_hand_built(read_json(tmp_path / "hand.json"))
    assert result.json()["format"] == "json"


LLM = SAMPLES / "h200_llm_serve.sqlite"


def sqlite_rows(query: str) -> list[tuple]:
    with sqlite3.connect(LLM) as con:
        return con.execute(query).fetchall()


def integral(samples: list[tuple[int, float]]) -> float:
    """The time a % counter's samples stand for (ns): each value held until the next sample."""
    return sum(value / 100 * (after - ts) for (ts, value), (after, _) in pairwise(samples))


def test_llm_capture_read_back_against_sqlite(tmp_path, run_cli):
    """The project's copy of the h200_llm_serve capture: every GPU operation is one slice, every launch call that
    launched a kernel one flow, the busy counter's integral is the union of kernel time, and every slice's
    arguments are those of its row in the store."""
    out, db = tmp_path / "llm.pftrace", tmp_path / "store.duckdb"
    result = run_cli("timeline", LLM, "-o", out, "--db", db)
    assert result.code == 0, result.err
    read = read_perfetto(out)
    assert read.timestamps_sorted
    gpu = [s for s in read.slices if s.track.startswith("Stream")]
    kernels = sqlite_rows("SELECT k.start, k.end, k.streamId, k.correlationId, n.value, s.value, k.gridX, k.gridY, "
                          "k.gridZ, k.blockX, k.blockY, k.blockZ FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                          "JOIN StringIds n ON n.id = k.demangledName JOIN StringIds s ON s.id = k.shortName")
    memsets = sqlite_rows("SELECT start, end, streamId, correlationId, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET")
    # one slice per GPU operation, at its time on its stream, named by nsys's own short name
    assert sorted((s.start_ns, s.end_ns, int(s.track.split()[1]), s.args["corr_id"]) for s in gpu) == \
        sorted([k[:4] for k in kernels] + [m[:4] for m in memsets])
    by_start = {(k[0], k[2]): k for k in kernels}
    for s in gpu:
        if s.args["op_kind"] == "kernel":
            *_, full, short, gx, gy, gz, bx, by, bz = by_start[(s.start_ns, int(s.track.split()[1]))]
            assert (s.name, s.args["full_name"]) == (short, full)
            assert [s.args[k] for k in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")] == \
                [gx, gy, gz, bx, by, bz]
    assert sum(s.args["op_kind"] == "memset" for s in gpu) == len(memsets) == 24
    # one flow per launch call that launched a kernel: the CUDA runtime call of the kernel's correlation id
    launched = sqlite_rows("SELECT r.start, k.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                           "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId")
    assert len(launched) == len(kernels) == 1256
    assert read.flows() == set(launched)
    # the busy counter: its integral is the union of the device's kernel intervals, within 1 ns per sample
    for device in {d for (d,) in sqlite_rows("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL")}:
        intervals = sqlite_rows(f"SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = {device}")
        ((_, samples),) = [(k, v) for k, v in read.samples.items() if k[0].endswith(f"({device})")
                           and k[1] == "GPU busy % (union of kernels)"]
        assert abs(integral(samples) - length(union(intervals))) <= len(samples)
        assert samples[-1][1] == 0.0
    # every slice's arguments agree with the store
    with duckdb.connect(str(db), read_only=True) as con:
        rule_set = result.json()["rule_set"]
        classes = dict(con.execute("SELECT name, component FROM name_classes WHERE rule_set_version = ?",
                                   [rule_set["version"]]).fetchall())
        families = dict(con.execute("SELECT name, family FROM name_families WHERE family_set_version = ?",
                                    [rule_set["families"]["version"]]).fetchall())
        stored = {(r[0], r[1]): r for r in con.execute(
            "SELECT start_ns, stream_id, duration_ns, corr_id, name, op_kind, transfer_bytes FROM gpu_ops").fetchall()}
    assert len(stored) == len(gpu)
    for s in gpu:
        _, _, duration, corr, name, kind, size = stored[(s.start_ns, int(s.track.split()[1]))]
        assert (s.args["duration_ns"], s.args["corr_id"], s.args["full_name"], s.args["op_kind"]) == \
            (duration, corr, name, kind)
        assert s.args.get("transfer_bytes") == size
        assert (s.args.get("component"), s.args.get("family")) == \
            ((classes[name], families[name]) if kind == "kernel" else (None, None))
    # the API calls: one slice per CUDA runtime call, on its thread
    runtime = sqlite_rows("SELECT start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    cpu = [s for s in read.slices if s.process.endswith("(pid 455)") and not s.track.startswith("NVTX")]
    assert sorted((s.start_ns, s.end_ns) for s in cpu) == sorted(runtime)
    nvtx = sqlite_rows("SELECT start, end, text FROM NVTX_EVENTS WHERE end IS NOT NULL AND text IS NOT NULL")
    assert sorted((s.start_ns, s.end_ns, s.name) for s in read.on("NVTX")) == sorted(nvtx)


def test_by_nvtx_labels_each_operation_with_its_innermost_group(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    result = run_cli("timeline", gpu, "-o", tmp_path / "groups.pftrace", "--by-nvtx", "(step|attention)")
    assert result.code == 0, result.err
    read = read_perfetto(tmp_path / "groups.pftrace")
    # K1 (call at -20), the memcpy (no launch row: its GPU start, 100) and K4 (call at 495) lie in 'step' alone;
    # the graph launch at 200 lies in 'attention' too, the innermost range
    assert {s.start_ns - T0: s.args["nvtx_group"] for s in read.on("Stream")} == \
        {0: "step", 100: "step", 250: "attention", 350: "attention", 510: "step"}
    assert result.json()["window"] == "by-nvtx (step|attention)"


def test_a_range_keeps_the_operations_launched_in_it(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    result = run_cli("timeline", gpu, "-o", tmp_path / "range.json", "--range", f"{T0 + 190}:{T0 + 300}",
                     "--bins", "2")
    assert result.code == 0, result.err
    read = read_json(tmp_path / "range.json")
    # only the graph launch call (at 200) starts in the range: its kernels K2 [250,400) and K3 [350,450)
    assert [(s.start_ns - T0, s.end_ns - T0) for s in read.on("Stream")] == [(250, 400), (350, 450)]
    assert [s.name for s in read.on("python")] == ["cudaGraphLaunch_v10000"]
    assert {(a - T0, b - T0) for a, b in read.flows()} == {(200, 250), (200, 350)}
    # the window's span [250,450) in two bins of 100 ns, both busy
    busy = read.samples[(GPU, "GPU busy % (union of kernels)")]
    assert [(ts - T0, value) for ts, value in busy] == [(250, 100.0), (450, 0.0)]
    assert read.on("Largest") == []  # K3 starts before K2 ends: no gap


def test_max_events_cuts_the_timeline_where_the_limit_is_reached(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    result = run_cli("timeline", gpu, "-o", tmp_path / "cut.pftrace", "--bins", "6", "--max-events", "9")
    assert result.code == 0, result.err
    # what a cut goes by, in order: NVTX step -30, the launch call -20, K1 (launched at -20), the three counters'
    # samples at 0, the memcpy call at 90, then four at 100. Cut at 100, 7 would start before it and the three
    # counters would close there: 10 > 9. Cut at 90: 6 and 3 closing samples, 9
    assert result.json()["cut_at_ns"] == T0 + 90
    assert "cut at 1,000,090 ns, 9 written" in result.err and "--range 1000090: or" in result.err
    read = read_perfetto(tmp_path / "cut.pftrace")
    assert [(s.track, s.start_ns - T0) for s in sorted(read.slices, key=lambda s: s.start_ns)] == \
        [("NVTX · python", -30), ("python", -20), ("Stream 7", 0)]
    assert {track: [(ts - T0, v) for ts, v in values] for (_, track), values in read.samples.items()} == {
        "GPU busy % (union of kernels)": [(0, 100.0), (90, 0.0)], "gemm kernel time %": [(0, 100.0), (90, 0.0)],
        "memory kernel time %": [(0, 0.0), (90, 0.0)]}
    assert len(read.slices) + sum(len(v) for v in read.samples.values()) == 9
    assert read.flows() == {(T0 - 20, T0)}


def test_the_range_a_cut_names_keeps_the_nvtx_window(tmp_path, run_cli):
    result = run_cli("timeline", hand_capture(tmp_path / "capture"), "-o", tmp_path / "t.json", "--nvtx", "step",
                     "--max-events", "9")
    assert result.code == 0, result.err
    assert "see the rest with a higher --max-events" in result.err and "--range" not in result.err


def test_the_range_a_cut_names_shows_the_rest(tmp_path, run_cli):
    """Cut, then the suggested --range: every GPU operation is in one of the two files (a kernel by its launch
    call's time, as windows take it)."""
    gpu = hand_capture(tmp_path / "capture")
    first = run_cli("timeline", gpu, "-o", tmp_path / "first.pftrace", "--max-events", "12", "--range", f":{T0 + 1000}")
    assert first.code == 0, first.err
    at = first.json()["cut_at_ns"]
    assert f"--range {at}:{T0 + 1000} or" in first.err
    rest = run_cli("timeline", gpu, "-o", tmp_path / "rest.pftrace", "--range", f"{at}:{T0 + 1000}")
    assert rest.code == 0, rest.err
    pages = [read_perfetto(tmp_path / name).on("Stream") for name in ("first.pftrace", "rest.pftrace")]
    assert sorted(s.start_ns - T0 for page in pages for s in page) == [0, 100, 250, 350, 510]


def test_gzipped_outputs(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    for name in ("hand.json.gz", "hand.pftrace.gz"):
        result = run_cli("timeline", gpu, "-o", tmp_path / name, "--bins", "6", "--critical-path")
        assert result.code == 0, result.err
        plain = tmp_path / name.removesuffix(".gz")
        plain.write_bytes(gzip.decompress((tmp_path / name).read_bytes()))
        check_hand_built(read_json(plain) if name.startswith("hand.json") else read_perfetto(plain))


def test_no_gap_to_mark(tmp_path, run_cli):
    result = run_cli("timeline", hand_capture(tmp_path / "capture"), "-o", tmp_path / "t.pftrace", "--top", "0")
    assert result.code == 0, result.err
    assert result.json()["events"]["gap_markers"] == 0
    assert read_perfetto(tmp_path / "t.pftrace").on("Largest") == []


def test_zero_length_operations_at_one_time_do_not_nest(tmp_path, run_cli):
    """K [0,100), two zero-length kernels at 100 and K2 [100,200) on one stream: four slices side by side."""
    gpu = write(tmp_path / "z_cuda_gpu_trace.csv", GPU_HEADER,
                [gpu_row(s, d, GEMM, 7, corr, (1, 1, 1), (1, 1, 1)) for corr, (s, d) in
                 enumerate([(0, 100), (100, 0), (100, 0), (100, 100)])])
    result = run_cli("timeline", gpu, "-o", tmp_path / "z.pftrace")
    assert result.code == 0, result.err
    slices = read_perfetto(tmp_path / "z.pftrace").on("Stream")
    assert [(s.start_ns - T0, s.end_ns - T0, s.depth) for s in slices] == \
        [(0, 100, 0), (100, 200, 0), (100, 100, 0), (100, 100, 0)]


def test_negative_times_are_shifted_alike_in_both_formats(tmp_path, run_cli):
    """Operations at -500 and -100 ns: both files count from the earliest, 500 ns later than the capture."""
    gpu = write(tmp_path / "n_cuda_gpu_trace.csv", GPU_HEADER,
                [gpu_row(s - T0, 100, GEMM, 7, corr, (1, 1, 1), (1, 1, 1)) for corr, s in enumerate([-500, -100])])
    for name in ("n.pftrace", "n.json"):
        result = run_cli("timeline", gpu, "-o", tmp_path / name)
        assert result.code == 0, result.err
        assert result.json()["time_offset_ns"] == 500
        read = (read_json if name.endswith(".json") else read_perfetto)(tmp_path / name)
        assert [(s.start_ns, s.end_ns) for s in read.on("Stream")] == [(0, 100), (400, 500)]


@pytest.mark.parametrize(("output", "message"), [
    ("missing/t.pftrace", "no folder missing; create it first"), (".", "name the timeline file"),
    ("", "name the timeline file"), ("-", "name the timeline file"),
    ("capture/hand_cuda_gpu_trace.csv", "an input or the store of the timeline"),
    ("capture/hand_cuda_api_trace.csv", "a capture's or a store's file")])  # a sibling: refused before it is found
def test_an_output_that_cannot_be_written_is_one_line(tmp_path, run_cli, monkeypatch, output, message):
    gpu = hand_capture(tmp_path / "capture")
    before = {path: path.read_bytes() for path in (tmp_path / "capture").iterdir()}
    monkeypatch.chdir(tmp_path)
    result = run_cli("timeline", gpu, "-o", output)
    assert result.code == 2
    assert result.err.count("\n") == 1 and message in result.err
    assert not list(tmp_path.glob("**/.*partial*"))
    assert {path: path.read_bytes() for path in (tmp_path / "capture").iterdir()} == before


def test_the_store_is_no_output(tmp_path, run_cli):
    gpu, db = hand_capture(tmp_path / "capture"), tmp_path / "store.duckdb"
    assert run_cli("ingest", gpu, "--db", db).code == 0
    result = run_cli("timeline", gpu, "--db", db, "-o", db)
    assert result.code == 2 and "that is an input or the store of the" in result.err
    with duckdb.connect(str(db), read_only=True) as con:  # still the store, its capture in it
        assert con.execute("SELECT count(*) FROM gpu_ops").fetchone() == (5,)


def test_per_nvtx_is_no_option_of_the_timeline(tmp_path, run_cli):
    result = run_cli("timeline", hand_capture(tmp_path / "capture"), "-o", tmp_path / "t.json", "--per-nvtx", "s")
    assert result.code == 2 and result.err.count("\n") == 1


FORMS = DATA / "h200_llm_serve"


def test_every_export_form_gives_the_same_timeline(tmp_path, run_cli):
    """The same capture as nsys .sqlite, parquetdir, arrowdir and CSV set: the same slices, arguments, flows and
    counters (the CSV reports round memset sizes to kB: transfer_bytes is left out)."""
    timelines = []
    for number, form in enumerate(("llm2.sqlite", "llm2_pq", "llm2_arrow", "llm2_cuda_gpu_trace.csv")):
        out = tmp_path / f"{number}.pftrace"
        result = run_cli("timeline", FORMS / form, "-o", out)
        assert result.code == 0, result.err
        read = read_perfetto(out)
        slices = sorted((s.process, s.track, s.start_ns, s.end_ns, s.name,
                         sorted((k, v) for k, v in s.args.items() if k != "transfer_bytes")) for s in read.slices)
        timelines.append((slices, read.flows(), dict(read.samples)))
    assert len(timelines[0][0]) > 3000 and len(timelines[0][1]) == 1256
    assert all(timeline == timelines[0] for timeline in timelines[1:])


def test_without_kern_exec_rows_flows_follow_the_correlation_ids(tmp_path, run_cli):
    gpu = hand_capture(tmp_path / "capture")
    (tmp_path / "capture" / "hand_cuda_kern_exec_trace.csv").unlink()
    result = run_cli("timeline", gpu, "-o", tmp_path / "t.pftrace")
    assert result.code == 0, result.err
    assert "no sibling cuda_kern_exec_trace" in result.err
    read = read_perfetto(tmp_path / "t.pftrace")
    # the API trace's launch calls (corr 11, 12, 14) caused the kernels of those ids; the graph launch two
    assert {(a - T0, b - T0) for a, b in read.flows()} == EXPECTED_FLOWS
    assert slice_rows(read.on("python"), "kind", "corr_id") == EXPECTED_CPU


def test_a_terminated_run_leaves_no_file(tmp_path, run_cli, monkeypatch):
    """SIGTERM in the middle of writing: exit 143, neither the timeline nor its temporary file is left."""
    from nsight_ingest.report import timeline

    def terminated(*_):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs here

    monkeypatch.setattr(timeline._ProtoWriter, "slice_end", terminated)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        result = run_cli("timeline", hand_capture(tmp_path / "capture"), "-o", tmp_path / "t.pftrace")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert result.code == 143
    assert [p.name for p in tmp_path.iterdir()] == ["capture"]


def test_two_gpus_of_two_processes_against_sqlite(tmp_path, run_cli):
    """The 2-GPU NCCL capture (a process per GPU): per device its operations and busy integral, per process its
    API calls, and a flow from each runtime call to each kernel of its correlation id in its process."""
    capture = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"
    result = run_cli("timeline", capture, "-o", tmp_path / "t.pftrace")
    assert result.code == 0, result.err
    read = read_perfetto(tmp_path / "t.pftrace")
    with sqlite3.connect(capture) as con:
        ops = con.execute("SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
                          "SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
                          "SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchall()
        kernels = con.execute("SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
        calls = con.execute("SELECT globalTid >> 24 & 16777215, start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()
        launched = set(con.execute(
            "SELECT r.start, k.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k "
            "ON k.correlationId = r.correlationId AND k.globalPid >> 24 = r.globalTid >> 24").fetchall())
    for device in (0, 1):
        on_device = [s for s in read.slices if s.track.startswith("Stream") and s.process.endswith(f"({device})")]
        assert sorted((s.start_ns, s.end_ns) for s in on_device) == sorted((a, b) for d, a, b in ops if d == device)
        busy = read.samples[(next(s.process for s in on_device), "GPU busy % (union of kernels)")]
        assert abs(integral(busy) - length(union([(a, b) for d, a, b in kernels if d == device]))) <= len(busy)
    for pid in {pid for pid, _, _ in calls}:
        api = [s for s in read.slices if s.process.endswith(f"(pid {pid})") and not s.track.startswith("NVTX")]
        assert sorted((s.start_ns, s.end_ns) for s in api) == sorted((a, b) for p, a, b in calls if p == pid)
    assert read.flows() == launched
