"""onnxruntime's com.microsoft quantized ops (`ge_frontend/onnx_microsoft.py`)
through ge-atc and ge-run (the JIT and the reference evaluator) against
onnxruntime: one-node models of uint8 and int8, odd sizes, zero points at
both ends of the range, results saturating; integer outputs exact.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    onnxruntime_outputs,
    with_output_types,
)


def contrib_model(
    op_type: str,
    inputs: dict[str, np.ndarray],
    constants: dict[str, np.ndarray],
    order: list[str],
    outputs: int = 1,
    **attributes: object,
) -> onnx.ModelProto:
    """One com.microsoft `op_type` node reading `order` (names of `inputs`,
    graph inputs, and `constants`, initializers; "" an omitted input)."""
    graph = helper.make_graph(
        [
            helper.make_node(
                op_type, order, [f"y{k}" for k in range(outputs)],
                domain="com.microsoft", **attributes,
            )
        ],
        op_type,
        [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for name, a in inputs.items()
        ],
        [helper.make_empty_tensor_value_info(f"y{k}") for k in range(outputs)],
        [numpy_helper.from_array(a, name) for name, a in constants.items()],
    )  # fmt: skip
    return helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", 17),
            helper.make_opsetid("com.microsoft", 1),
        ],
        ir_version=9,
    )


def quantized(dtype: str, shape, seed: int) -> np.ndarray:
    """Random values over all of `dtype`'s range."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


def params(scale: float, zero_point: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    return np.array(scale, np.float32), np.array(zero_point, dtype)


DTYPES = ["uint8", "int8"]


def zero_points(dtype: str) -> tuple[int, int, int]:
    """Zero points for a, b and y: off centre, one at the range's end."""
    return (7, 250, 128) if dtype == "uint8" else (-100, 127, 3)


@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_qlinear_binary_ops_match_onnxruntime(op, dtype, tmp_path):
    """Broadcasting [3, 1, 7] with [5, 7]; some results saturate."""
    za, zb, zy = zero_points(dtype)
    a, b = quantized(dtype, (3, 1, 7), 1), quantized(dtype, (5, 7), 2)
    sa, za = params(0.05, za, dtype)
    sb, zb = params(0.031, zb, dtype)
    sy, zy = params(0.03 if op == "QLinearAdd" else 0.2, zy, dtype)
    model = contrib_model(
        op, {"a": a, "b": b},
        {"sa": sa, "za": za, "sb": sb, "zb": zb, "sy": sy, "zy": zy},
        ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
    )  # fmt: skip
    (expected,) = onnxruntime_outputs(model, {"a": a, "b": b})
    info = np.iinfo(dtype)
    assert {info.min, info.max} & set(expected.ravel().tolist())
    assert_runs_on_the_jit(model, {"a": a, "b": b}, tmp_path)


@pytest.mark.parametrize("dtype", DTYPES)
def test_qlinear_sigmoid_and_concat_match_onnxruntime(dtype, tmp_path):
    """Sigmoid over every value of the dtype; Concat of three inputs with
    their own scales (one the output's: copied) along axis 1."""
    values = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    x = values.reshape(2, 128)
    sx, zx = params(0.043, zero_points(dtype)[0], dtype)
    sy, zy = params(1 / 255, 0 if dtype == "uint8" else -128, dtype)
    model = contrib_model(
        "QLinearSigmoid", {"x": x}, {"sx": sx, "zx": zx, "sy": sy, "zy": zy},
        ["x", "sx", "zx", "sy", "zy"],
    )  # fmt: skip
    assert_runs_on_the_jit(model, {"x": x}, tmp_path / "sigmoid")
    parts = {f"x{k}": quantized(dtype, (2, 3 + k, 5), 10 + k) for k in range(3)}
    constants = {"sy": np.array(0.1, np.float32), "zy": zy}
    order = ["sy", "zy"]
    for k, scale in enumerate((0.1, 0.037, 0.5)):
        constants[f"s{k}"], constants[f"z{k}"] = params(scale, k * 9, dtype)
        order += [f"x{k}", f"s{k}", f"z{k}"]
    constants["z0"] = zy  # input 0 has the output's scale and zero point
    model = contrib_model("QLinearConcat", parts, constants, order, axis=1)
    assert_runs_on_the_jit(model, parts, tmp_path / "concat")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_qlinear_global_average_pool_matches_onnxruntime(
    dtype, channels_last, tmp_path
):
    """A 13 x 11 image of 5 channels (143 terms a sum)."""
    shape = (2, 13, 11, 5) if channels_last else (2, 5, 13, 11)
    x = quantized(dtype, shape, 3)
    sx, zx = params(0.2, zero_points(dtype)[0], dtype)
    sy, zy = params(0.09, zero_points(dtype)[2], dtype)
    model = contrib_model(
        "QLinearGlobalAveragePool", {"x": x},
        {"sx": sx, "zx": zx, "sy": sy, "zy": zy},
        ["x", "sx", "zx", "sy", "zy"], channels_last=channels_last,
    )  # fmt: skip
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize("b_dtype", ["uint8", "int8"])
@pytest.mark.parametrize("requantize", [True, False])
def test_qgemm_matches_onnxruntime(b_dtype, requantize, tmp_path):
    """uint8 A (transposed) [300, 7] times B^T [300, 9] (a per-column scale
    and zero point when B is int8), an int32 bias, alpha; a uint8 result
    or (without y_scale) a float one."""
    a = quantized("uint8", (300, 7), 4)
    b = quantized(b_dtype, (9, 300), 5)
    rng = np.random.default_rng(6)
    per_column = b_dtype == "int8"
    constants = {
        "sa": np.array(0.02, np.float32), "za": np.array(131, np.uint8),
        "sb": (rng.uniform(0.001, 0.01, 9) if per_column else np.array(0.004))
        .astype(np.float32),
        "zb": np.zeros(9, np.int8) if per_column else np.array(3, np.uint8),
        "c": rng.integers(-5000, 5000, 9).astype(np.int32),
    }  # fmt: skip
    order = ["a", "sa", "za", "b", "sb", "zb", "c"]
    if requantize:
        constants |= {"sy": np.array(0.4, np.float32), "zy": np.array(100, np.uint8)}
        order += ["sy", "zy"]
    model = contrib_model(
        "QGemm", {"a": a, "b": b}, constants, order, alpha=0.75, transA=1, transB=1
    )
    assert_runs_on_the_jit(model, {"a": a, "b": b}, tmp_path)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [12, 13])
