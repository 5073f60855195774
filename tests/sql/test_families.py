"""The kernel-family rules (sql/families/) and the classify.kernel_families module, alone on given names.

The golden corpus (tests/data/kernel_families/corpus.tsv) holds a few hundred real kernel names, each labelled with
its family by hand (its README says where the names come from and which labels were doubtful)."""

from __future__ import annotations

import csv
import sqlite3
from dataclasses import replace

import pytest

from nsight_ingest.rules import load_family_set
from tests.conftest import DATA
from tests.sql.conftest import given

CORPUS = DATA / "kernel_families" / "corpus.tsv"


def corpus() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def families_of(scope, names: list[str]) -> dict[str, str]:
    """Each name's family from the bundled family rules, through the module."""
    scope.context = replace(scope.context, family_set=load_family_set())
    given(scope, "scope.names", ["name", "name_id"], [(n, i) for i, n in enumerate(names, start=1)])
    scope.build("classify.kernel_families")
    return dict(scope.con.execute("SELECT name, family FROM kernel_families").fetchall())


def test_golden_corpus(scope):
    """Every labelled name gets its family."""
    labelled = corpus()
    assert len(labelled) >= 300
    got = families_of(scope, [row["name"] for row in labelled])
    wrong = [(row["family"], got[row["name"]], row["name"]) for row in labelled if got[row["name"]] != row["family"]]
    assert wrong == []


def test_corpus_covers_every_family():
    """Each family has names in the corpus (a rule no name exercises is untested)."""
    counts = {family: 0 for family, _ in load_family_set().classes()}
    for row in corpus():
        counts[row["family"]] += 1
    assert all(count >= 5 for count in counts.values()), counts


