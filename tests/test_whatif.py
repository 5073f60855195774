"""The whatif command: replays of the critical-path test's hand-built capture, each edit worked out by hand; bad
edits refused with one line; on real samples a replay without edits reproduces the GPU span (from plain SQL)."""

from __future__ import annotations

import pytest

from tests.conftest import DATA, GPU_HEADER, SAMPLES, kernel_row, stored_gpu_span, write
from tests.test_critical_path import ALL_REDUCE, GEMM, capture

# The capture (tests/test_critical_path.py), in ns: c1 launch [0,10) -> K1 gemm [20,120); c2 launch [30,40) -> K2
# all-reduce [120,280); c3 cudaStreamSynchronize [50,300) returns 20 after K2; c4 launch [320,330) -> K3 gemm
# [350,400). Measured lags: K1 20 after c1 (launch), K2 0 after K1 (stream), K3 30 after c4 (launch); c2 20 after
# c1, c3 10 after c2, c4 20 after c3 returned (program). The typical lags (medians of the binding ones): stream 0,
# launch 25; K2's launch edge keeps min(90, 25), K3's stream edge min(70, 0).
MEASURED = 380


def replay(run_cli, tmp_path, *edits: str) -> dict:
    result = run_cli("whatif", capture(tmp_path), *edits)
    assert result.code == 0, result.err
    return result.json()


def test_without_edits_the_replay_is_the_capture(tmp_path, run_cli):
    out = replay(run_cli, tmp_path)
    path = run_cli("critical-path", capture(tmp_path)).json()
    assert (out["measured_span_ns"], out["predicted_span_ns"], out["change_percent"]) == (MEASURED, MEASURED, 0.0)
    assert out["critical_path"]["composition"] == path["composition"]
    assert out["critical_path"]["nodes"] == path["nodes"]
    assert out["edits"] == [] and out["replay"] == {"edges_followed": 9, "edges_overlapped": 0}
    assert out["integrity"] == {"edges_disagreeing": 0, "cycles_broken": 0, "cycle_broken_at": None}


def test_faster_gemms(tmp_path, run_cli):
    """K1 [20,70); K2 follows at 70 (its launch lets it go at 30 + 25), ends 230; c3 returns 20 later at 250, c4
    [270,280), K3 at 270 + 30 = 300 for 25: span 305. The path: K1 50, K2 160, c3's 20, CPU work 20, launch
    latency 30, K3 25."""
    out = replay(run_cli, tmp_path, "--kernel-speedup", "family=gemm:2")
    assert out["predicted_span_ns"] == 305
    assert out["change_percent"] == pytest.approx(100 * (305 - MEASURED) / MEASURED)
    assert out["speedup"] == round(MEASURED / 305, 4)
    assert out["edits"] == [{"edit": "kernel_speedup_family", "pattern": "gemm", "factor": 2.0, "nodes": 2,
                             "measured_ns": 150}]
    path = out["critical_path"]
    assert path["critical_path_ns"] == 305
    assert {k: v for k, v in path["composition"].items() if v} == {
        "gpu_kernels": 75, "communication": 160, "launch_latency": 30, "cpu_work": 20, "synchronization": 20}
    by_name = replay(run_cli, tmp_path, "--kernel-speedup", "name=cutlass.*gemm:2")
    assert by_name["predicted_span_ns"] == 305 and by_name["edits"][0]["edit"] == "kernel_speedup_name"


def test_communication_that_overlaps(tmp_path, run_cli):
    """What follows K2 waits for K2's start (120) only: c3 returns at 140, c4 [160,170), K3 at 190 for 50; K2 still
    runs to 280, the last end: span 260."""
    out = replay(run_cli, tmp_path, "--overlap-communication")
    assert out["predicted_span_ns"] == 260
    assert out["replay"]["edges_overlapped"] == 2  # K2 -> K3 (stream), K2 -> c3 (sync)
    assert out["edits"] == [{"edit": "overlap_communication", "communication_kernels": 1}]


