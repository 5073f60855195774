"""`launches` and analysis windows on a hand-built capture; every expected number is worked out in comments."""

from __future__ import annotations

import pytest

from tests.conftest import DATA, GPU_HEADER, KERN_EXEC_HEADER, kernel_row, write

SAGE = "void QuantInt8Kernel<(unsigned int)128, (unsigned int)32>(T6 *)"
NORM = "void at::native::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, (bool)0>(int)"
OTHER = "vectorAdd(const float *, int)"
GATE = "gate_add_kernel"
GEMM = "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<MainloopSm120TmaWarpSpecializedBlockScaled>>"
NVTX_HEADER = "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId," \
              "ParentId,RangeStack,NameTree"

# kernel: (start, duration, name); API call: (start, duration, function), queue: (start, duration) or None
#   K1 [100,200) sage2     API [10,60)                      not queued
#   K2 [250,300) norm      API [150,240) ends after K1 ended  queued 10
#   K3 [300,400) other     API [200,220)                    queued 80
#   K4 [600,650) gate_add  API [590,595) ends after K3 ended  queued 5
#   K5 [720,750) other     one cudaGraphLaunch [700,710) for K5 and K6; ends after K4 ended
#   K6 [750,760) gemm
KERNELS = [(100, 100, SAGE), (250, 50, NORM), (300, 100, OTHER), (600, 50, GATE), (720, 30, OTHER), (750, 10, GEMM)]
CALLS = [(10, 50, "cudaLaunchKernel", None), (150, 90, "cudaLaunchKernel", (240, 10)),
         (200, 20, "cudaLaunchKernel", (220, 80)), (590, 5, "cudaLaunchKernel", (595, 5)),
         (700, 10, "cudaGraphLaunch_v10000", None), (700, 10, "cudaGraphLaunch_v10000", None)]


def launch_line(call, kernel) -> str:
    api_start, api_dur, api, queue = call
    start, dur, name = kernel
    q_start, q_dur = queue or ("", "")
    return (f"{api_start},{api_dur},{q_start},{q_dur},{start},{dur},{start + dur - api_start},9,1,0,{api},"
            f'   1    1    1, 128    1    1,"{name}"')


