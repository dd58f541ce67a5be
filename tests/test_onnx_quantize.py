"""ONNX QuantizeLinear/DequantizeLinear (`ge_frontend/onnx_quantize.py`) on
the JIT against ONNX's reference evaluator (bit for bit) and onnxruntime:
per tensor, per axis, blocked (with a short last block), every quantized
dtype, saturation, output_dtype, float16 inputs, and values on rounding ties
and beyond the range.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit
from test_narrow_dtypes import same_bits

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.formats import Format
from ge_dialect.layout import storage_shape_of
from ge_dialect.ops import Conv2DOp
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph
from ge_runtime.offline.om import load_offline_model

ONNX_TYPES = {
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "uint16": TensorProto.UINT16,
    "int16": TensorProto.INT16,
    "uint4": TensorProto.UINT4,
    "int4": TensorProto.INT4,
    "uint2": TensorProto.UINT2,
    "int2": TensorProto.INT2,
    "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
    "float8_e5m2": TensorProto.FLOAT8E5M2,
    "float8_e4m3fnuz": TensorProto.FLOAT8E4M3FNUZ,
    "float8_e5m2fnuz": TensorProto.FLOAT8E5M2FNUZ,
    "float4_e2m1fn": TensorProto.FLOAT4E2M1,
    "float32": TensorProto.FLOAT,
    "float16": TensorProto.FLOAT16,
    "int32": TensorProto.INT32,
}
ORT_INTS = ("uint8", "int8", "uint16", "int16")
"""The quantized types onnxruntime's CPU kernels run and its Python API takes
and returns as NumPy arrays (not int4: "Numpy_type 273 can't be converted")."""


def model(op: str, inputs: dict[str, np.ndarray], out: str, opset: int = 25, **attrs):
    node = helper.make_node(op, list(inputs), ["y"], **attrs)
    shape = next(iter(inputs.values())).shape
    graph = helper.make_graph(
        [node],
        op,
        [
            helper.make_tensor_value_info(name, ONNX_TYPES[str(a.dtype)], a.shape)
            for name, a in inputs.items()
        ],
        [helper.make_tensor_value_info("y", ONNX_TYPES[out], shape)],
    )
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    built.ir_version = 10
    return built


def check(built, inputs: dict[str, np.ndarray], ort_too: bool) -> np.ndarray:
    """JIT and reference evaluator == ONNX's reference (== onnxruntime)."""
    expected = ReferenceEvaluator(built).run(None, inputs)[0]
    module = import_onnx(built).module
    feeds = dict(enumerate(inputs.values()))
    (jit,) = run_graph(module, feeds, poison=True)
    (reference,) = evaluate(module, feeds)
    assert same_bits(jit, expected), (jit, expected)
    assert same_bits(reference, expected)
    if ort_too:
        session = ort.InferenceSession(
            built.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        (ours,) = session.run(None, inputs)
        np.testing.assert_array_equal(np.asarray(ours).astype(jit.dtype), jit)
    return jit


def values(shape, scale: float, seed: int = 0) -> np.ndarray:
    """Seeded values with rounding ties (k + 0.5) and some beyond any range."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * scale
    flat = x.reshape(-1)
    flat[::5] = np.round(flat[::5]) + 0.5  # ties: halves round to even
    flat[1::7] *= 1e4
    return x.astype(np.float32)


def zero_point(dtype: str, shape, seed: int = 1) -> np.ndarray:
    if dtype.startswith("float"):
        return np.zeros(shape, numpy_dtype(dtype))
    info = np.iinfo(dtype) if dtype in ("uint8", "int8", "uint16", "int16") else None
    low, high = (info.min, info.max) if info else {
        "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1)
    }[dtype]  # fmt: skip
    rng = np.random.default_rng(seed)
    return rng.integers(low, high + 1, shape).astype(numpy_dtype(dtype))


QUANTIZED = [
    *ORT_INTS,
    "uint2",
    "int2",
    "float8_e4m3fn",
    "float8_e5m2",
    "float4_e2m1fn",
]


@pytest.mark.parametrize("dtype", QUANTIZED)
def test_quantize_per_tensor(dtype):
    x = values((3, 17), 3.0)
    inputs = {"x": x, "s": np.array(0.25, np.float32), "z": zero_point(dtype, ())}
    check(model("QuantizeLinear", inputs, dtype), inputs, dtype in ORT_INTS)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int4", "uint2"])
def test_quantize_per_axis(dtype):
    x = values((2, 3, 5), 4.0)
    scale = np.array([0.5, 0.125, 2.0], np.float32)
    inputs = {"x": x, "s": scale, "z": zero_point(dtype, (3,))}
    built = model("QuantizeLinear", inputs, dtype, axis=-2)
    check(built, inputs, dtype in ORT_INTS)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int4"])
def test_quantize_blocked_with_a_short_last_block(dtype):
    """17 columns in blocks of 4: five blocks, the last holds one column."""
    x = values((3, 17), 2.0)
    scale = np.random.default_rng(2).uniform(0.1, 1.0, (3, 5)).astype(np.float32)
    inputs = {"x": x, "s": scale, "z": zero_point(dtype, (3, 5))}
    built = model("QuantizeLinear", inputs, dtype, axis=1, block_size=4)
    check(built, inputs, dtype in ORT_INTS)


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2fnuz"])
def test_quantize_to_float8_saturates_as_asked(dtype, saturate):
    x = np.array([0.0, -0.0, 1.0, 1e9, -1e9, np.inf, -np.inf, np.nan, 3.3], np.float32)
    inputs = {"x": x, "s": np.array(0.5, np.float32)}
    to = ONNX_TYPES[dtype]
    built = model("QuantizeLinear", inputs, dtype, saturate=saturate, output_dtype=to)
    check(built, inputs, ort_too=False)


def test_quantize_float16_input_without_zero_point():
    """float16 x and scale divide in float16; no zero point gives uint8."""
    x = np.clip(values((33,), 50.0), -3e4, 3e4).astype(np.float16)
    inputs = {"x": x, "s": np.array(0.5, np.float16)}
    check(model("QuantizeLinear", inputs, "uint8"), inputs, ort_too=True)


def test_quantize_beyond_int32_saturates_as_onnxruntime():
    """|x / scale| >= 2^31 (and ±inf): ONNX's reference casts to int32 first
    (INT_MIN, then clipped to 0); the decomposition saturates, as
    onnxruntime does."""
    x = np.array([3e9, -3e9, np.inf, -np.inf, 1.0], np.float32)
    inputs = {"x": x, "s": np.array(1.0, np.float32), "z": np.array(0, np.int8)}
    built = model("QuantizeLinear", inputs, "int8")
    session = ort.InferenceSession(
        built.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    (expected,) = session.run(None, inputs)
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(inputs.values())))
    np.testing.assert_array_equal(jit, expected)
    np.testing.assert_array_equal(jit, [127, -128, 127, -128, 1])


@pytest.mark.parametrize("dtype", QUANTIZED)
def test_dequantize_per_tensor(dtype):
    q = zero_point(dtype, (4, 17), seed=5)
    if dtype.startswith("float"):
        q = values((4, 17), 3.0).astype(numpy_dtype(dtype))
    inputs = {"x": q, "s": np.array(0.375, np.float32), "z": zero_point(dtype, ())}
    check(model("DequantizeLinear", inputs, "float32"), inputs, dtype in ORT_INTS)


def test_dequantize_per_axis_blocked_and_output_dtype():
    q = zero_point("int8", (3, 10), seed=3)
    scale = np.random.default_rng(4).uniform(0.1, 1.0, (3, 4)).astype(np.float32)
    inputs = {"x": q, "s": scale, "z": zero_point("int8", (3, 4))}
    built = model(
        "DequantizeLinear",
        inputs,
        "float16",
        axis=1,
        block_size=3,
        output_dtype=TensorProto.FLOAT16,
    )
    check(built, inputs, ort_too=False)
    axis_inputs = {"x": q, "s": scale[:, 0].copy(), "z": zero_point("int8", (3,))}
    check(model("DequantizeLinear", axis_inputs, "float32", axis=0), axis_inputs, True)


def test_quantize_initializers_fold_at_import():
    """Constant scale and zero point (the usual export) fold into constants."""
    x = values((2, 5), 3.0)
    inits = [
        numpy_helper.from_array(np.array([0.5, 0.25], np.float32), "s"),
        numpy_helper.from_array(np.array([3, -2], np.int8), "z"),
    ]
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0)
    graph = helper.make_graph(
        [node],
        "q",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.INT8, x.shape)],
        inits,
    )
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    expected = ReferenceEvaluator(built).run(None, {"x": x})[0]
    module = import_onnx(built, weights="inline").module
    names = [op.name for op in module.walk()]
    assert "ge.tile" not in names and "ge.reshape" not in names
    (jit,) = run_graph(module, {0: x}, poison=True)
    assert same_bits(jit, expected)


def test_bad_block_size_is_one_line():
    x = values((3, 8), 1.0)
    inputs = {"x": x, "s": np.ones((3, 2), np.float32)}
    built = model("QuantizeLinear", inputs, "uint8", axis=1, block_size=-2)
    with pytest.raises(GEError) as error:
        import_onnx(built)
    message = str(error.value)
    assert "\n" not in message and "QuantizeLinear with block_size -2" in message


def int_model(op: str, inputs: dict[str, np.ndarray], out, shape, opset, **attrs):
    """`model` with the output shape given."""
    built = model(op, inputs, out, opset, **attrs)
    dims = built.graph.output[0].type.tensor_type.shape
    dims.ClearField("dim")
    for size in shape:
        dims.dim.add().dim_value = size
    return built


def ort_outputs(built, inputs: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(
        built.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, inputs)[0]


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_matmul_integer_is_exact(dtype):
    """17 x 33 x 5; per-tensor zero points against onnxruntime, per row of A
    and per column of B (which onnxruntime's CPU kernel refuses) against
    the spec's arithmetic in int64."""
    a = zero_point(dtype, (17, 33), seed=6)
    b = zero_point(dtype, (33, 5), seed=7)
    inputs = {"a": a, "b": b, "za": zero_point(dtype, ()), "zb": zero_point(dtype, ())}
    built = int_model("MatMulInteger", inputs, "int32", (17, 5), 10)
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(inputs.values())))
    np.testing.assert_array_equal(jit, ort_outputs(built, inputs))
    inputs.update(za=zero_point(dtype, (17,)), zb=zero_point(dtype, (5,)))
    built = int_model("MatMulInteger", inputs, "int32", (17, 5), 10)
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(inputs.values())))
    centred_a = a.astype(np.int64) - inputs["za"].astype(np.int64)[:, None]
    centred_b = b.astype(np.int64) - inputs["zb"].astype(np.int64)
    np.testing.assert_array_equal(jit, centred_a @ centred_b)


