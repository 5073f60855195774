"""Kernel families and top kernels from the CLI: a hand-built trace whose answers are worked out by hand, and the
H200 LLM-serving capture checked against plain SQL over its export."""

from __future__ import annotations

import sqlite3
import statistics
from collections import defaultdict

import duckdb
import pytest

from tests.conftest import DATA, GPU_HEADER, kernel_row, write, write_rules

A, B = "GPU A (0)", "GPU B (1)"

# `scale` is a prologue when a GEMM follows it on its stream (a context rule), else `other`: one name, two components.
RULES = {
    "10_compute.sql": "-- component: compute | GEMMs\nSELECT name, 'compute' AS component, 10 AS priority "
                      "FROM kernel_names WHERE name LIKE 'gemm%'\n",
    "20_prologue.sql": "-- component: prologue | a scale right before a GEMM\nSELECT context_key, 'prologue' AS "
                       "component, 5 AS priority FROM kernel_contexts WHERE name = 'scale' AND next_names[1] = "
                       "'gemm_a'\n",
}


def stream(kernels: list[tuple[str, int]], device: str, stream_id: int, start: int) -> list[str]:
    rows, t = [], start
    for name, duration in kernels:
        rows.append(kernel_row(t, duration, name, device=device, stream=stream_id))
        t += duration + 10
    return rows


@pytest.fixture
def hand_built(tmp_path, run_cli):
    """A: scale 10 (prologue: gemm_a next), gemm_a 100, scale 30 (other: tie_x next), tie_x 60.
    B: gemm_a 200, tie_y 60, scale 50 (prologue), gemm_a 100.

    Whole: gemm_a 400 ns (3 launches: 100, 200, 100; median 100, mean 133.3; compute); scale 90 (10, 30, 50:
    prologue 60, other 30, so prologue); tie_x 60 and tie_y 60 tie: by name. Kernel time 610.
    A (200 ns): gemm_a 100, tie_x 60, scale 40 (prologue 10, other 30: other). B (410 ns): gemm_a 300 (median
    150), tie_y 60, scale 50 (prologue)."""
    rows = [*stream([("scale", 10), ("gemm_a", 100), ("scale", 30), ("tie_x", 60)], A, 1, 0),
            *stream([("gemm_a", 200), ("tie_y", 60), ("scale", 50), ("gemm_a", 100)], B, 1, 0)]
    trace = write(tmp_path / "hand_cuda_gpu_trace.csv", GPU_HEADER, rows)
    rules = write_rules(tmp_path / "rules", RULES)

    def classify(*extra: str) -> dict:
        out = run_cli("classify", str(trace), "--rules", str(rules), *extra)
        assert out.code == 0, out.err
        return out.json()

    return classify


def entry(name, component, components, family, launches, total, mean, median, low, high, share, devices):
    return {"name": name, "short_name": name, "kernel_key": name, "component": component,
            "components": components, "family": family, "launches": launches, "total_ns": total,
            "mean_ns": pytest.approx(mean), "median_ns": pytest.approx(median), "min_ns": low, "max_ns": high,
            "percent_of_kernel_time": pytest.approx(share), "devices": devices}


def test_top_kernels_by_hand(hand_built):
    result = hand_built("--top", "3")
    assert result["top_kernels"] == [
        entry("gemm_a", "compute", {"compute": 400}, "gemm", 3, 400, 400 / 3, 100, 100, 200, 400 / 6.1, [A, B]),
        entry("scale", "prologue", {"prologue": 60, "other": 30}, "other", 3, 90, 30, 30, 10, 50, 90 / 6.1, [A, B]),
        entry("tie_x", "other", {"other": 60}, "other", 1, 60, 60, 60, 60, 60, 60 / 6.1, [A]),
    ]
    assert result["devices"][A]["top_kernels"] == [
        entry("gemm_a", "compute", {"compute": 100}, "gemm", 1, 100, 100, 100, 100, 100, 50, [A]),
        entry("tie_x", "other", {"other": 60}, "other", 1, 60, 60, 60, 60, 60, 30, [A]),
        entry("scale", "other", {"other": 30, "prologue": 10}, "other", 2, 40, 20, 20, 10, 30, 20, [A]),
    ]
    assert result["devices"][B]["top_kernels"] == [
        entry("gemm_a", "compute", {"compute": 300}, "gemm", 2, 300, 150, 150, 100, 200, 300 / 4.1, [B]),
        entry("tie_y", "other", {"other": 60}, "other", 1, 60, 60, 60, 60, 60, 60 / 4.1, [B]),
        entry("scale", "prologue", {"prologue": 50}, "other", 1, 50, 50, 50, 50, 50, 50 / 4.1, [B]),
    ]
    assert [k["name"] for k in hand_built()["top_kernels"]] == ["gemm_a", "scale", "tie_x", "tie_y"]  # default 10


def test_families_by_hand(hand_built):
    """The family split, zeros included in the family rules' order, and within each component."""
    result = hand_built()
    families = result["families"]
    assert list(families) == ["gemm", "attention", "communication", "normalization", "elementwise", "reduction",
                              "memory", "quantization", "convolution", "sort", "random", "other"]
    assert {f: (v["milliseconds"] * 1e6, v["launches"]) for f, v in families.items() if v["launches"]} == {
        "gemm": (pytest.approx(400), 3), "other": (pytest.approx(210), 5)}
    assert families["gemm"]["percent_of_kernel_time"] == pytest.approx(400 / 6.1)
    within = {c: {f: v["milliseconds"] * 1e6 for f, v in entry["families"].items() if v["launches"]}
              for c, entry in result["components"].items()}
    assert within == {"compute": {"gemm": pytest.approx(400)}, "prologue": {"other": pytest.approx(60)},
                      "other": {"other": pytest.approx(150)}}
    assert result["components"]["prologue"]["families"]["other"]["percent_of_kernel_time"] == pytest.approx(100)
    assert {f: v["launches"] for f, v in result["devices"][B]["families"].items() if v["launches"]} == {
        "gemm": 2, "other": 2}
    assert result["family_policy"]["other"] == "all unmatched kernels"


