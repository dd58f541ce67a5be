"""float8, float4 and the sub-byte integers end to end: IR text, `.npy`,
ONNX import (packed initializers), `ge.cast`'s ONNX semantics (saturation,
float8_e8m0fnu rounding) in the NumPy kernel and in the lowered JIT, against
onnx's reference evaluator and onnxruntime.

Every bit pattern of each 8-bit type (and every float4/int2/int4 value) is
used as an input, so NaN, ±inf, -0.0, subnormals and the largest finite
values are all covered.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from ge_dialect.adapters import call_kernel
from ge_dialect.builder import GraphBuilder
from ge_dialect.constants import dense_to_numpy
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.dtype_names import element_bits, numpy_dtype
from ge_dialect.dtypes import FLOAT8_DTYPES, dtype_name, element_type
from ge_dialect.ops import CastOp, ConstOp
from ge_dialect.parsing import parse_module
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph
from ge_runtime.npy import npy_bytes, read_npy

NARROW = {
    "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
    "float8_e4m3fnuz": TensorProto.FLOAT8E4M3FNUZ,
    "float8_e5m2": TensorProto.FLOAT8E5M2,
    "float8_e5m2fnuz": TensorProto.FLOAT8E5M2FNUZ,
    "float8_e8m0fnu": TensorProto.FLOAT8E8M0,
    "float4_e2m1fn": TensorProto.FLOAT4E2M1,
    "int4": TensorProto.INT4,
    "uint4": TensorProto.UINT4,
    "int2": TensorProto.INT2,
    "uint2": TensorProto.UINT2,
}
"""The narrow dtypes and their ONNX element types."""
FLOATS_TO = sorted(FLOAT8_DTYPES) + ["float4_e2m1fn"]
MLIR_NAMES = {
    "float8_e4m3fn": "f8E4M3FN",
    "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2": "f8E5M2",
    "float8_e5m2fnuz": "f8E5M2FNUZ",
    "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN",
    "int2": "i2",
    "uint2": "ui2",
    "int4": "i4",
    "uint4": "ui4",
}


def every_value(dtype: str) -> np.ndarray:
    """Every bit pattern of a narrow dtype, as that dtype."""
    bits = element_bits(dtype)
    codes = np.arange(2**bits, dtype=np.uint8)
    if dtype.startswith(("int", "uint")):
        signed = dtype.startswith("int") and codes >= 2 ** (bits - 1)
        values = np.where(signed, codes.astype(np.int16) - 2**bits, codes)
        return values.astype(numpy_dtype(dtype))
    return codes.view(numpy_dtype(dtype)) if bits == 8 else _float4(codes)


def _float4(codes: np.ndarray) -> np.ndarray:
    magnitudes = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    values = np.where(codes >= 8, -magnitudes[codes % 8], magnitudes[codes % 8])
    return values.astype(ml_dtypes.float4_e2m1fn)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtypes and bits (any NaN equal to any NaN of the same type)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan_a = np.isnan(a.astype(np.float32))
    nan_b = np.isnan(b.astype(np.float32))
    raw_a = a.reshape(-1).view(np.uint8).reshape(a.size, -1)
    raw_b = b.reshape(-1).view(np.uint8).reshape(b.size, -1)
    nan_a, nan_b = nan_a.reshape(-1), nan_b.reshape(-1)
    return bool(
        np.array_equal(nan_a, nan_b) and np.array_equal(raw_a[~nan_a], raw_b[~nan_b])
    )


SPECIAL_F32 = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 448.0, 449.0, 464.0,
     -465.0, 240.0, 241.0, 248.0, 57344.0, 61439.0, 61440.0, 1e6, -1e6, 6.0, 7.0,
     0.25, 0.75, 2.0**-10, 2.0**-17, 1e-30, 1.5, 2.5, 3.4e38, 2.0**127, 1.1 * 2**126,
     2.0**-127, 2.0**-149, 0.3, -0.3, 100.0, -100.0],
    np.float32,
)  # fmt: skip
"""float32 inputs around every narrow type's range, rounding ties and specials."""