@pytest.mark.parametrize("scale_dtype", ["float32", "float16"])
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_qlinear_matmul_matches_the_reference(dtype, scale_dtype):
    a = zero_point(dtype, (2, 3, 33), seed=8)
    b = zero_point(dtype, (2, 33, 5), seed=9)
    scale = lambda v: np.array([v], scale_dtype)  # noqa: E731
    inputs = {
        "a": a, "sa": scale(0.05), "za": zero_point(dtype, (1,)),
        "b": b, "sb": scale(0.02), "zb": zero_point(dtype, (1,), seed=2),
        "sy": scale(0.3), "zy": zero_point(dtype, (1,), seed=3),
    }  # fmt: skip
    built = int_model("QLinearMatMul", inputs, dtype, (2, 3, 5), 21)
    expected = ReferenceEvaluator(built).run(None, inputs)[0]
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(inputs.values())))
    np.testing.assert_array_equal(jit, expected)


def test_conv_integer_and_qlinear_conv_match_onnxruntime():
    """3 input channels, 17 x 17 image, a 3 x 3 kernel with padding, per
    output channel scales, an int32 bias."""
    x = zero_point("uint8", (1, 3, 17, 17), seed=10)
    w = zero_point("uint8", (4, 3, 3, 3), seed=11)
    conv = {"x": x, "w": w, "zx": np.array(7, np.uint8), "zw": np.array(9, np.uint8)}
    built = int_model("ConvInteger", conv, "int32", (1, 4, 17, 17), 10, pads=[1] * 4)
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(conv.values())))
    np.testing.assert_array_equal(jit, ort_outputs(built, conv))
    rng = np.random.default_rng(12)
    q = {
        "x": x, "sx": np.array(0.02, np.float32), "zx": np.array(7, np.uint8),
        "w": w, "sw": rng.uniform(0.01, 0.05, 4).astype(np.float32),
        "zw": np.zeros(4, np.uint8),
        "sy": np.array(0.5, np.float32), "zy": np.array(100, np.uint8),
        "bias": rng.integers(-3000, 3000, 4).astype(np.int32),
    }  # fmt: skip
    built = int_model(
        "QLinearConv", q, "uint8", (1, 4, 9, 9), 10, pads=[1] * 4, strides=[2, 2]
    )
    (jit,) = run_graph(import_onnx(built).module, dict(enumerate(q.values())))
    np.testing.assert_array_equal(jit, ReferenceEvaluator(built).run(None, q)[0])
    np.testing.assert_array_equal(jit, ort_outputs(built, q))


