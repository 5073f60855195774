"""classify on hand-built traces: every expected number is worked out by hand in the comments."""

from __future__ import annotations

import pytest

from tests.conftest import GPU_HEADER, KERN_EXEC_HEADER, kernel_row, launch_row, memop_row, write

SAGE = "void QuantInt8Kernel<(unsigned int)128, (unsigned int)32, (unsigned int)1, (bool)0, __nv_bfloat16>(T6 *)"
NORM = "void at::native::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, (bool)0>(int, T2, const T1 *)"
OTHER = "vectorAdd(const float *, const float *, float *, int)"
GEMM = ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
        "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm120TmaWarpSpecializedBlockScaled<(int)3>>>>")
GATE = "_indexed_gate_rms_norm_scale_shift_kernel"

# One device. Intervals [start, end) in ns:
#   memcpy [0,100)  A sage2 [200,500)  B norm [500,600)  C other [1000,1500)  D gemm [1200,1300)
#   memset [1600,1650)  E gate_add [2000,3000)
GPU_ROWS = [
    memop_row(0, 100, "[CUDA memcpy Host-to-Device]"),
    kernel_row(200, 300, SAGE),
    kernel_row(500, 100, NORM),
    kernel_row(1000, 500, OTHER),
    kernel_row(1200, 100, GEMM),
    memop_row(1600, 50, "[CUDA memset]"),
    kernel_row(2000, 1000, GATE),
]
# Launch API intervals: [100,250) [260,280) [900,1100) [1050,1150) [1900,1950)
LAUNCH_ROWS = [
    launch_row(100, 150, 200, 300, SAGE),
    launch_row(260, 20, 500, 100, NORM),
    launch_row(900, 200, 1000, 500, OTHER),
    launch_row(1050, 100, 1200, 100, GEMM, api="cuLaunchKernelEx"),
    launch_row(1900, 50, 2000, 1000, GATE),
]