@pytest.mark.parametrize(("name", "family"), [
    # a Triton kernel is placed by its prefix, not by the op names fused into it ...
    ("triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_clone_expand_4", "elementwise"),
    ("triton_red_fused__softmax__to_copy__unsafe_view_argmax_exp_sub_18", "reduction"),
    ("triton_per_fused__to_copy__unsafe_view_prepare_softmax_online_17", "reduction"),
    # ... except a fused normalization and a matmul template
    ("triton_red_fused__fused_rms_norm__unsafe_view_add_embedding_8", "normalization"),
    ("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0", "normalization"),
    ("triton_tem_fused_addmm_0", "gemm"),
    # random numbers are no normalization
    ("void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<unsigned int, (int)4>(long, T3)",
     "random"),
    ("void at::native::normal_kernel<float>(at::TensorBase const&, double, double, at::CUDAGeneratorImpl*)",
     "random"),
    # PyTorch's elementwise template by its functor: a copy or fill is memory, arithmetic is elementwise
    ("void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::"
     "direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]>(at::TensorIteratorBase &, "
     "const T1 &)::[lambda(int) (instance 1)]>(int, T3)", "memory"),
    ("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)",
     "memory"),
    ("void at::vectorized_elementwise_kernel<8, at::CUDAFunctor_add<c10::BFloat16>, std::array<char *, 3>>"
     "(int, T2, T3)", "elementwise"),
    # the range of nsys's :nvtx-name mode names no kernel
    ("attention_simulation/ampere_sgemm_128x64_nn", "gemm"),
    ("layer_norm/void at::native::<unnamed>::softmax_warp_forward<float>(T2 *, const T1 *, int)", "reduction"),
    ("model/layer_norm/nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "gemm"),  # nested ranges
    ("aten::_scaled_dot_product_efficient_attention, seq = 3, sizes = [[1, 8]]/void at::native::elementwise_kernel<"
     "(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
     "TensorIteratorBase &)>>(int, T3)", "memory"),  # a torch emit_nvtx range holds ( [ and ,
    # the same kernel in nsys's :base mode
    ("vectorized_layer_norm_kernel", "normalization"),
    # an application kernel that fits no family is honestly other
    ("likelihood_kernel(double *, double *, double *, double *, int *, int, int, int)", "other"),
])
def test_pitfalls(scope, name, family):
    """The known pitfalls of matching names to families."""
    assert families_of(scope, [name]) == {name: family}


def test_short_names_match_nsys(scope):
    """kernel_short_name gives what nsys itself stores as a kernel's short name (StringIds of shortName), on
    every kernel of the exports in tests/data; and the :nvtx-name range is no part of it."""
    pairs = set()
    for path in [DATA / "h200_llm_serve" / "llm2.sqlite", *sorted((DATA / "multi_rank").glob("*.sqlite"))]:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as export:
            pairs |= set(export.execute(
                "SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "JOIN StringIds d ON d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName").fetchall())
    pairs.add(("attention_simulation/void <unnamed>::softmax_warp_forward<float, (int)11>(T2 *, const T1 *, int)",
               "softmax_warp_forward"))
    assert len(pairs) > 60
    got = dict(scope.con.execute("SELECT name, kernel_short_name(name) FROM (SELECT unnest($names) AS name)",
                                 {"names": [full for full, _ in pairs]}).fetchall())
    assert {full: got[full] for full, _ in pairs} == dict(pairs)


@pytest.mark.parametrize(("name", "short"), [
    ("request 1/decode 3/nvjet_sm90_tst_64x8", "nvjet_sm90_tst_64x8"),
    ("sizes = [[1, 8]], op (x)/void at::native::reduce_kernel<(int)512, (int)1>(T3)", "reduce_kernel"),
    ("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, (bool)0>(T1)", "kernel"),
    ("void bar(int (*)(int (*)(int)))", "void bar(int (*)(int (*)(int)))"),  # no identifier to give: whole
])
def test_short_name_edge_cases(scope, name, short):
    assert scope.con.execute("SELECT kernel_short_name(?)", [name]).fetchone()[0] == short


def test_winner_and_record(scope):
    """The lowest priority wins (ties by file order); unmatched names are other; each name's family is recorded
    in the store under the family-set version."""
    got = families_of(scope, ["nvjet_tst_64x8_TNT", "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_kernel0_0",
                              "mystery_kernel"])
    assert got == {"nvjet_tst_64x8_TNT": "gemm",
                   "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_kernel0_0": "attention",
                   "mystery_kernel": "other"}
    version = scope.context.family_set.version
    assert scope.con.execute("SELECT name, family, rule_file, match_count FROM name_families "
                             "WHERE family_set_version = $v ORDER BY name", {"v": version}).fetchall() == [
        # sdpa names also hold 'fprop' (convolution, priority 15): attention (10) wins; two rules matched
        ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_kernel0_0", "attention", "02_attention.sql", 2),
        ("mystery_kernel", "other", None, 0),
        ("nvjet_tst_64x8_TNT", "gemm", "01_gemm.sql", 1),
    ]


def test_launches_by_family(scope):
    """Each launch row goes to the family of the kernel of its device starting at its kernel start; a call counts
    once per family it launched.

    gemm (name 1): kernels at 100 (device 0), 300 (device 1) and 400, 500 (device 0, both from one graph launch of
    call 40 at t=90, which also launched the attention kernel at 600); attention (name 2): kernels at 200 and 600.
    Rows: 100/dev 0 call 10 queue 5; 300/dev 1 call 30; 200/dev 0 call 20 queue 7; 300/dev 0: no kernel of device 0
    starts at 300, left out; the graph's rows at 400, 500, 600 share its call (40 ns) and queue 1, 2, 3.
    gemm: 4 launches, 3 calls (10, 30, 40: total 80, p50 30, p90 38, max 40), 3 queued (5, 1, 2: total 8);
    attention: 2 launches, 2 calls (20, 40: total 60), queued 7 and 3."""
    given(scope, "scope.kernels", ["device_index", "start_ns", "name_id"],
          [(0, 100, 1), (1, 300, 1), (0, 200, 2), (0, 400, 1), (0, 500, 1), (0, 600, 2)])
    given(scope, "scope.launches",
          ["pid", "tid", "api_start_ns", "api_duration_ns", "queue_duration_ns", "kernel_start_ns", "device_index"],
          [(1, 1, 0, 10, 5, 100, 0), (1, 1, 20, 30, None, 300, 1), (1, 1, 60, 20, 7, 200, 0),
           (1, 1, 85, 99, 1, 300, 0),
           (1, 1, 90, 40, 1, 400, 0), (1, 1, 90, 40, 2, 500, 0), (1, 1, 90, 40, 3, 600, 0)])
    given(scope, "classify.kernel_families", ["name_id", "family"], [(1, "gemm"), (2, "attention")])
    rows = {r["family"]: r for r in scope.rows("launches.by_family")}
    assert {f: (r["launches"], r["calls"], r["api_total_ns"], r["queued_kernels"], r["queue_total_ns"])
            for f, r in rows.items()} == {"gemm": (4, 3, 80, 3, 8), "attention": (2, 2, 60, 2, 10)}
    assert rows["gemm"]["api"] == {"p50_ns": 30, "p90_ns": pytest.approx(38), "p99_ns": pytest.approx(39.8),
                                   "max_ns": 40}
    assert rows["gemm"]["queue"]["max_ns"] == 5 and rows["attention"]["queue"]["p50_ns"] == 5


def test_gaps_by_family_pair(scope):
    """Positive gaps only, by the families of the kernels around them (contexts 11, 12 are gemm; 13 reduction)."""
    given(scope, "launches.kernel_gaps", ["context_key UBIGINT", "before_key UBIGINT", "gap_ns"],
          [(11, None, None), (12, 11, 50), (13, 12, 20), (11, 13, -5), (12, 13, 0), (13, 11, 30)])
    given(scope, "classify.kernel_classes", ["context_key UBIGINT", "name"],
          [(11, "g1"), (12, "g2"), (13, "r")])
    given(scope, "classify.kernel_families", ["name", "family"], [("g1", "gemm"), ("g2", "gemm"), ("r", "reduction")])
    assert scope.rows("launches.gaps_by_family_pair") == [
        {"before_family": "gemm", "after_family": "gemm", "gaps": 1, "total_ns": 50},
        {"before_family": "gemm", "after_family": "reduction", "gaps": 2, "total_ns": 50},
    ]


def test_unmatched_families(scope):
    """The families of the kernels no component rule matched (rule_file NULL)."""
    given(scope, "scope.kernels", ["context_key UBIGINT", "name_id", "duration_ns"],
          [(1, 1, 100), (2, 2, 40), (2, 2, 60), (3, 3, 5)])
    given(scope, "classify.kernel_classes", ["context_key UBIGINT", "rule_file"], [(1, None), (2, None), (3, "x.sql")])
    given(scope, "classify.kernel_families", ["name_id", "family"], [(1, "gemm"), (2, "memory"), (3, "memory")])
    assert scope.rows("audit.unmatched_families") == [
        {"family": "gemm", "launches": 1, "time_ns": 100}, {"family": "memory", "launches": 2, "time_ns": 100}]