def extremes(dtype: str, shape, seed: int) -> np.ndarray:
    """Random picks of `dtype`'s two extreme values (the largest products)."""
    info = np.iinfo(dtype)
    picks = np.random.default_rng(seed).integers(0, 2, shape).astype(bool)
    return np.where(picks, info.max, info.min).astype(dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_long_integer_products_are_exact_on_the_jit(dtype, tmp_path):
    """1001 products per output (MatMulInteger) and 33 x 3 x 3 = 297
    (ConvInteger, a dynamically quantized SqueezeNet's length) of centred
    values 0 or 255: sums beyond 2^24 (odd ones, which float32 cannot
    hold), exact in int32 on the JIT and the reference evaluator."""
    lowest = np.array(np.iinfo(dtype).min, dtype)  # centred values 0 or 255
    a, b = extremes(dtype, (3, 1001), 1), extremes(dtype, (1001, 17), 2)
    b[:, 0] = a[0]  # row 0 . column 0: 255^2 per term where a[0] is largest
    matmul = {"a": a, "b": b, "za": lowest, "zb": lowest}
    built = int_model("MatMulInteger", matmul, "int32", (3, 17), 10)
    expected = ort_outputs(built, matmul)
    assert expected[0, 0] > 2**24
    assert_runs_on_the_jit(built, matmul, tmp_path / "matmul", [expected])
    x, w = extremes(dtype, (1, 33, 17, 3), 3), extremes(dtype, (5, 33, 3, 3), 4)
    x[:, :, 4:7], w[0] = np.iinfo(dtype).max, np.iinfo(dtype).max
    conv = {"x": x, "w": w, "zx": lowest, "zw": lowest}
    built = int_model("ConvInteger", conv, "int32", (1, 5, 17, 3), 10, pads=[1] * 4)
    expected = ort_outputs(built, conv)
    assert expected[0, 0, 5, 1] == 297 * 255**2 > 2**24
    assert_runs_on_the_jit(built, conv, tmp_path / "conv", [expected])
    centred_x, centred_w = x.astype(np.int64) - lowest, w.astype(np.int64) - lowest
    windows = np.lib.stride_tricks.sliding_window_view(
        np.pad(centred_x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3)
    )
    np.testing.assert_array_equal(
        expected, np.einsum("nchwij,ocij->nohw", windows, centred_w)
    )


def test_dynamically_quantized_cnn_matches_onnxruntime(tmp_path):
    """A small CNN (Conv 33 -> 17 channels 3 x 3, Relu, Conv 17 -> 5, MatMul)
    through onnxruntime's `quantize_dynamic`: DynamicQuantizeLinear,
    ConvInteger (297 products per output) and MatMulInteger run on the JIT
    and match onnxruntime."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(5)
    weights = {
        "w1": rng.standard_normal((17, 33, 3, 3)).astype(np.float32),
        "w2": rng.standard_normal((5, 17, 3, 3)).astype(np.float32),
        "m": rng.standard_normal((3, 7)).astype(np.float32),
    }
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1] * 4),
            helper.make_node("Relu", ["c1"], ["r1"]),
            helper.make_node("Conv", ["r1", "w2"], ["c2"], strides=[2, 2]),
            helper.make_node("MatMul", ["c2", "m"], ["y"]),
        ],
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 33, 9, 7))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 5, 4, 7))],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    float_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    float_path, quantized_path = tmp_path / "cnn.onnx", tmp_path / "cnn-q.onnx"
    onnx.save(float_model, float_path)
    quantize_dynamic(float_path, quantized_path, weight_type=QuantType.QUInt8)
    quantized = onnx.load(quantized_path)
    ops = {node.op_type for node in quantized.graph.node}
    assert {"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"} <= ops, ops
    x = rng.standard_normal((1, 33, 9, 7)).astype(np.float32)
    assert_runs_on_the_jit(quantized, {"x": x}, tmp_path / "run")


@pytest.mark.parametrize("x_dtype", ["uint8", "int8"])
def test_symmetric_int8_conv_is_stored_in_int8_nc1hwc0(x_dtype, tmp_path):
    """ConvInteger of a filter without zero point (quantize_dynamic's and
    quantize_static's int8 weights): x and the int8 filter are convolved as
    stored, NC1HWC0 and FRACTAL_Z with GE's int8 C0 = 32, summing in int32,
    and x's zero point comes out after (conv(1, w), padding included).
    64 x 3 x 3 = 576 products of extremes (sums past 2^24), exact against
    onnxruntime on the JIT."""
    x = extremes(x_dtype, (2, 64, 9, 7), 22)
    w = extremes("int8", (5, 64, 3, 3), 23)
    w[0] = -128  # with x at its zero point's far end: the largest sums
    x_zero = np.array(np.iinfo(x_dtype).max, x_dtype)
    x[0, :, 4:7] = np.iinfo(x_dtype).min
    bias_free = helper.make_graph(
        [helper.make_node("ConvInteger", ["x", "w", "zx"], ["y"], pads=[1, 0, 1, 2])],
        "conv_integer",
        [
            helper.make_tensor_value_info("x", ONNX_TYPES[x_dtype], x.shape),
            helper.make_tensor_value_info("zx", ONNX_TYPES[x_dtype], ()),
        ],
        [helper.make_tensor_value_info("y", TensorProto.INT32, (2, 5, 9, 7))],
        [numpy_helper.from_array(w, "w")],
    )
    built = helper.make_model(bias_free, opset_imports=[helper.make_opsetid("", 10)])
    inputs = {"x": x, "zx": x_zero}
    expected = ort_outputs(built, inputs)
    assert np.abs(expected).max() > 2**24
    assert_runs_on_the_jit(built, inputs, tmp_path, [expected])
    module = load_offline_model(str(tmp_path / "case" / "model.om")).module()
    (conv,) = [op for op in module.walk() if isinstance(op, Conv2DOp)]
    x_type, w_type = (operand.type for operand in conv.operands[:2])
    assert (x_type.encoding.storage_format, w_type.encoding.storage_format) == (
        Format.NC1HWC0,
        Format.FRACTAL_Z,
    )
    assert storage_shape_of(x_type) == (2, 2, 9, 7, 32)  # C0 32: 64 channels
    assert storage_shape_of(w_type) == (2 * 3 * 3, 1, 16, 32)
    assert str(conv.results[0].type.element_type) == "i32"