@pytest.fixture
def hand_trace(tmp_path):
    gpu = write(tmp_path / "hand_cuda_gpu_trace.csv", GPU_HEADER, GPU_ROWS)
    write(tmp_path / "hand_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, LAUNCH_ROWS)
    return gpu


def check_hand_numbers(result: dict) -> None:
    # span: last end 3000 - first start 0; 7 operations, 5 kernels.
    assert result["gpu_span_ns"] == 3000
    assert result["gpu_operation_count"] == 7
    assert result["kernel_count"] == 5
    # kernel time 300 + 100 + 500 + 100 + 1000 = 2000 -> 2000 / 3000 busy.
    assert result["kernel_time_ns"] == 2000
    assert result["kernel_busy_percent_of_span"] == pytest.approx(200 / 3)
    # gaps: B starts at A's end (0), C: 1000-600=400, D overlaps C (1200-1500<0), E: 2000-1500=500.
    assert result["launch_gaps"] == {"positive_gap_count": 2, "total_ns": 900, "average_ns": 450.0, "maximum_ns": 500}
    # API union: 150 + 20 + [900,1150)=250 + 50 = 470.
    # Kernel union: [200,600) [1000,1500) [2000,3000).
    # Overlap: [200,250)=50 + [260,280)=20 + [1000,1150)=150 + 0 = 220.
    overlap = result["cpu_gpu_overlap"]
    assert overlap["launch_api_union_ns"] == 470
    assert overlap["launch_api_gpu_overlap_ns"] == 220
    assert overlap["launch_api_overlap_percent"] == pytest.approx(100 * 220 / 470)
    components = result["components"]
    assert list(components) == ["sage2", "nvfp4_gemms", "nvfp4_packing", "norm_and_rope", "remaining_gate_add",
                                "other"]
    expected = {  # component: (ns, launches); percent = ns / 2000
        "sage2": (300, 1), "nvfp4_gemms": (100, 1), "nvfp4_packing": (0, 0),
        "norm_and_rope": (100, 1), "remaining_gate_add": (1000, 1), "other": (500, 1),
    }
    for name, (ns, launches) in expected.items():
        assert components[name]["milliseconds"] == pytest.approx(ns / 1e6), name
        assert components[name]["percent_of_kernel_time"] == pytest.approx(ns / 20), name
        assert components[name]["launches"] == launches, name


def test_hand_built_trace_every_number(hand_trace, run_cli):
    result = run_cli("classify", hand_trace)
    assert result.code == 0, result.err
    out = result.json()
    check_hand_numbers(out)
    assert out["source_gpu_trace"] == str(hand_trace)
    assert out["source_kernel_exec_trace"].endswith("hand_cuda_kern_exec_trace.csv")
    assert [i["role"] for i in out["inputs"]] == ["gpu_trace", "kernel_exec_trace"]
    assert [i["rows"] for i in out["inputs"]] == [7, 5]
    assert out["classification_policy"]["other"] == "all unmatched kernels"
    # One device: its block equals the top level.
    (device,) = out["devices"].values()
    check_hand_numbers(device)


def test_units_from_header_give_the_same_numbers(tmp_path, run_cli):
    """The same trace exported with --timeunit usec and csv:noconv byte columns."""
    header = (GPU_HEADER.replace("(ns)", "(us)").replace("(MB)", "(B)").replace("(MB/s)", "(B/s)"))
    rows = [r.replace(",0.001,1.000,", ",1000,1000000,") for r in GPU_ROWS]

    def to_us(row: str) -> str:
        start, duration, rest = row.split(",", 2)
        return f"{int(start) / 1000},{int(duration) / 1000},{rest}"

    gpu = write(tmp_path / "us_cuda_gpu_trace.csv", header, [to_us(r) for r in rows])
    launch_header = KERN_EXEC_HEADER.replace("(ns)", "(us)")

    def launch_to_us(row: str) -> str:
        cells = row.split(",")
        for i in range(7):
            cells[i] = "" if cells[i] == "" else str(int(cells[i]) / 1000)
        return ",".join(cells)

    write(tmp_path / "us_cuda_kern_exec_trace.csv", launch_header, [launch_to_us(r) for r in LAUNCH_ROWS])
    result = run_cli("classify", gpu)
    assert result.code == 0, result.err
    check_hand_numbers(result.json())


def test_two_devices_in_one_file(tmp_path, run_cli):
    a, b = "GPU A (0)", "GPU B (1)"
    gpu = write(tmp_path / "two_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, OTHER, device=a),       # dev0 [0,100)
        kernel_row(50, 200, OTHER, device=b),      # dev1 [50,250)
        kernel_row(260, 40, NORM, device=b),       # dev1 [260,300)  gap 10
        kernel_row(300, 100, OTHER, device=a),     # dev0 [300,400)  gap 200
        memop_row(500, 100, "[CUDA memcpy Device-to-Host]", device=b),  # dev1 [500,600)
    ])
    result = run_cli("classify", gpu)
    assert result.code == 0, result.err
    assert "no sibling cuda_kern_exec_trace" in result.err
    out = result.json()
    assert out["source_kernel_exec_trace"] is None
    assert out["cpu_gpu_overlap"] is None
    # whole file: span 600-0, 5 ops, 4 kernels, 100+200+40+100 = 440 ns over 600 x 2 devices.
    assert (out["gpu_span_ns"], out["gpu_operation_count"], out["kernel_count"], out["kernel_time_ns"]) == (
        600, 5, 4, 440)
    assert out["kernel_busy_percent_of_span"] == pytest.approx(100 * 440 / 1200)
    # gaps aggregated over devices: counts and totals summed, maximum of maxima.
    assert out["launch_gaps"] == {"positive_gap_count": 2, "total_ns": 210, "average_ns": 105.0, "maximum_ns": 200}
    dev0, dev1 = out["devices"][a], out["devices"][b]
    assert (dev0["gpu_span_ns"], dev0["kernel_count"], dev0["kernel_time_ns"]) == (400, 2, 200)
    assert dev0["kernel_busy_percent_of_span"] == pytest.approx(50.0)
    assert dev0["launch_gaps"]["total_ns"] == 200
    assert (dev1["gpu_span_ns"], dev1["gpu_operation_count"], dev1["kernel_time_ns"]) == (550, 3, 240)
    assert dev1["kernel_busy_percent_of_span"] == pytest.approx(100 * 240 / 550)
    assert dev1["launch_gaps"] == {"positive_gap_count": 1, "total_ns": 10, "average_ns": 10.0, "maximum_ns": 10}
    assert dev1["components"]["norm_and_rope"]["launches"] == 1
    assert out["components"]["other"]["launches"] == 3


