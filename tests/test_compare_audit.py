"""compare (captures and A/B/B/A timings) and rules audit, against hand computation."""

from __future__ import annotations

import pytest

from tests.conftest import DATA, GPU_HEADER, kernel_row, write, write_rules

SAGE = "void QuantInt8Kernel<(unsigned int)128>(T6 *)"
NORM = "void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>(int)"
GEMM = "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<MainloopSm120TmaWarpSpecializedBlockScaled>>"


def test_compare_two_captures(tmp_path, run_cli):
    # A: sage2 300 + other 100 + norm 10 = 410 ns; gaps 100 (300->400) and 90 (500->590)
    a = write(tmp_path / "a_cuda_gpu_trace.csv", GPU_HEADER,
              [kernel_row(0, 300, SAGE), kernel_row(400, 100, "k"), kernel_row(590, 10, NORM)])
    # B: sage2 200 + other 100 + gemm 50 = 350 ns; gaps 50 (200->250) and 0
    b = write(tmp_path / "b_cuda_gpu_trace.csv", GPU_HEADER,
              [kernel_row(0, 200, SAGE), kernel_row(250, 100, "k"), kernel_row(350, 50, GEMM)])
    out = run_cli("compare", a, b).json()
    assert out["kernel_time_ms"]["a"] == pytest.approx(410e-6) and out["kernel_time_ms"]["b"] == pytest.approx(350e-6)
    assert out["kernel_time_ms"]["delta_percent"] == pytest.approx(100 * (350 - 410) / 410)
    assert out["speedup"] == pytest.approx(410 / 350)
    sage = out["components"]["sage2"]["milliseconds"]
    assert sage["delta"] == pytest.approx(-100e-6) and sage["delta_percent"] == pytest.approx(-100 / 3)
    assert out["appeared"] == ["nvfp4_gemms"] and out["vanished"] == ["norm_and_rope"]
    # families: QuantInt8Kernel quantization 300 -> 200, the layer norm 1 -> 0 launches, the GEMM 0 -> 1
    families = out["families"]
    assert families["quantization"]["milliseconds"]["delta"] == pytest.approx(-100e-6)
    assert families["normalization"]["launches"] == {"a": 1, "b": 0, "delta": -1, "delta_percent": -100.0}
    assert families["gemm"]["launches"]["a"] == 0 and families["gemm"]["launches"]["b"] == 1
    assert families["other"]["milliseconds"]["delta"] == 0
    assert out["launch_gaps"]["total_ns"] == {"a": 190, "b": 50, "delta": -140, "delta_percent": pytest.approx(
        -140 / 1.9)}
    assert out["gpu_span_ms"]["a"] == pytest.approx(600e-6) and out["gpu_span_ms"]["b"] == pytest.approx(400e-6)
    table = run_cli("compare", a, b, "--format", "table").out
    assert "speedup 1.1714" in table and "appeared: nvfp4_gemms" in table


def test_abba_by_hand(tmp_path, run_cli):
    updates = {"t1": ("before", [9, 10, 11, 20]), "t2": ("after", [9, 8, 7, 20]),
               "t3": ("after", [9, 8.5, 7.5, 20]), "t4": ("before", [9, 10.5, 9.5, 20])}
    lines = [f"{trial},{variant},{i},{s}" for trial, (variant, seconds) in updates.items()
             for i, s in enumerate(seconds, start=1)]
    path = write(tmp_path / "timings.csv", "trial,variant,update,seconds", lines)
    out = run_cli("compare", "--abba", path, "--warmup", "1", "--final", "1").json()
    # kept: before 10, 11, 10.5, 9.5 (mean 10.25); after 8, 7, 8.5, 7.5 (mean 7.75)
    assert out == {
        "design": "ABBA",
        "observations_per_variant": 4,
        "before_seconds_per_update": 10.25,
        "after_seconds_per_update": 7.75,
        "time_reduction_percent_rounded": 24.39,
        "before_update_seconds_range": [9.5, 11.0],
        "after_update_seconds_range": [7.0, 8.5],
        "speedup": pytest.approx(10.25 / 7.75),
        "warmup_updates_excluded_per_trial": 1,
        "final_updates_excluded_per_trial": 1,
    }


def test_abba_bad_input(tmp_path, run_cli):
    bad = write(tmp_path / "t.csv", "trial,variant,seconds", ["1,before,3"])
    result = run_cli("compare", "--abba", bad)
    assert result.code == 2 and "missing update" in result.err
    one_sided = write(tmp_path / "o.csv", "trial,variant,update,seconds", ["1,before,1,3", "1,before,2,3"])
    result = run_cli("compare", "--abba", one_sided, "--warmup", "0", "--final", "0")
    assert result.code == 2 and "'before' and 'after'" in result.err


