"""scope.host_calls, scope.summary_kernels and audit.unmatched alone: counts from the API trace, from the nsys stats
summaries, or unknown; the time no component rule matched against component 'other'."""

from __future__ import annotations

from tests.sql.conftest import given, store_rows

CALLS = [("cudaLaunchKernel",), ("cudaLaunchKernelExC_v11060",), ("cuLaunchKernel",), ("cudaGraphLaunch_v10000",),
         ("cudaDeviceSynchronize",), ("cudaStreamSynchronize_v3020",), ("cudaMemcpyAsync",), ("cudaEventRecord",)]
SUMMARY = [(7, "cudaLaunchKernel", 40), (7, "cudaDeviceSynchronize", 38), (7, "cudaMalloc", 3),
           (8, "cudaLaunchKernel", 1)]  # trace 8: another capture's summary


def give_devices(scope, calls) -> None:
    """Device A worked by process 1, B by process 2; `calls` (name, pid)."""
    given(scope, "scope.ops", ["device VARCHAR"], [("A",), ("B",)])
    given(scope, "scope.device_processes", ["device VARCHAR", "pid"], [("A", 1), ("B", 2)])
    given(scope, "scope.api_calls", ["name VARCHAR", "pid"], calls)


def test_counted_from_the_api_trace_per_device(scope):
    """Process 1 (A): 4 launch calls (the graph replay one of them), 2 synchronizations; process 2 (B): one launch.
    The summary is not read then."""
    scope.values.update(api_trace=3, api_summary=7)
    give_devices(scope, [(name, 1) for (name,) in CALLS] + [("cudaLaunchKernel", 2)])
    store_rows(scope.con, "api_summary", ["trace_id", "name", "calls"], SUMMARY)
    assert scope.rows("scope.host_calls") == [
        {"device": "A", "launch_calls": 4, "host_sync_calls": 2, "counted_from": "api_trace", "synchronized": True},
        {"device": "B", "launch_calls": 1, "host_sync_calls": 0, "counted_from": "api_trace", "synchronized": False}]


def test_counted_from_the_summary_without_a_trace(scope):
    """The summary names no process: every device gets its counts."""
    scope.values.update(api_summary=7)
    give_devices(scope, [])
    store_rows(scope.con, "api_summary", ["trace_id", "name", "calls"], SUMMARY)
    assert scope.rows("scope.host_calls") == [
        {"device": d, "launch_calls": 40, "host_sync_calls": 38, "counted_from": "api_summary", "synchronized": True}
        for d in "AB"]


def test_unknown_without_either(scope):
    give_devices(scope, [])
    assert scope.rows("scope.host_calls") == [
        {"device": d, "launch_calls": None, "host_sync_calls": None, "counted_from": None, "synchronized": None}
        for d in "AB"]


def test_summary_kernels_against_the_trace(scope):
    """The summary's instances summed (trace 9), against the cuda_gpu_trace's kernels (trace 1: a memcpy is none)."""
    store_rows(scope.con, "kernel_summary", ["trace_id", "name", "instances"], [(9, "a", 3), (9, "b", 2), (10, "a", 9)])
    store_rows(scope.con, "gpu_ops", ["trace_id", "start_ns", "duration_ns", "op_kind", "name"],
               [(1, 0, 10, "kernel", "a"), (1, 20, 10, "kernel", "b"), (1, 40, 10, "memcpy", "m"),
                (2, 0, 10, "kernel", "a")])
    assert scope.rows("scope.summary_kernels") == [{"summary_kernels": None, "traced_kernels": 2}]
    scope.values.update(kernel_summary=9)
    assert scope.rows("scope.summary_kernels") == [{"summary_kernels": 5, "traced_kernels": 2}]


def test_unmatched_kernels_are_part_of_component_other(scope):
    """Kernels 1 and 2 no rule matched (other), 3 a rule gave other, 4 a rule gave x: unmatched 100 + 40 of the
    other's 100 + 40 + 7; the names by time."""
    given(scope, "scope.kernels", ["context_key UBIGINT", "name_id", "duration_ns"],
          [(1, 1, 100), (2, 2, 40), (3, 3, 7), (4, 4, 1000)])
    given(scope, "scope.names", ["name_id", "name VARCHAR"], [(1, "k1"), (2, "k2"), (3, "k3"), (4, "k4")])
    given(scope, "classify.kernel_classes", ["context_key UBIGINT", "component VARCHAR", "rule_file VARCHAR"],
          [(1, "other", None), (2, "other", None), (3, "other", "60_other.sql"), (4, "x", "10_x.sql")])
    rows = scope.rows("audit.unmatched", top=10)
    assert [(r["name"], r["launches"], r["time_ns"]) for r in rows] == [("k1", 1, 100), ("k2", 1, 40)]
    assert {(r["unmatched_time_ns"], r["unmatched_launches"], r["other_time_ns"], r["other_launches"])
            for r in rows} == {(140, 2, 147, 3)}