def test_table_format(hand_trace, run_cli):
    result = run_cli("classify", hand_trace, "--format", "table")
    assert result.code == 0, result.err
    assert "remaining_gate_add" in result.out
    assert "66.67% busy" in result.out
    assert "46.81%" in result.out  # launch overlap 220 / 470


def test_two_devices_launch_overlap_per_device(tmp_path, run_cli):
    a, b = "GPU A (0)", "GPU B (1)"
    gpu = write(tmp_path / "pair_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, OTHER, device=a),     # dev0 [0,100)
        kernel_row(50, 200, OTHER, device=b),    # dev1 [50,250)
        kernel_row(260, 40, OTHER, device=b),    # dev1 [260,300)
        kernel_row(300, 100, OTHER, device=a),   # dev0 [300,400)
    ])
    write(tmp_path / "pair_cuda_kern_exec_trace.csv", KERN_EXEC_HEADER, [
        launch_row(0, 40, 0, 100, OTHER, device_index=0),      # dev0 API [0,40)
        launch_row(20, 40, 50, 200, OTHER, device_index=1),    # dev1 API [20,60)
        launch_row(200, 120, 300, 100, OTHER, device_index=0),  # dev0 API [200,320)
        launch_row(240, 15, 260, 40, OTHER, device_index=1),   # dev1 API [240,255)
    ])
    out = run_cli("classify", gpu).json()
    # all: API union [0,60) + [200,320) = 180; kernel union [0,250) + [260,400);
    # overlap [0,60)=60 + [200,250)=50 + [260,320)=60 = 170
    assert out["cpu_gpu_overlap"]["launch_api_union_ns"] == 180
    assert out["cpu_gpu_overlap"]["launch_api_gpu_overlap_ns"] == 170
    # dev0: API [0,40) + [200,320) = 160; kernels [0,100) [300,400); overlap 40 + 20 = 60
    dev0 = out["devices"][a]["cpu_gpu_overlap"]
    assert (dev0["launch_api_union_ns"], dev0["launch_api_gpu_overlap_ns"]) == (160, 60)
    # dev1: API [20,60) + [240,255) = 55; kernels [50,250) [260,300); overlap 10 + 10 = 20
    dev1 = out["devices"][b]["cpu_gpu_overlap"]
    assert (dev1["launch_api_union_ns"], dev1["launch_api_gpu_overlap_ns"]) == (55, 20)
    assert dev1["launch_api_overlap_percent"] == pytest.approx(100 * 20 / 55)


@pytest.mark.parametrize(("other_ns", "sage_ns", "hinted"), [(950, 50, True), (850, 150, False)])
def test_a_hint_when_the_rules_leave_most_time_in_other(tmp_path, run_cli, other_ns, sage_ns, hinted):
    """Component rules written for another workload leave its kernels in `other`: past 90% of the kernel time the
    command says so, once, and points to the kernel families and --rules."""
    gpu = write(tmp_path / "w_cuda_gpu_trace.csv", GPU_HEADER,
                [kernel_row(0, other_ns, OTHER), kernel_row(other_ns, sage_ns, SAGE)])
    result = run_cli("classify", gpu)
    assert result.code == 0, result.err
    share = 100 * other_ns / (other_ns + sage_ns)  # 95% and 85%
    hint = f"leave {share:.1f}% of the kernel time in 'other'"
    assert (hint in result.err) is hinted and result.err.count("kernel families") == int(hinted)
    assert "--rules FOLDER" in result.err or not hinted
