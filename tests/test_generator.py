"""A generated capture of one DiT block's launch mix classifies back to exactly those counts."""

from __future__ import annotations

import pytest

from tools.gen_trace import DIT_BLOCK, DIT_BLOCK_MEMOPS, dit_blocks


def test_generated_block_classifies_back_to_its_counts(tmp_path, run_cli):
    truth = dit_blocks(tmp_path)
    out = run_cli("classify", truth.gpu_trace).json()
    assert {c: v["launches"] for c, v in out["components"].items()} == {c: n for c, (n, _) in DIT_BLOCK.items()}
    assert {c: v["launches"] for c, v in out["components"].items()} == dict(truth.launches)
    assert out["kernel_count"] == 2744
    assert out["gpu_operation_count"] == 2744 + DIT_BLOCK_MEMOPS == 2803
    assert out["gpu_span_ns"] == truth.last_end_ns - truth.first_start_ns
    for component, ns in truth.time_ns.items():
        assert out["components"][component]["milliseconds"] == pytest.approx(ns / 1e6)
    # the generator never overlaps kernels: one positive gap before every kernel but the first
    assert out["launch_gaps"]["positive_gap_count"] == 2743
    # its launch calls all end before their kernel starts, so nothing overlaps them except earlier kernels
    assert 0 <= out["cpu_gpu_overlap"]["launch_api_overlap_percent"] <= 100