def test_table_shows_families_and_top_kernels(hand_built, run_cli, tmp_path):
    out = run_cli("classify", str(tmp_path / "hand_cuda_gpu_trace.csv"), "--rules", str(tmp_path / "rules"),
                  "--format", "table")
    assert out.code == 0, out.err
    assert "kernel families" in out.out and "top kernels" in out.out
    assert "gemm_a" in out.out and "tie_y" in out.out


LLM = DATA / "h200_llm_serve" / "llm2.sqlite"


def _plain_kernels() -> list[tuple[str, int]]:
    """(name, duration) of every kernel of the LLM capture, by plain SQL over the export."""
    with sqlite3.connect(f"{LLM.resolve().as_uri()}?mode=ro", uri=True) as export:
        return export.execute("SELECT s.value, k.\"end\" - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                              "JOIN StringIds s ON s.id = k.demangledName").fetchall()


def test_llm_capture_families_against_plain_sql(run_cli, tmp_path):
    """At most 5% of the LLM capture's kernel time is `other`; each family's time is the sum, over the names the
    store says are of it, of their durations in the export."""
    db = tmp_path / "store.duckdb"
    out = run_cli("classify", str(LLM), "--db", str(db))
    assert out.code == 0, out.err
    result = out.json()
    kernels = _plain_kernels()
    total = sum(d for _, d in kernels)
    assert result["kernel_time_ns"] == total
    with duckdb.connect(str(db), read_only=True) as con:
        family_of = dict(con.execute("SELECT name, family FROM name_families WHERE family_set_version = ?",
                                     [result["rule_set"]["families"]["version"]]).fetchall())
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, duration in kernels:
        expected[family_of[name]][0] += duration
        expected[family_of[name]][1] += 1
    got = {f: [round(v["milliseconds"] * 1e6), v["launches"]] for f, v in result["families"].items() if v["launches"]}
    assert got == dict(expected)
    assert expected["other"][0] <= 0.05 * total
    assert expected["gemm"][0] > 0.5 * total and expected["attention"][0] > 0  # nvjet GEMMs, cuDNN SDPA


def test_llm_capture_top_kernels_against_plain_sql(run_cli):
    result = run_cli("classify", str(LLM), "--top", "5").json()
    by_name: dict[str, list[int]] = defaultdict(list)
    for name, duration in _plain_kernels():
        by_name[name].append(duration)
    ranked = sorted(by_name, key=lambda n: (-sum(by_name[n]), n))[:5]
    assert [k["name"] for k in result["top_kernels"]] == ranked
    for kernel in result["top_kernels"]:
        durations = by_name[kernel["name"]]
        assert (kernel["launches"], kernel["total_ns"], kernel["min_ns"], kernel["max_ns"]) == (
            len(durations), sum(durations), min(durations), max(durations))
        assert kernel["median_ns"] == pytest.approx(statistics.median(durations))
        assert kernel["mean_ns"] == pytest.approx(statistics.mean(durations))


MUL = ("void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::"
       "BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>>"
       "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)")
SILU = ("void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::"
        "<unnamed>::silu_kernel(at::TensorIteratorBase &)::[lambda() (instance 1)]>(at::TensorIteratorBase &, "
        "const T1 &)::[lambda(int) (instance 1)]>(int, T3)")


def test_kernel_labels():
    """A label names the functor of a generic template, is the same whatever else the table holds, and two
    different kernels never share one (a short hash tells them apart); one kernel listed twice keeps its label."""
    from nsight_ingest.text import kernel_labels

    short = "elementwise_kernel"
    assert kernel_labels([MUL, SILU, "nvjet_x"], [short, short, "nvjet_x"]) == [
        "elementwise_kernel<MulFunctor>", "elementwise_kernel<silu_kernel>", "nvjet_x"]
    assert kernel_labels([SILU], [short]) == ["elementwise_kernel<silu_kernel>"]
    float_mul = MUL.replace("c10::BFloat16", "float")
    labels = kernel_labels([MUL, float_mul, MUL], [short] * 3)
    assert labels[0] != labels[1] and labels[0] == labels[2]
    assert all(label.startswith("elementwise_kernel<MulFunctor> #") for label in labels)


def test_a_device_with_memory_operations_alone(tmp_path, run_cli):
    """A device (or a window) with GPU operations but no kernel: zero in every family, no top kernels."""
    from tests.conftest import memop_row

    trace = write(tmp_path / "m_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, "nvjet_a", device=A), memop_row(0, 50, "[CUDA memset]", device=B),
        memop_row(500, 50, "[CUDA memset]", device=A)])
    out = run_cli("classify", str(trace))
    assert out.code == 0, out.err
    only_memset = out.json()["devices"][B]
    assert only_memset["top_kernels"] == [] and not any(f["launches"] for f in only_memset["families"].values())
    window = run_cli("classify", str(trace), "--range", "500:560")  # the second memset alone
    assert window.code == 0, window.err
    assert window.json()["top_kernels"] == [] and window.json()["gpu_operation_count"] == 1