def test_qlinear_softmax_matches_onnxruntime(dtype, opset, tmp_path):
    """Over axis 1 of [3, 4, 5] (opset 12: the last two dims flattened)."""
    x = quantized(dtype, (3, 4, 5), 7)
    sx, zx = params(0.08, zero_points(dtype)[0], dtype)
    sy, zy = params(1 / 256, 0 if dtype == "uint8" else -128, dtype)
    model = contrib_model(
        "QLinearSoftmax", {"x": x}, {"sx": sx, "zx": zx, "sy": sy, "zy": zy},
        ["x", "sx", "zx", "sy", "zy"], axis=1, opset=opset,
    )  # fmt: skip
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize("b_dtype", ["uint8", "int8"])
def test_matmul_integer_to_float_and_dynamic_quantize_matmul(b_dtype, tmp_path):
    """[2, 3, 301] x [301, 6]: MatMulIntegerToFloat of uint8 A, and
    DynamicQuantizeMatMul of float A (a per-column B scale), with a bias."""
    rng = np.random.default_rng(8)
    b = quantized(b_dtype, (301, 6), 9)
    bias = rng.standard_normal(6).astype(np.float32)
    a = quantized("uint8", (2, 3, 301), 10)
    constants = {
        "b": b, "sa": np.array(0.03, np.float32),
        "sb": rng.uniform(0.001, 0.01, 6).astype(np.float32),
        "za": np.array(120, np.uint8), "zb": np.zeros(6, b_dtype), "bias": bias,
    }  # fmt: skip
    model = contrib_model(
        "MatMulIntegerToFloat", {"a": a}, constants,
        ["a", "b", "sa", "sb", "za", "zb", "bias"],
    )  # fmt: skip
    assert_runs_on_the_jit(model, {"a": a}, tmp_path / "to_float")
    x = rng.standard_normal((2, 3, 301)).astype(np.float32)
    del constants["sa"], constants["za"]
    model = contrib_model(
        "DynamicQuantizeMatMul", {"x": x}, constants, ["x", "b", "sb", "zb", "bias"]
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path / "dynamic")


def test_unknown_contrib_op_is_refused_by_name(tmp_path, capsys):
    """A com.microsoft op without a converter is named with its domain."""
    x = np.zeros((2, 3), np.float32)
    model = with_output_types(contrib_model("FastGelu", {"x": x}, {}, ["x"]), [x])
    assert "com.microsoft.FastGelu" in atc_error(model, tmp_path, capsys)