@pytest.fixture
def capture(tmp_path):
    gpu = write(tmp_path / "h_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(s, d, n) for s, d, n in KERNELS])
    write(tmp_path / "h_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER,
          [launch_line(c, k) for c, k in zip(CALLS, KERNELS, strict=True)])
    write(tmp_path / "h_nvtx_pushpop_trace.csv", NVTX_HEADER, [
        "0,230,230,0,230,:step A,9,1,0,0,1,,:1,:step A",
        "230,1000,770,0,770,:step B,9,1,0,0,2,,:2,:step B",
        "500,800,300,0,300,:step A,9,2,0,0,3,,:3,:step A",  # same name on thread 2: launches of thread 1 stay out
    ])
    return gpu


def test_launch_analysis_numbers(capture, run_cli):
    result = run_cli("launches", capture)
    assert result.code == 0, result.err
    out = result.json()
    # four plain launches and one graph launch that started two kernels
    assert out["launch_api_calls"] == {"cudaLaunchKernel": 4, "cudaGraphLaunch_v10000": 1}
    assert (out["runtime_kernel_launches"], out["cudaLaunchKernel_calls"], out["graph_kernels"]) == (5, 4, 2)
    assert out["kernels_without_launch_row"] == 0
    # positive gaps 50 (K1->K2), 200 (K3->K4), 70 (K4->K5); sorted 50, 70, 200
    # quantile_cont: p50 = 70, p90 at 1.8 -> 70 + 0.8 * 130 = 174, p99 at 1.98 -> 70 + 0.98 * 130 = 197.4
    assert out["gaps"] == {"p50_ns": 70.0, "p90_ns": pytest.approx(174.0), "p99_ns": pytest.approx(197.4),
                           "max_ns": 200.0, "positive_gap_count": 3, "total_ns": 320}
    assert [(g["gap_ns"], g["before"], g["after"]) for g in out["largest_gaps"]] == [
        (200, OTHER, GATE), (70, GATE, OTHER), (50, SAGE, NORM)]
    assert [(p["before_component"], p["after_component"], p["total_ns"]) for p in out["gaps_by_component_pair"]] == [
        ("other", "remaining_gate_add", 200), ("remaining_gate_add", "other", 70), ("sage2", "norm_and_rope", 50)]
    # cudaLaunchKernel durations 5, 20, 50, 90: p50 35, p90 at 2.7 -> 78, p99 at 2.97 -> 88.8; the graph call once
    assert out["api_duration_ns"]["cudaLaunchKernel"] == {"calls": 4, "p50_ns": 35.0, "p90_ns": pytest.approx(78.0),
                                                          "p99_ns": pytest.approx(88.8), "max_ns": 90.0}
    assert out["api_duration_ns"]["cudaGraphLaunch_v10000"]["calls"] == 1
    assert out["api_duration_ns"]["cudaGraphLaunch_v10000"]["p50_ns"] == 10.0
    # queued 10, 80, 5 (sorted 5, 10, 80): p50 10, p90 at 1.8 -> 66; K1, K5, K6 not queued
    queue = out["queue_delay_ns"]
    assert (queue["queued_kernels"], queue["not_queued_kernels"], queue["total_ns"]) == (3, 3, 95)
    assert (queue["p50_ns"], queue["p90_ns"], queue["max_ns"]) == (10.0, pytest.approx(66.0), 80.0)
    # K2..K6 have an earlier kernel; K2, K4 and K5's launch calls ended after the GPU went idle
    assert (out["cpu_starved_kernels"], out["kernels_considered"]) == (3, 5)
    assert out["cpu_starved_kernel_percent"] == pytest.approx(60.0)


def test_queue_delay_command(capture, run_cli):
    """The queue-delay command alone: queued 10, 80, 5; K1, K5, K6 not queued; step A keeps K1 (not queued),
    K2 (10) and K3 (80)."""
    out = run_cli("queue-delay", capture).json()
    queue = out["queue_delay_ns"]
    assert (queue["queued_kernels"], queue["not_queued_kernels"], queue["total_ns"]) == (3, 3, 95)
    assert (queue["p50_ns"], queue["p90_ns"], queue["max_ns"]) == (10.0, pytest.approx(66.0), 80.0)
    # step A: 10 and 80: p50 at 0.5 -> 45, max 80
    step = run_cli("queue-delay", capture, "--nvtx", "step A").json()
    assert step["window"] == "nvtx step A"
    assert (step["queue_delay_ns"]["queued_kernels"], step["queue_delay_ns"]["not_queued_kernels"]) == (2, 1)
    assert (step["queue_delay_ns"]["p50_ns"], step["queue_delay_ns"]["max_ns"]) == (45.0, 80.0)
    table = run_cli("queue-delay", capture, "--format", "table")
    assert table.code == 0 and "3 kernels queued (3 not), total 0.000 ms" in table.out


def test_launches_table(capture, run_cli):
    result = run_cli("launches", capture, "--format", "table", "--top", "2")
    assert result.code == 0, result.err
    assert "60.00% of 5" in result.out
    assert "[other] vectorAdd" in result.out
    assert "[sage2]" not in result.out  # only the two largest gaps


def test_nvtx_window_follows_the_launch_call(capture, run_cli):
    """K3 runs on the GPU after step A ended, but its launch call started inside step A, on step A's thread."""
    out = run_cli("classify", capture, "--nvtx", "step A").json()
    assert out["window"] == "nvtx step A"
    assert out["kernel_count"] == 3                       # K1, K2, K3; not K4 (thread 2's "step A")
    assert out["gpu_span_ns"] == 400 - 100
    assert out["kernel_time_ns"] == 250
    assert out["launch_gaps"]["total_ns"] == 50
    assert [out["components"][c]["launches"] for c in ("sage2", "norm_and_rope", "other")] == [1, 1, 1]
    # API calls started in the window: [10,60) [150,240) [200,220); union 50 + 90 = 140
    assert out["cpu_gpu_overlap"]["launch_api_union_ns"] == 140


def test_range_and_per_nvtx(capture, run_cli):
    ranged = run_cli("classify", capture, "--range", "0:230").json()
    assert ranged["window"] == "range 0:230" and ranged["kernel_count"] == 3
    result = run_cli("launches", capture, "--per-nvtx", "step [AB]")
    assert "step A @ 500: no kernels in this scope; skipped" in result.err
    per = result.json()
    assert per["per_nvtx"] == "step [AB]"
    # thread 2's "step A" launched nothing: skipped with a warning
    assert [w["window"] for w in per["windows"]] == ["step A @ 0", "step B @ 230"]
    # step B holds K4, K5, K6: gaps 720 - 650 = 70; the graph call is its only other call
    step_b = per["windows"][1]
    assert step_b["gaps"]["total_ns"] == 70
    assert step_b["launch_api_calls"] == {"cudaLaunchKernel": 1, "cudaGraphLaunch_v10000": 1}


@pytest.mark.parametrize(("args", "message"), [
    (["--nvtx", "step Z"], "no NVTX range named 'step Z'"),
    (["--per-nvtx", "nothing.*"], "no NVTX range matches"),
    (["--range", "5"], "expected START_NS:END_NS"),
    (["--range", "9:3"], "the end must come after the start"),
    (["--range", "5000:6000"], "no GPU operations in this scope"),
    (["--nvtx", "step A", "--range", "0:1"], "choose one of"),
])
def test_window_errors(capture, run_cli, args, message):
    result = run_cli("classify", capture, *args)
    assert result.code == 2
    assert message in result.err and len(result.err.strip().splitlines()) == 1


def test_per_device_and_per_stream(tmp_path, run_cli):
    a, b = "GPU A (0)", "GPU B (1)"
    gpu = write(tmp_path / "multi_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, OTHER, device=a, stream=7),     # dev A stream 7 [0,100)
        kernel_row(150, 50, OTHER, device=a, stream=8),    # dev A stream 8 [150,200): device gap 50
        kernel_row(400, 100, OTHER, device=a, stream=7),   # dev A stream 7 [400,500): device gap 200, stream gap 300
        kernel_row(10, 10, NORM, device=b, stream=7),      # dev B [10,20)
        kernel_row(30, 10, NORM, device=b, stream=7),      # dev B [30,40): gap 10
    ])
    out = run_cli("launches", gpu).json()
    assert out["launch_api_calls"] is None and out["cpu_starved_kernel_percent"] is None
    assert out["gaps"]["positive_gap_count"] == 3 and out["gaps"]["total_ns"] == 260
    assert out["devices"][a]["gaps"]["total_ns"] == 250 and out["devices"][a]["gaps"]["max_ns"] == 200
    assert out["devices"][b]["gaps"]["total_ns"] == 10
    streams = {(s["device"], s["stream_id"]): s for s in out["streams"]}
    assert streams[(a, 7)]["gaps"]["total_ns"] == 300 and streams[(a, 7)]["kernel_time_ns"] == 200
    assert streams[(a, 8)]["gaps"]["positive_gap_count"] == 0 and streams[(a, 8)]["kernel_count"] == 1
    assert streams[(b, 7)]["gaps"]["p50_ns"] == 10.0


def test_largest_gaps_name_their_kernels_by_label(run_cli):
    """The launches table names the kernels around each gap by their short name (with the functor or hash that
    tells apart kernels of one name), with the gap's device and stream, never by a cut prefix of the full name."""
    from rich.console import Console

    from nsight_ingest.analysis import launches

    result = run_cli("launches", DATA / "h200_llm_serve" / "llm2.sqlite", "--top", "5").json()
    console = Console(width=1000, record=True)  # wide: no cell folds onto a second line
    launches.print_table(result, console)
    lines = console.export_text().splitlines()
    gaps = result["largest_gaps"]
    rows = [line for line in lines if line.strip().split(" ")[0] in {f"{g['gap_ns'] / 1e6:,.3f}" for g in gaps}]
    assert len(rows) == len(gaps) == 5
    for row, gap in zip(rows, gaps, strict=True):
        cells = [cell.strip() for cell in row.split("│")]
        assert cells[1:3] == [gap["device"], str(gap["stream_id"])]
        for side, cell in (("before", cells[4]), ("after", cells[5])):
            assert cell.startswith(f"[{gap[side + '_component']}] {gap[side + '_short_name']}")
            assert len(gap[side]) <= 70 or gap[side][:70] not in cell
