"""Neighbour (context) rules and sub-components, on hand-built streams with hand-computed sums."""

from __future__ import annotations

import pytest

from tests.conftest import GPU_HEADER, kernel_row, write

ABS = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::AbsFunctor<float>, std::array<char *>>(int)"
AMAX = ("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::func_wrapper_t<float,"
        " at::native::MaxNanFunctor<float>>, unsigned int, float, (int)4, (int)4>>(T3)")
DIV = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::DivFunctor<float>>>(int)"  # noqa: E501
FILL = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<unsigned char>, std::array<char *, 1>>(int)"  # noqa: E501
QUANT = "void vllm::cvt_fp16_to_fp4<__nv_bfloat16, (bool)0>(int, int, const T1 *, const float *, unsigned int *)"
GEMM = "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::MainloopSm120TmaWarpSpecializedBlockScaled<(int)3>>>"  # noqa: E501
CAST = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)]>(int)"  # noqa: E501
SILU = "void at::native::vectorized_elementwise_kernel<(int)8, at::native::<unnamed>::silu_kernel(at::TensorIteratorBase &)>(int)"  # noqa: E501
MUL = "void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>>(at::TensorIteratorBase &)>(int)"  # noqa: E501
MEAN = "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)"  # noqa: E501
QUANT_INT8 = "void QuantInt8Kernel<(unsigned int)128, (unsigned int)64, (unsigned int)1>(T6 *)"


def stream(names_and_durations, stream_id, start=0):
    rows, t = [], start
    for name, duration in names_and_durations:
        rows.append(kernel_row(t, duration, name, stream=stream_id))
        t += duration + 10
    return rows


@pytest.fixture
def result(tmp_path, run_cli):
    rows = [
        # stream 1: an eager NVFP4 linear; every generic kernel sits next to the quantization or GEMM
        *stream([(ABS, 100), (AMAX, 200), (DIV, 10), (FILL, 20), (QUANT, 300), (GEMM, 1000), (CAST, 5)], 1),
        # stream 2: the same generic kernels far from any NVFP4 work stay `other` (unassigned)
        *stream([(ABS, 100), (AMAX, 200), (DIV, 10), (FILL, 20), (CAST, 5)], 2, start=10_000),
        # stream 3: SwiGLU halves; a multiply that does not follow a SiLU is not SwiGLU
        *stream([(SILU, 40), (MUL, 60), (MUL, 70)], 3, start=20_000),
        # stream 4: a mean reduction before QuantInt8 stays norm_and_rope (seed policy)
        *stream([(MEAN, 50), (QUANT_INT8, 80)], 4, start=30_000),
    ]
    trace = write(tmp_path / "ctx_cuda_gpu_trace.csv", GPU_HEADER, rows)
    out = run_cli("classify", trace)
    assert out.code == 0, out.err
    return out.json()["components"]


def subs(component):
    return {name: (v["milliseconds"] * 1e6, v["launches"]) for name, v in component["sub_components"].items()}


def test_nvfp4_neighbours_become_packing(result):
    packing = result["nvfp4_packing"]
    assert subs(packing) == {
        "activation_pack": (pytest.approx(300), 1),
        "absmax_partial": (pytest.approx(300), 2),      # abs 100 + amax 200
        "block_scale_zero": (pytest.approx(20), 1),
        "scale_finalize": (pytest.approx(10), 1),
        "small_scale_conversion": (pytest.approx(5), 1),
    }
    assert packing["launches"] == 6 and packing["milliseconds"] == pytest.approx(635e-6)
    assert subs(result["nvfp4_gemms"]) == {"gemm": (pytest.approx(1000), 1)}


def test_other_sub_components_sum_to_the_component(result):
    other = result["other"]
    # stream 2: 100 + 200 + 10 + 20 + 5 = 335 unassigned, stream 3: silu 40, multiply 60, lone multiply 70
    assert subs(other) == {
        "swiglu_multiply": (pytest.approx(60), 1),
        "swiglu_silu": (pytest.approx(40), 1),
        "unassigned": (pytest.approx(405), 6),
    }
    assert other["launches"] == 8 and other["milliseconds"] == pytest.approx(505e-6)


def test_mean_reduction_stays_in_norm(result):
    assert result["norm_and_rope"]["launches"] == 1
    assert result["sage2"]["launches"] == 1
    assert "sub_components" not in result["sage2"]