def test_removed_syncs_and_kernels(tmp_path, run_cli):
    """Without its wait c3 takes its 20 ns tail, [50,70): c4 [90,100), K3 waits for K2 (280): span 330 - 20 = 310.
    Without K2 (no time, no lag: at 120) c3 returns at 140, c4 [160,170), K3 [190,240): span 220."""
    unsynced = replay(run_cli, tmp_path, "--remove-syncs", "Synchronize")
    assert unsynced["predicted_span_ns"] == 310
    assert unsynced["edits"][0] == {"edit": "remove_syncs", "pattern": "Synchronize", "nodes": 1, "measured_ns": 250}
    removed = replay(run_cli, tmp_path, "--remove-kernels", "AllReduce")
    assert removed["predicted_span_ns"] == 220 and removed["edits"][0]["nodes"] == 1


def test_launch_latency(tmp_path, run_cli):
    """Launch calls take 5 ns, each right after the previous launch call; a kernel starts 5 ns after its launch
    call at the earliest. c1 [0,5) -> K1 [5,105); c2 [5,10) -> K2 [105,265); c3 (no launch) starts 10 after c2
    and returns 20 after K2, at 285; c4 20 later [305,310) -> K3 [310,360): 340 from K1's measured start at 20
    (the work starts when it did; K1 itself now starts earlier)."""
    out = replay(run_cli, tmp_path, "--launch-latency", "5ns")
    assert out["predicted_span_ns"] == 340 and out["critical_path"]["critical_path_ns"] == 340
    assert out["edits"] == [{"edit": "launch_latency", "latency_ns": 5, "launch_calls": 3}]
    assert replay(run_cli, tmp_path, "--launch-latency", "0.005us")["predicted_span_ns"] == 340


@pytest.mark.parametrize(("edit", "message"), [
    (["--kernel-speedup", "family=gem:2"], "--kernel-speedup family=gem: no kernel of this family"),
    (["--kernel-speedup", "name=nothing_like_this:2"], "no kernel in"),
    (["--kernel-speedup", "family=gemm:0"], "must be a positive, finite number"),
    (["--kernel-speedup", "family=gemm:inf"], "must be a positive, finite number"),
    (["--kernel-speedup", "family=gemm:-2"], "must be a positive, finite number"),
    (["--kernel-speedup", "gemm:2"], "give family=FAMILY:FACTOR or name=REGEX:FACTOR"),
    (["--kernel-speedup", "name=(:2"], "not a regular expression"),
    (["--remove-kernels", "["], "not a regular expression"),
    (["--remove-syncs", "cudaMalloc"], "no CPU call that waited for the GPU in"),
    (["--remove-syncs", "cudaLaunchKernel"], "no CPU call that waited for the GPU in"),  # calls that never waited
    (["--launch-latency", "1e400us"], "at most an hour"),
    (["--kernel-speedup", "family=gemm:1e-320"], "must lie between"),
    (["--launch-latency", "2"], "give a duration with its unit"),
    (["--launch-latency", "-2us"], "give a duration with its unit"),
])
def test_a_bad_edit_is_one_line_and_exit_2(tmp_path, run_cli, edit, message):
    result = run_cli("whatif", capture(tmp_path), *edit)
    assert result.code == 2, result.err
    assert message in result.err and len(result.err.strip().splitlines()) == 1


