"""classify on real nsys exports, checked against an independent plain-Python computation."""

from __future__ import annotations

import csv
import gzip
import shutil
from collections import defaultdict

import pytest

from tests.conftest import DATA, SAMPLES
from tests.intervals import intersection_length, union

CAPTURES = [
    SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv",
    SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv",
    SAMPLES / "llama3_rtx4060ti_cuda_gpu_trace.csv",
    DATA / "nsys" / "vecadd_streamed_cuda_gpu_trace.csv",
]


def expected_summary(gpu_path, kern_path) -> dict:
    """The classify numbers computed with the csv module and loops (ns units in these samples)."""
    with open(gpu_path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    ops = [(int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]), r) for r in rows]
    kernels = [(s, e, r["Device"]) for s, e, r in ops if r["GrdX"] != ""]
    gaps = []
    by_device = defaultdict(list)
    for s, e, device in kernels:
        by_device[device].append((s, e))
    for intervals in by_device.values():
        latest_end = None
        for s, e in sorted(intervals):
            if latest_end is not None and s - latest_end > 0:
                gaps.append(s - latest_end)
            latest_end = e if latest_end is None else max(latest_end, e)
    with open(kern_path, newline="") as fh:
        launches = list(csv.DictReader(fh))
    api = union([(int(r["API Start (ns)"]), int(r["API Start (ns)"]) + int(r["API Dur (ns)"])) for r in launches])
    busy = union([(s, e) for s, e, _ in kernels])
    return {
        "gpu_span_ns": max(e for _, e, _ in ops) - min(s for s, _, _ in ops),
        "gpu_operation_count": len(ops),
        "kernel_count": len(kernels),
        "kernel_time_ns": sum(e - s for s, e, _ in kernels),
        "gaps": (len(gaps), sum(gaps), max(gaps, default=0)),
        "api_union": sum(e - s for s, e in api),
        "overlap": intersection_length(api, busy),
    }


@pytest.mark.parametrize("gpu_path", CAPTURES, ids=lambda p: p.name)
def test_real_sample_matches_independent_computation(gpu_path, run_cli):
    kern_path = gpu_path.with_name(gpu_path.name.replace("cuda_gpu_trace", "cuda_kern_exec_trace"))
    expected = expected_summary(gpu_path, kern_path)
    result = run_cli("classify", gpu_path)
    assert result.code == 0, result.err
    out = result.json()
    for key in ("gpu_span_ns", "gpu_operation_count", "kernel_count", "kernel_time_ns"):
        assert out[key] == expected[key], key
    gaps = out["launch_gaps"]
    assert (gaps["positive_gap_count"], gaps["total_ns"], gaps["maximum_ns"]) == expected["gaps"]
    assert out["cpu_gpu_overlap"]["launch_api_union_ns"] == expected["api_union"]
    assert out["cpu_gpu_overlap"]["launch_api_gpu_overlap_ns"] == expected["overlap"]
    components = out["components"].values()
    assert sum(c["launches"] for c in components) == expected["kernel_count"]
    assert sum(c["milliseconds"] for c in components) == pytest.approx(expected["kernel_time_ns"] / 1e6)
    assert sum(c["percent_of_kernel_time"] for c in components) == pytest.approx(100.0)


@pytest.mark.parametrize("gpu_path", CAPTURES[:2], ids=lambda p: p.name)
def test_dit_block_components(gpu_path, run_cli):
    """H200 DiT block: LayerNorm and the Triton RMS+RoPE kernel are norm_and_rope, the Triton gate_add kernel is
    remaining_gate_add; counted here by exact name from the CSV."""
    with open(gpu_path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    norms = [r for r in rows if "vectorized_layer_norm_kernel<" in r["Name"] or r["Name"] == "fused_rms_rope_kernel"]
    gates = [r for r in rows if r["Name"] == "gate_add_kernel"]
    out = run_cli("classify", gpu_path).json()
    for component, expected in (("norm_and_rope", norms), ("remaining_gate_add", gates)):
        assert out["components"][component]["launches"] == len(expected) > 0
        assert out["components"][component]["milliseconds"] == pytest.approx(
            sum(int(r["Duration (ns)"]) for r in expected) / 1e6)


def test_gzip_input_gives_identical_numbers(tmp_path, run_cli):
    for name in ("h200_dit_graph_cuda_gpu_trace.csv", "h200_dit_graph_cuda_kern_exec_trace.csv"):
        with open(SAMPLES / name, "rb") as src, gzip.open(tmp_path / (name + ".gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    plain = run_cli("classify", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv").json()
    zipped = run_cli("classify", tmp_path / "h200_dit_graph_cuda_gpu_trace.csv.gz").json()
    assert zipped["source_kernel_exec_trace"].endswith("h200_dit_graph_cuda_kern_exec_trace.csv.gz")
    for key in ("gpu_span_ns", "kernel_count", "kernel_time_ns", "launch_gaps", "cpu_gpu_overlap", "components"):
        assert zipped[key] == plain[key], key
    gz_input = zipped["inputs"][0]
    assert gz_input["content_sha256"] == plain["inputs"][0]["sha256"]
    assert gz_input["sha256"] != gz_input["content_sha256"]