def test_audit_finds_planted_problems(tmp_path, run_cli):
    rules = write_rules(tmp_path / "rules", {
        "10_wide.sql": "-- component: x | wide\nSELECT name, 'x' AS component, 10 AS priority FROM kernel_names "
                       "WHERE name LIKE 'k_a%'",
        "20_narrow.sql": "-- component: y | narrow\nSELECT name, 'y' AS component, 5 AS priority FROM kernel_names "
                         "WHERE name = 'k_a1'",
        "30_dead.sql": "-- component: z | dead\nSELECT name, 'z' AS component, 1 AS priority FROM kernel_names "
                       "WHERE name = 'nothing_here'",
        "40_context.sql": "-- component: x | by neighbour\nSELECT context_key, 'x' AS component, 3 AS priority "
                          "FROM kernel_contexts WHERE name = 'k_b' AND next_names[1] = 'k_a1'",
    })
    trace = write(tmp_path / "t_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 10, "k_b"), kernel_row(20, 30, "k_a1"), kernel_row(60, 40, "k_a2"),
        kernel_row(110, 200, "zzz"), kernel_row(320, 7, "zzz"), kernel_row(400, 5, "k_b"),
    ])
    out = run_cli("rules", "audit", trace, "--rules", rules).json()
    # unmatched: zzz 207 ns of 292; the second k_b (no k_a1 after it) 5 ns
    assert out["unmatched"]["launches"] == 3
    assert out["unmatched"]["milliseconds"] == pytest.approx(212e-6)
    assert [(n["name"], n["launches"]) for n in out["unmatched"]["top_names"]] == [("zzz", 2), ("k_b", 1)]
    assert out["unmatched"]["by_family"] == {"other": {"milliseconds": pytest.approx(212e-6), "launches": 3,
                                                       "percent_of_unmatched": pytest.approx(100)}}
    assert out["dead_rules"] == ["30_dead.sql"]
    (overlap,) = out["overlapping_names"]
    assert (overlap["name"], overlap["winner_rule_file"], overlap["winner_component"]) == ("k_a1", "20_narrow.sql",
                                                                                           "y")
    assert [m["rule_file"] for m in overlap["matches"]] == ["20_narrow.sql", "10_wide.sql"]
    # the first k_b (10 ns of 292) was decided by the neighbour rule
    assert out["neighbour_rules"]["launches"] == 1
    assert out["neighbour_rules"]["percent_of_kernel_time"] == pytest.approx(100 * 10 / 292)
    # component other holds the unmatched kernels alone here: no rule gives other
    assert out["other_component"] == {"milliseconds": pytest.approx(212e-6), "launches": 3,
                                      "percent_of_kernel_time": pytest.approx(100 * 212 / 292),
                                      "unmatched_milliseconds": pytest.approx(212e-6)}
    table = run_cli("rules", "audit", trace, "--rules", rules, "--format", "table").out
    assert "dead rules: 30_dead.sql" in table
    words = " ".join(table.split())
    assert "no rule matched 0.000 ms (72.60%) in 3 launches, part of component other (0.000 ms, 72.60%" in words


def test_audit_sets_the_unmatched_time_against_component_other(tmp_path, run_cli):
    """A rule that gives k_a2 (40 ns) component other: other is then 40 + the unmatched 212 ns, as classify says."""
    rules = write_rules(tmp_path / "rules", {
        "10_a.sql": "-- component: x | a\nSELECT name, 'x' AS component, 10 AS priority FROM kernel_names "
                    "WHERE name = 'k_a1'",
        "20_other.sql": "-- component: other | left alone\nSELECT name, 'other' AS component, 1 AS priority "
                        "FROM kernel_names WHERE name = 'k_a2'",
    })
    trace = write(tmp_path / "t_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 10, "k_b"), kernel_row(20, 30, "k_a1"), kernel_row(60, 40, "k_a2"),
        kernel_row(110, 200, "zzz"), kernel_row(320, 7, "zzz"),
    ])
    out = run_cli("rules", "audit", trace, "--rules", rules).json()
    assert (out["unmatched"]["launches"], out["unmatched"]["milliseconds"]) == (3, pytest.approx(217e-6))
    assert (out["other_component"]["launches"], out["other_component"]["milliseconds"]) == (4, pytest.approx(257e-6))
    other = run_cli("classify", trace, "--rules", rules).json()["components"]["other"]
    assert (other["launches"], other["milliseconds"]) == (4, pytest.approx(257e-6))


