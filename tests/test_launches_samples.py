"""`launches` and NVTX windows on the real H200 captures, against a plain-Python computation."""

from __future__ import annotations

import csv
from collections import Counter

import numpy as np
import pytest

from tests.conftest import SAMPLES

CAPTURES = ["h200_dit_oneblock", "h200_dit_graph"]


def rows(name: str) -> list[dict]:
    with open(SAMPLES / name, newline="") as fh:
        return list(csv.DictReader(fh))


def expected(prefix: str, nvtx_step: str | None = None) -> dict:
    launches = rows(f"{prefix}_cuda_kern_exec_trace.csv")
    if nvtx_step is not None:
        (step,) = [r for r in rows(f"{prefix}_nvtx_pushpop_trace.csv") if r["Name"] == f":{nvtx_step}"]
        inside = [r for r in launches if int(step["Start (ns)"]) <= int(r["API Start (ns)"]) < int(step["End (ns)"])
                  and r["TID"] == step["TID"]]
        launches = inside
    launched = {int(r["Kernel Start (ns)"]) for r in launches}
    kernels = sorted((int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]))
                     for r in rows(f"{prefix}_cuda_gpu_trace.csv") if r["GrdX"] and
                     (nvtx_step is None or int(r["Start (ns)"]) in launched))
    gaps, latest = [], None
    for start, end in kernels:
        if latest is not None and start > latest:
            gaps.append(start - latest)
        latest = end if latest is None else max(latest, end)
    calls = {(r["API Function"], r["TID"], r["API Start (ns)"], r["API Dur (ns)"]) for r in launches}
    api_end = {int(r["Kernel Start (ns)"]): int(r["API Start (ns)"]) + int(r["API Dur (ns)"]) for r in launches}
    starved, considered, latest = 0, 0, None
    for start, end in kernels:
        if latest is not None and start in api_end:
            considered += 1
            starved += api_end[start] > latest
        latest = end if latest is None else max(latest, end)
    return {
        "kernels": len(kernels),
        "calls": Counter(api for api, *_ in calls),
        "graph_kernels": sum(1 for r in launches if r["API Function"].startswith("cudaGraphLaunch")),
        "gaps": gaps,
        "starved_percent": 100.0 * starved / considered,
    }


@pytest.mark.parametrize("prefix", CAPTURES)
def test_launches_on_real_capture(prefix, run_cli):
    want = expected(prefix)
    out = run_cli("launches", SAMPLES / f"{prefix}_cuda_gpu_trace.csv").json()
    assert out["launch_api_calls"] == dict(want["calls"])
    assert out["runtime_kernel_launches"] == sum(want["calls"].values())
    assert out["graph_kernels"] == want["graph_kernels"]
    assert out["kernels_without_launch_row"] == 0
    gaps = np.array(want["gaps"])
    assert out["gaps"]["positive_gap_count"] == len(gaps)
    for key, q in (("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99)):
        assert out["gaps"][key] == pytest.approx(np.percentile(gaps, q))
    assert out["gaps"]["max_ns"] == gaps.max()
    assert out["largest_gaps"][0]["gap_ns"] == gaps.max()
    assert sum(p["total_ns"] for p in out["gaps_by_component_pair"]) == gaps.sum()
    assert out["cpu_starved_kernel_percent"] == pytest.approx(want["starved_percent"])


def test_graph_capture_counts_each_replay_once(run_cli):
    """Steps 1 and 3 replay a CUDA graph: 2 cudaGraphLaunch calls for 104 kernels (FORMATS.md)."""
    out = run_cli("launches", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv").json()
    assert out["launch_api_calls"]["cudaGraphLaunch_v10000"] == 2
    assert out["graph_kernels"] == 104


@pytest.mark.parametrize("step", ["step 0", "step 1", "step 2", "step 3"])
def test_nvtx_step_windows(step, run_cli):
    want = expected("h200_dit_graph", step)
    out = run_cli("launches", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv", "--nvtx", step).json()
    assert out["gaps"]["positive_gap_count"] == len(want["gaps"])
    assert out["gaps"]["total_ns"] == sum(want["gaps"])
    assert out["launch_api_calls"] == dict(want["calls"])
    classify = run_cli("classify", SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv", "--nvtx", step).json()
    assert classify["kernel_count"] == want["kernels"] == 52
