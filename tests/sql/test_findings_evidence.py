"""The query modules written for the finding rules' evidence, alone on rows given here: host synchronization calls
per device (idle.sync_calls), memory transfers by kind (memory.transfers), kernels shorter than their launch call
(launches.short_kernels) and ncu verdicts per kernel (ncu.by_kernel)."""

from __future__ import annotations

import pytest

from tests.sql.conftest import given, store_rows

A, B = "GPU A", "GPU B"
PROCESSES = [(A, 1), (B, 2)]  # device A is worked by process 1, device B by process 2


def test_sync_calls_per_device_by_its_processes(scope):
    given(scope, "scope.device_processes", ["device", "pid"], PROCESSES)
    given(scope, "scope.api_calls", ["name VARCHAR", "duration_ns", "pid"], [
        ("cudaStreamSynchronize", 30, 1), ("cudaStreamSynchronize", 50, 1), ("cudaDeviceSynchronize_v3020", 100, 1),
        ("cudaLaunchKernel", 500, 1),  # no synchronization call
        ("cuStreamSynchronize", 20, 2), ("cudaEventRecord", 5, 2)])
    assert scope.rows("idle.sync_calls") == [
        {"device": A, "name": "cudaDeviceSynchronize_v3020", "calls": 1, "time_ns": 100, "max_ns": 100},
        {"device": A, "name": "cudaStreamSynchronize", "calls": 2, "time_ns": 80, "max_ns": 50},
        {"device": B, "name": "cuStreamSynchronize", "calls": 1, "time_ns": 20, "max_ns": 20}]


def test_memory_transfers_pageable_and_synchronous(scope):
    given(scope, "scope.device_processes", ["device", "pid"], PROCESSES)
    h2d, d2h, memset = "[CUDA memcpy Host-to-Device]", "[CUDA memcpy Device-to-Host]", "[CUDA memset]"
    d2d = "[CUDA memcpy Device-to-Device]"
    given(scope, "scope.ops", ["op_kind VARCHAR", "device VARCHAR", "name VARCHAR", "corr_id", "duration_ns",
                               "transfer_bytes", "src_mem_kind VARCHAR", "dst_mem_kind VARCHAR"], [
        ("memcpy", A, h2d, 1, 100, 1000, "Pageable", "Device"),  # cudaMemcpy: pageable, synchronous
        ("memcpy", A, h2d, 2, 40, 1000, "Pageable", "Device"),  # cudaMemcpyAsync: pageable, asynchronous
        ("memcpy", A, d2h, 3, 10, 64, "Device", "Pinned"),  # cuMemcpyDtoHAsync_v2: neither
        ("memset", A, memset, 4, 7, 512, None, "Device"),  # cudaMemset of device memory: the host does not wait
        ("memset", A, memset, 6, 3, 512, None, "Managed"),  # cudaMemset of managed memory: it waits
        ("memcpy", A, d2d, 7, 20, 256, "Device", "Device"),  # cudaMemcpy device to device: it does not wait
        ("memcpy", B, h2d, 1, 9, None, None, None),  # B's process has no call with id 1: unknown; no kinds: unknown
        ("kernel", A, "k", 5, 1000, None, None, None)])
    given(scope, "scope.capture_api_calls", ["name VARCHAR", "corr_id", "pid"], [
        ("cudaMemcpy", 1, 1), ("cudaMemcpyAsync", 2, 1), ("cuMemcpyDtoHAsync_v2", 3, 1), ("cudaMemset", 4, 1),
        ("cudaLaunchKernel", 5, 1), ("cuMemsetD32_v2", 6, 1), ("cudaMemcpy", 7, 1), ("cudaMemcpy", 9, 2)])
    assert scope.rows("memory.transfers") == [
        {"device": A, "op_kind": "memcpy", "name": h2d, "pageable": True, "synchronous": True, "operations": 1,
         "time_ns": 100, "bytes": 1000},
        {"device": A, "op_kind": "memcpy", "name": h2d, "pageable": True, "synchronous": False, "operations": 1,
         "time_ns": 40, "bytes": 1000},
        {"device": A, "op_kind": "memcpy", "name": d2d, "pageable": False, "synchronous": False, "operations": 1,
         "time_ns": 20, "bytes": 256},
        {"device": A, "op_kind": "memcpy", "name": d2h, "pageable": False, "synchronous": False, "operations": 1,
         "time_ns": 10, "bytes": 64},
        {"device": A, "op_kind": "memset", "name": memset, "pageable": False, "synchronous": False, "operations": 1,
         "time_ns": 7, "bytes": 512},
        {"device": A, "op_kind": "memset", "name": memset, "pageable": False, "synchronous": True, "operations": 1,
         "time_ns": 3, "bytes": 512},
        {"device": B, "op_kind": "memcpy", "name": h2d, "pageable": None, "synchronous": None, "operations": 1,
         "time_ns": 9, "bytes": None}]