def test_edits_that_need_what_the_capture_lacks(tmp_path, run_cli):
    """Without CPU calls there is no launch to speed up; without communication kernels nothing to overlap."""
    bare = run_cli("whatif", capture(tmp_path, api=False), "--launch-latency", "2us")
    assert bare.code == 2 and "no kernel launch calls" in bare.err
    alone = run_cli("whatif", SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv", "--overlap-communication")
    assert alone.code == 2 and "no communication kernels" in alone.err


@pytest.mark.parametrize("path", [SAMPLES / "h200_llm_serve.sqlite", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv",
                                  SAMPLES / "llama3_rtx4060ti_cuda_gpu_trace.csv",
                                  DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"],
                         ids=["llm", "dit_graph", "llama3", "two_gpus"])
def test_a_replay_without_edits_reproduces_real_captures(tmp_path, run_cli, path):
    """The predicted span is the GPU span computed here from the store's rows, and so is the replay's path."""
    db = tmp_path / "store.duckdb"
    out = run_cli("whatif", path, "--db", db).json()
    span = stored_gpu_span(db)
    assert out["measured_span_ns"] == out["predicted_span_ns"] == out["critical_path"]["critical_path_ns"] == span
    assert out["integrity"]["cycles_broken"] == 0


def test_faster_kernels_gain_nothing_on_a_cpu_bound_capture_and_at_most_their_saving_elsewhere(run_cli):
    """The LLM capture's path is CPU calls and work: faster GEMMs leave its span as it is. A path can
    shorten by no more than its kernels' saved time: on the 2-GPU capture (kernels hold most of its path), half the
    attention kernels' measured time at 2x."""
    llm = SAMPLES / "h200_llm_serve.sqlite"
    assert run_cli("whatif", llm, "--kernel-speedup", "family=gemm:2").json()["change_percent"] == 0.0
    two_gpus = DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"
    fast = run_cli("whatif", two_gpus, "--kernel-speedup", "family=attention:2").json()
    saved = fast["measured_span_ns"] - fast["predicted_span_ns"]
    assert 0 < saved <= fast["edits"][0]["measured_ns"] / 2


def test_windows_replay_alone(run_cli):
    out = run_cli("whatif", SAMPLES / "h200_llm_serve.sqlite", "--per-nvtx", r"request \d+ decode .*").json()
    assert len(out["windows"]) > 1
    for window in out["windows"]:
        assert window["measured_span_ns"] == window["predicted_span_ns"]


def two_gpus(folder) -> str:
    """Two GPUs, one stream each (ns): A runs a GEMM [0,100) then its all-reduce [100,200); B runs another GEMM
    [0,150) then its all-reduce [150,200). A's all-reduce waits for B's to arrive (150) and ends 50 ns later."""
    gemm_b = GEMM.replace("128x64", "256x128")
    rows = [kernel_row(0, 100, GEMM, device="GPU (0)"), kernel_row(100, 100, ALL_REDUCE, device="GPU (0)"),
            kernel_row(0, 150, gemm_b, device="GPU (1)"), kernel_row(150, 50, ALL_REDUCE, device="GPU (1)")]
    return write(folder / "two_cuda_gpu_trace.csv", GPU_HEADER, rows)


def test_a_collective_waits_for_its_last_participant(tmp_path, run_cli):
    """B's GEMM at 1.5x ends at 100: B's all-reduce arrives at 100, A's no longer waits and ends 50 ns after, at
    150; B's takes its 50 ns: span 150. The measured path: A's all-reduce waited [100,150) for B's, which followed
    B's GEMM."""
    path = run_cli("critical-path", two_gpus(tmp_path)).json()
    assert path["graph"]["edges"] == {"collective": 1, "stream": 2}
    assert path["composition"]["communication_wait"] == 0  # the path ends in B's all-reduce, not A's
    out = run_cli("whatif", two_gpus(tmp_path), "--kernel-speedup", "name=256x128:1.5").json()
    assert (out["measured_span_ns"], out["predicted_span_ns"]) == (200, 150)
    hidden = run_cli("whatif", two_gpus(tmp_path), "--remove-kernels", "AllReduce").json()
    assert hidden["predicted_span_ns"] == 150  # B's GEMM alone


def test_a_broken_cycle_is_warned_of_with_the_edge_it_was_broken_at():
    """Disagreeing edges are counted, not warned of (kernels overlapping on a stream are legitimate)."""
    from nsight_ingest.analysis.integrity import graph_warnings

    block = {"edges_disagreeing": 5, "cycles_broken": 2, "cycle_broken_at": {"src": 7, "dst": 9, "kind": "stream"}}
    assert graph_warnings(block) == ["2 cycles in the dependency graph were broken, the first at the stream edge from "
                                     "node 7 to node 9 (not followed)"]
    assert graph_warnings(block | {"cycles_broken": 0, "cycle_broken_at": None}) == []
