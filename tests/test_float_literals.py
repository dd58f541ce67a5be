"""±inf, NaN and -0.0 constants survive print -> parse -> evaluate.

Every special value in every float dtype is printed, read back, and run by the
reference evaluator and the JIT; the printed text is the one MLIR (iree-opt)
prints for the same attribute; an ONNX `Max(-inf, x)` compiles to an `.om`
(whose IR is text) and matches onnxruntime.
"""

from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    Builtin,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    TensorType,
)

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.parsing import parse_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
XDSL_TYPES = {
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
}
UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def special_values(dtype: str) -> np.ndarray:
    """±inf, NaN (both signs), ±0, the extremes and the smallest subnormal."""
    np_dtype = numpy_dtype(dtype)
    info = ml_dtypes.finfo(np_dtype)
    values = [
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        0.0,
        -0.0,
        info.max,
        -info.max,
        info.tiny,
        info.smallest_subnormal,
        -info.smallest_subnormal,
        1.0,
    ]
    return np.array([np_dtype.type(v) for v in values], dtype=np_dtype)


def bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(UNSIGNED[array.dtype.itemsize])


def assert_same_values(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal bits, except that a NaN only has to be a NaN of the same sign."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(actual), nan)
    assert np.array_equal(np.signbit(actual), np.signbit(expected))
    assert np.array_equal(bits(actual)[~nan], bits(expected)[~nan])


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx


def round_trip(module) -> object:
    return parse_module(context(), str(module), "<round-trip>")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("splat", [False, True], ids=["list", "splat"])
def test_special_constants_survive_print_parse_evaluate(dtype: str, splat: bool):
    values = special_values(dtype)
    constants = [np.full(3, v) for v in values] if splat else [values]
    b = GraphBuilder("main")
    x = b.data([constants[0].size], dtype, name="x")
    outputs = []
    for array in constants:
        c = b.const(array)
        outputs += [c, b.mul(x, c), b.maximum(c, x)]
    b.output(*outputs)
    module = round_trip(b.build())
    if splat:
        assert str(module).count("dense<[") == 0  # every constant printed as splat
    ones = np.ones(constants[0].size, numpy_dtype(dtype))
    expected = []
    for array in constants:
        expected += [array, array * ones, np.maximum(array, ones)]
    reference = evaluate(module, {"x": ones})
    jit = run_graph(module, {"x": ones})
    for ours_ref, ours_jit, want in zip(reference, jit, expected, strict=True):
        assert_same_values(ours_ref, want)
        assert_same_values(ours_jit, want)


def test_negative_zero_is_not_a_splat_of_zero():
    b = GraphBuilder("main")
    b.output(b.const(np.array([0.0, -0.0], np.float32)))
    text = str(b.build())
    assert "dense<[0.000000e+00, -0.000000e+00]>" in text
    (out,) = evaluate(round_trip(text), {})
    assert list(np.signbit(out)) == [False, True]


def test_all_nan_prints_as_a_splat():
    b = GraphBuilder("main")
    b.output(b.const(np.full(5, np.nan, np.float16)))
    assert "dense<0x7E00> : tensor<5xf16>" in str(b.build())


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="needs iree-opt")
def test_printed_literals_are_what_mlir_prints():
    attrs = []
    for dtype in FLOAT_DTYPES:
        values = special_values(dtype)
        tensor = TensorType(XDSL_TYPES[dtype], [values.size])
        attr = DenseIntOrFPElementsAttr.from_list(tensor, values.tolist())
        attrs.append(f"t.{dtype} = {attr}")
    text = "module attributes {" + ", ".join(attrs) + "} {\n}\n"
    mlir = subprocess.run(
        ["iree-opt", "-"], input=text, capture_output=True, text=True, check=True
    ).stdout
    for dtype, ours in zip(FLOAT_DTYPES, attrs, strict=True):
        # mlir-opt writes finite values its own way; the specials must agree.
        mlir_attr = mlir.split(f"t.{dtype} = ")[1].split(" : ")[0]
        for ours_elem, mlir_elem in zip(
            ours.split("[")[1].split("]")[0].split(", "),
            mlir_attr.removeprefix("dense<[").removesuffix("]>").split(", "),
            strict=True,
        ):
            if ours_elem.startswith("0x") or mlir_elem.startswith("0x"):
                assert ours_elem == mlir_elem


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(data=st.data())
def test_any_bit_pattern_reads_back_as_itself(dtype: str, data):
    np_dtype = numpy_dtype(dtype)
    raw = data.draw(
        st.lists(st.integers(0, 2 ** (8 * np_dtype.itemsize) - 1), min_size=1)
    )
    array = np.array(raw, UNSIGNED[np_dtype.itemsize]).view(np_dtype)
    b = GraphBuilder("main")
    b.output(b.const(array))
    (out,) = evaluate(round_trip(b.build()), {})
    assert_same_values(out, array)


@pytest.mark.parametrize(
    "literal, message",
    [
        ("-0x7F800000", "hexadecimal float literal should not have a leading minus"),
        ("0x1FF800000", "hexadecimal float constant out of range for type"),
        ("[1.0, 0x7F8000000]", "hexadecimal float constant out of range for type"),
    ],
)
def test_bad_hexadecimal_floats_are_located_errors(literal: str, message: str):
    text = (
        "ge.graph @main {\n"
        f"  %c = ge.const {{value = dense<{literal}> : tensor<2xf32>}}"
        " : tensor<2xf32>\n"
        "  ge.netoutput %c : tensor<2xf32>\n"
        "}\n"
    )
    with pytest.raises(GEError, match=f"^bad.mlir:2:.*: error: {message}"):
        parse_module(context(), text, "bad.mlir")


def test_onnx_max_with_minus_inf_matches_onnxruntime(tmp_path):
    """The issue's one-node model: `Max(-inf, x)` compiled to an `.om` and run."""
    ort = pytest.importorskip("onnxruntime")
    from ge_runtime.engines.scheduler import compile_model
    from ge_runtime.offline.om import load_offline_model
    from tools import ge_atc

    floor = np.array([-np.inf, np.inf, np.nan, -0.0, 2.0], np.float32)
    graph = helper.make_graph(
        [helper.make_node("Max", ["floor", "x"], ["y"])],
        "max_inf",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [5])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [5])],
        [numpy_helper.from_array(floor, "floor")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path = tmp_path / "max_inf.onnx"
    onnx.save(model, path)
    out = tmp_path / "max_inf"
    assert ge_atc.main([f"--model={path}", "--framework=5", f"--output={out}"]) == 0
    offline = load_offline_model(out.with_suffix(".om"))
    x = np.array([1.0, -3.0, 4.0, 0.0, -1.0], np.float32)
    (ours,) = compile_model(offline.module(), offline.target).run({"x": x})
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (ref,) = session.run(None, {"x": x})
    assert_same_values(np.asarray(ours), ref)