def cast_inputs() -> np.ndarray:
    """`SPECIAL_F32` and seeded random values of every magnitude (33 of them
    per decade band)."""
    rng = np.random.default_rng(7)
    random = rng.standard_normal(100) * 10.0 ** rng.integers(-8, 8, 100)
    return np.concatenate([SPECIAL_F32, random.astype(np.float32)])


def onnx_cast(x: np.ndarray, to: int, **attrs) -> np.ndarray:
    """ONNX's reference evaluator on a one-node Cast model."""
    node = helper.make_node("Cast", ["x"], ["y"], to=to, **attrs)
    graph = helper.make_graph(
        [node],
        "cast",
        [
            helper.make_tensor_value_info(
                "x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape
            )
        ],
        [helper.make_tensor_value_info("y", to, x.shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    return ReferenceEvaluator(model).run(None, {"x": x})[0]


def cast_graph(shape: tuple[int, ...], src: str, dst: str, **attrs):
    b = GraphBuilder("cast")
    x = b.data(list(shape), src)
    b.output(b.cast(x, dst_type=dst, **attrs))
    return b.build()


CASES = [  # saturate is only for float targets (ONNX ignores it for ints)
    (dst, saturate, mode)
    for dst in FLOATS_TO + ["int4", "uint4", "int2", "uint2"]
    for saturate in ((True, False) if dst in FLOATS_TO else (True,))
    for mode in (("up", "down", "nearest") if dst == "float8_e8m0fnu" else ("up",))
]


@pytest.mark.parametrize("src", ["float32", "float16"])
@pytest.mark.parametrize("dst, saturate, round_mode", CASES)
def test_cast_matches_onnx_reference_on_the_jit(src, dst, saturate, round_mode):
    """Kernel, reference evaluator and JIT agree bit for bit with ONNX's own
    reference (saturation, NaN mappings, round to nearest even)."""
    with np.errstate(over="ignore"):
        x = cast_inputs().astype(src)
    if dst.startswith(("int", "uint")):
        x = np.clip(np.nan_to_num(x), -3, 3).astype(src)  # defined int range only
    attrs = {"saturate": int(saturate), "round_mode": round_mode}
    expected = onnx_cast(x, NARROW[dst], **attrs)
    module = cast_graph(x.shape, src, dst, saturate=saturate, round_mode=round_mode)
    jit = run_graph(module, {0: x}, poison=True)[0]
    (reference,) = evaluate(module, {0: x})
    assert same_bits(jit, expected), (x, jit, expected)
    assert same_bits(reference, expected)


@pytest.mark.parametrize("src", sorted(NARROW))
def test_every_narrow_value_widens_exactly(src):
    """Every value of a narrow type cast to float32 on the JIT is the value
    ml_dtypes (and ONNX) give, NaN where the type has NaN."""
    x = every_value(src)
    module = cast_graph(x.shape, src, "float32")
    (jit,) = run_graph(module, {0: x}, poison=True)
    assert same_bits(jit, x.astype(np.float32))
    if src != "float8_e8m0fnu":  # onnxruntime's Cast has no E8M0 kernel
        assert same_bits(jit, onnx_cast(x, TensorProto.FLOAT))


ORT_FLOAT8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"]


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("dst", ORT_FLOAT8)
def test_cast_to_float8_matches_onnxruntime(dst, saturate):
    """float32 -> float8 -> float32 (onnxruntime returns no float8 arrays
    but E4M3FN's; widening back is exact)."""
    x = cast_inputs()
    nodes = [
        helper.make_node("Cast", ["x"], ["q"], to=NARROW[dst], saturate=saturate),
        helper.make_node("Cast", ["q"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "cast",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 9
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, {"x": x})[0]
    module = import_onnx(model).module
    (jit,) = run_graph(module, {0: x}, poison=True)
    if dst == "float8_e5m2" and not saturate:
        # 61440 is the tie between E5M2's largest value and infinity: onnxruntime
        # gives NaN, ONNX's reference (and IEEE rounding, which we follow) +inf.
        tie = x == 61440.0
        assert np.all(jit[tie] == np.inf) and np.all(np.isnan(expected[tie]))
        jit, expected = jit[~tie], expected[~tie]
    assert same_bits(jit, expected)


@pytest.mark.parametrize("dtype", sorted(NARROW) + ["bfloat16", "float16"])
def test_every_value_round_trips_through_ir_text(dtype):
    """A constant holding every value of the type prints, parses and
    evaluates to the same bits (NaN as NaN; E5M2 has several NaNs)."""
    if dtype in NARROW:
        values = every_value(dtype)
    else:
        values = np.arange(0, 2**16, 97, dtype=np.uint16).view(numpy_dtype(dtype))
    b = GraphBuilder("g")
    b.output(b.const(values))
    text = str(b.build())
    mlir = MLIR_NAMES.get(dtype, {"float16": "f16", "bfloat16": "bf16"}.get(dtype))
    assert f"tensor<{values.size}x{mlir}>" in text
    module = parse_module(make_context(), text, "<text>")
    const = next(op for op in module.walk() if isinstance(op, ConstOp))
    assert same_bits(dense_to_numpy(const.value), values)
    assert same_bits(evaluate(module, {})[0], values)


@pytest.mark.parametrize("dtype", sorted(NARROW))
def test_dtype_names_map_to_mlir_types(dtype):
    assert str(element_type(dtype)) == MLIR_NAMES[dtype]
    assert dtype_name(element_type(dtype)) == dtype
    assert element_bits(MLIR_NAMES[dtype]) == element_bits(dtype)


@pytest.mark.parametrize("dtype", sorted(NARROW))
def test_npy_round_trips(dtype):
    """`.npy` in and out of ge-run keeps the dtype by name and every bit."""
    import io

    values = every_value(dtype).reshape(1, -1)
    back = read_npy(io.BytesIO(npy_bytes(values)))
    assert back.dtype == values.dtype and same_bits(back, values)


@pytest.mark.parametrize("dtype", ["int4", "uint4", "float4_e2m1fn", "int2", "uint2"])
def test_packed_initializer_imports_unpacked(dtype):
    """ONNX packs sub-byte initializers (two int4/float4 or four int2 per
    byte, odd counts padded); the importer unpacks them to one value per
    element, and the graph computes with them on the JIT."""
    values = every_value(dtype)[: 5 if dtype.endswith("2") else 7]  # odd counts
    init = numpy_helper.from_array(values, "w")
    assert len(init.raw_data) < values.size  # packed
    x = np.arange(values.size, dtype=np.float32)
    nodes = [
        helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "wf"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "packed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
        [init],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    imported = import_onnx(model, weights="inline")
    (jit,) = run_graph(imported.module, {0: x}, poison=True)
    np.testing.assert_array_equal(jit, x + values.astype(np.float32))


def test_cast_round_mode_must_be_known():
    """A bad round_mode from ONNX is one located line."""
    node = helper.make_node(
        "Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0, round_mode="odd"
    )
    graph = helper.make_graph(
        [node],
        "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT8E8M0, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    with pytest.raises(GEError) as error:
        import_onnx(model)
    message = str(error.value)
    assert "\n" not in message
    assert "round_mode must be one of up, down, nearest, got 'odd'" in message


def test_cast_kernel_defaults_saturate():
    """Without attributes, a cast to float8 saturates (ONNX's default)."""
    x = np.array([1e9, -np.inf, np.nan], np.float32)
    y = call_kernel(CastOp, x, dst_type="float8_e4m3fn")
    np.testing.assert_array_equal(y[:2].astype(np.float32), [448.0, -448.0])
    assert np.isnan(y[2].astype(np.float32))