def test_short_kernels_per_device_and_family(scope):
    # device A: gemm 1 [0,100) call 50; gemm 1 [300,330) call 80 (short), the stretch before it has 120 ns of CPU
    # launch; elementwise 2 [500,510) call 40 (short, 30 ns CPU launch before it), 2 [600,605) launched by a graph
    # (left out), 2 [700,701) without a launch row (left out). Device B: elementwise 2 [0,5) call 10 (short, no
    # stretch before it).
    given(scope, "scope.kernels", ["device VARCHAR", "device_index", "start_ns", "duration_ns", "name_id"], [
        (A, 0, 0, 100, 1), (A, 0, 300, 30, 1), (A, 0, 500, 10, 2), (A, 0, 600, 5, 2), (A, 0, 700, 1, 2),
        (B, 1, 0, 5, 2)])
    given(scope, "classify.kernel_families", ["name_id", "family VARCHAR"], [(1, "gemm"), (2, "elementwise")])
    given(scope, "scope.launches", ["device_index", "kernel_start_ns", "api_duration_ns", "api_function VARCHAR"], [
        (0, 0, 50, "cudaLaunchKernel"), (0, 300, 80, "cudaLaunchKernel"), (0, 500, 40, "cuLaunchKernel"),
        (0, 600, 400, "cudaGraphLaunch_v10000"), (1, 0, 10, "cudaLaunchKernel")])
    given(scope, "idle.stretches", ["device VARCHAR", "next_kernel_start_ns", "cpu_launch_ns"], [
        (A, 300, 120), (A, 500, 30), (A, 600, 90), (A, None, 0)])
    assert scope.rows("launches.short_kernels") == [
        {"device": A, "family": "gemm", "kernels": 2, "short_kernels": 1, "short_kernel_ns": 30,
         "launch_call_ns": 80, "cpu_launch_idle_ns": 120},
        {"device": A, "family": "elementwise", "kernels": 1, "short_kernels": 1, "short_kernel_ns": 10,
         "launch_call_ns": 40, "cpu_launch_idle_ns": 30},
        {"device": B, "family": "elementwise", "kernels": 1, "short_kernels": 1, "short_kernel_ns": 5,
         "launch_call_ns": 10, "cpu_launch_idle_ns": 0}]


def test_ncu_verdicts_per_kernel(scope):
    # kernel 'gemm' twice in nsys (3000 ns), profiled twice (SM 20 and 30: median 25; memory 80 and 90: 85):
    # memory-bound; 'copy' profiled once at 10% and 5%: latency-bound; 'idle' never profiled: no row
    given(scope, "scope.kernels", ["name_id", "duration_ns"], [(1, 1000), (1, 2000), (2, 500), (3, 40)])
    given(scope, "classify.kernel_families", ["name_id", "name VARCHAR", "short_name VARCHAR", "family VARCHAR"],
          [(1, "gemm", "gemm", "gemm"), (2, "copy", "copy", "memory"), (3, "idle", "idle", "other")])
    store_rows(scope.con, "ncu_results", ["trace_id", "result_id", "kernel_name"], [(5, 0, "gemm"), (5, 1, "gemm"),
                                                                                    (5, 2, "copy"), (6, 0, "idle")])
    sm, memory = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    duration = "gpu__time_duration.sum"  # gemm's two launches took 1000 and 1400 ns in ncu: median 1200
    store_rows(scope.con, "ncu_metrics", ["trace_id", "result_id", "metric", "metric_key", "base_value"], [
        (5, 0, duration, duration, 1000.0), (5, 1, duration, duration, 1400.0),
        (5, 0, sm, sm, 20.0), (5, 0, memory, memory, 80.0), (5, 1, sm, sm, 30.0), (5, 1, memory, memory, 90.0),
        (5, 2, sm, sm, 10.0), (5, 2, memory, memory, 5.0), (6, 0, sm, sm, 1.0), (6, 0, memory, memory, 1.0)])
    rows = scope.rows("ncu.by_kernel", ncu_traces=[5], latency_below=60.0, bound_at_least=70.0, dominance=1.2)
    assert rows == [
        {"kernel_key": "gemm", "short_name": "gemm", "family": "gemm", "launches": 2, "total_ns": 3000,
         "profiled_launches": 2, "profiled_duration_ns": 1200.0, "sm_throughput_pct": pytest.approx(25.0),
         "memory_throughput_pct": pytest.approx(85.0), "verdict": "memory_bound"},
        {"kernel_key": "copy", "short_name": "copy", "family": "memory", "launches": 1, "total_ns": 500,
         "profiled_launches": 1, "profiled_duration_ns": None, "sm_throughput_pct": 10.0,
         "memory_throughput_pct": 5.0, "verdict": "latency_bound"}]