def test_rule_set_version_is_in_every_output(tmp_path, run_cli):
    trace = write(tmp_path / "v_cuda_gpu_trace.csv", GPU_HEADER, [kernel_row(0, 10, SAGE)])
    commands = (["classify"], ["launches"], ["rules", "audit"])
    blocks = [run_cli(*command, trace).json()["rule_set"] for command in commands]
    assert len({block["version"] for block in blocks}) == 1
    assert len({block["families"]["version"] for block in blocks}) == 1


NSYS_ADD = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>>(int, T2, T3)"
NCU_ADD = "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>>(int, T2, T3)"  # the same kernel


@pytest.fixture
def pair(tmp_path):
    """Before: gemm_k 100 + 100, add 50 (nsys spelling), old_k 30 = 280 ns. After: gemm_k 120 + 120, add 50 (ncu
    spelling: the same kernel_key), new_k 40 = 330 ns. Kernel time +50 ns = +17.857%."""
    a = write(tmp_path / "a_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 100, "gemm_k"), kernel_row(200, 100, "gemm_k"), kernel_row(400, 50, NSYS_ADD),
        kernel_row(500, 30, "old_k")])
    b = write(tmp_path / "b_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 120, "gemm_k"), kernel_row(200, 120, "gemm_k"), kernel_row(400, 50, NCU_ADD),
        kernel_row(500, 40, "new_k")])
    return a, b


def test_kernel_deltas_by_hand(pair, run_cli):
    a, b = pair
    kernels = run_cli("compare", a, b).json()["kernels"]
    assert kernels["matched_by"] == "kernel_key"
    assert [(k["name"], k["launches"], k["total_ns"], k["mean_ns"]) for k in kernels["added"]] == [
        ("new_k", 1, 40, 40.0)]
    assert [(k["name"], k["total_ns"]) for k in kernels["removed"]] == [("old_k", 30)]
    (gemm,) = kernels["changed"]  # add is unchanged: its two spellings meet on kernel_key
    assert gemm["name"] == "gemm_k" and gemm["family"] == "gemm"
    assert gemm["total_ns"] == {"a": 200, "b": 240, "delta": 40, "delta_percent": 20.0}
    assert gemm["launches"] == {"a": 2, "b": 2, "delta": 0, "delta_percent": 0.0}
    assert gemm["mean_ns"]["a"] == 100 and gemm["mean_ns"]["b"] == 120
    assert (kernels["changed_count"], kernels["unchanged_count"]) == (1, 1)


@pytest.mark.parametrize(("args", "code", "verdict"), [
    (("--fail-above", "10"), 1, "worse"),        # kernel time +17.9% > 10
    (("--fail-above", "20"), 0, "unchanged"),    # within 20
    (("--fail-above", "10", "--gate-metric", "gpu_span_ms"), 0, "unchanged"),  # span 530 -> 540 ns: +1.9%
])
def test_the_gate(pair, run_cli, args, code, verdict):
    a, b = pair
    out = run_cli("compare", a, b, *args)
    assert out.code == code and out.json()["verdict"] == verdict
    assert out.json()["gate"]["change_percent"] == pytest.approx(
        100 * 50 / 280 if "gpu_span_ms" not in args else 100 * 10 / 530)


def test_the_gate_reads_the_direction_of_the_metric(pair, run_cli):
    """Busy percent is worse when it goes down: A->B busy rises (280/530 -> 330/540), so B->A is worse."""
    a, b = pair
    forward = run_cli("compare", a, b, "--fail-above", "5", "--gate-metric", "kernel_busy_percent").json()
    assert forward["verdict"] == "better"
    backward = run_cli("compare", b, a, "--fail-above", "5", "--gate-metric", "kernel_busy_percent")
    assert backward.code == 1 and backward.json()["verdict"] == "worse"
    assert "verdict" not in run_cli("compare", a, b).json()  # no gate, no verdict


def test_the_same_bytes_twice_are_warned_of(pair, run_cli):
    a, _ = pair
    out = run_cli("compare", a, a)
    assert out.code == 0 and "same bytes" in out.err and out.json()["kernels"]["changed"] == []


def test_one_capture_in_two_forms_compares_unchanged(run_cli):
    """The LLM capture as .sqlite and as CSV: every kernel matched, none changed, the gate at 0% unchanged."""
    folder = DATA / "h200_llm_serve"
    out = run_cli("compare", folder / "llm2.sqlite", folder / "llm2_cuda_gpu_trace.csv", "--fail-above", "0")
    kernels = out.json()["kernels"]
    assert out.code == 0 and out.json()["verdict"] == "unchanged"
    assert (kernels["added"], kernels["removed"], kernels["changed_count"], kernels["unchanged_count"]) == (
        [], [], 0, 39)
