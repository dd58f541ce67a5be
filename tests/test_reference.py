"""The NumPy reference evaluator (`engines.reference`) and `ge-run --reference`.

Op semantics are checked against onnxruntime on one-op graphs; storage-format
semantics by running graphs whose values are held in NC1HWC0 / FRACTAL_Z /
FRACTAL_NZ against the same graphs in plain layouts (bit-exact).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kernel_calls
import numpy as np
import pytest
from onnx import TensorProto
from onnx_util import check, rand, run_onnx
from xdsl.context import Context
from xdsl.dialects.builtin import (
    Builtin,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
)
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.printer import Printer

from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.builder import GraphBuilder, tensor_type
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.layout import with_layout
from ge_dialect.ops import GraphOp
from ge_dialect.parsing import parse_module
from ge_dialect.relayout import to_storage
from ge_runtime.engines.reference import evaluate
from tools import ge_run

FLOATS = [np.float32, np.float16]


def plain(array: np.ndarray) -> TensorType:
    """The plain tensor type of an array."""
    return tensor_type(array.shape, array.dtype.name)


def stored_const(
    b: GraphBuilder,
    array: np.ndarray,
    origin: str,
    storage: str,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
) -> Any:
    """A `ge.const` whose value is `array` laid out in `storage`."""
    data = to_storage(array, origin, storage, reshape_type=reshape_type, groups=groups)
    result = tensor_type(array.shape, array.dtype.name, origin, storage)
    if reshape_type is not None:
        result = with_layout(result, origin, storage, reshape_type=reshape_type)
    value = DenseIntOrFPElementsAttr.from_list(
        TensorType(result.element_type, data.shape), data.reshape(-1).tolist()
    )
    return b.op("const", value=value, result_types=[result])


# ---------------------------------------------------------------------------
# Every op family against onnxruntime
# ---------------------------------------------------------------------------


@dataclass
class Case:
    """One ge op on graph inputs, and its ONNX equivalent.

    ONNX inputs are the ge inputs flattened, then `onnx_extra` (ONNX takes
    some ge attributes as inputs).
    """

    ge_op: str
    inputs: list[Any]
    attrs: dict[str, Any]
    onnx_op: str
    onnx_attrs: dict[str, Any] = field(default_factory=dict)
    onnx_extra: list[np.ndarray] = field(default_factory=list)
    outputs: int = 1
    out_dtype: Any = None


def i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def pos(*shape: int, dtype: Any) -> np.ndarray:
    return rand(*shape, dtype=dtype, lo=0.5, hi=2.0)


CASES: dict[str, Callable[[Any], Case]] = {
    "relu": lambda t: Case("relu", [rand(2, 3, 4, 5, dtype=t)], {}, "Relu"),
    "sigmoid": lambda t: Case("sigmoid", [rand(2, 3, 4, dtype=t)], {}, "Sigmoid"),
    "tanh": lambda t: Case("tanh", [rand(2, 3, 4, dtype=t)], {}, "Tanh"),
    "softplus": lambda t: Case("softplus", [rand(2, 3, 4, dtype=t)], {}, "Softplus"),
    "neg": lambda t: Case("neg", [rand(2, 3, dtype=t)], {}, "Neg"),
    "abs": lambda t: Case("abs", [rand(2, 3, dtype=t)], {}, "Abs"),
    "exp": lambda t: Case("exp", [rand(2, 3, dtype=t)], {}, "Exp"),
    "sqrt": lambda t: Case("sqrt", [pos(2, 3, dtype=t)], {}, "Sqrt"),
    "log": lambda t: Case("log", [pos(2, 3, dtype=t)], {}, "Log"),
    "reciprocal": lambda t: Case("reciprocal", [pos(2, 3, dtype=t)], {}, "Reciprocal"),
    "identity": lambda t: Case("identity", [rand(2, 3, dtype=t)], {}, "Identity"),
    "leaky_relu": lambda t: Case(
        "leaky_relu", [rand(2, 7, dtype=t)], {"alpha": 0.2}, "LeakyRelu", {"alpha": 0.2}
    ),
    "elu": lambda t: Case(
        "elu", [rand(2, 7, dtype=t)], {"alpha": 0.7}, "Elu", {"alpha": 0.7}
    ),
    "selu": lambda t: Case("selu", [rand(2, 7, dtype=t)], {}, "Selu"),
    "clip": lambda t: Case(
        "clip",
        [rand(2, 7, dtype=t)],
        {"min": -0.25, "max": 0.5},
        "Clip",
        onnx_extra=[np.array(-0.25, np.float32), np.array(0.5, np.float32)],
    ),
    "add": lambda t: Case("add", [rand(2, 3, 4, dtype=t), rand(4, dtype=t)], {}, "Add"),
    "sub": lambda t: Case(
        "sub", [rand(2, 3, 1, dtype=t), rand(3, 5, dtype=t)], {}, "Sub"
    ),
    "mul": lambda t: Case("mul", [rand(2, 3, dtype=t), rand(2, 3, dtype=t)], {}, "Mul"),
    "div": lambda t: Case("div", [rand(2, 3, dtype=t), pos(3, dtype=t)], {}, "Div"),
    "pow": lambda t: Case("pow", [pos(2, 3, dtype=t), rand(2, 3, dtype=t)], {}, "Pow"),
    "maximum": lambda t: Case(
        "maximum", [rand(2, 3, dtype=t), rand(1, 3, dtype=t)], {}, "Max"
    ),
    "minimum": lambda t: Case(
        "minimum", [rand(2, 3, dtype=t), rand(2, 1, dtype=t)], {}, "Min"
    ),
    "prelu": lambda t: Case(
        "prelu", [rand(2, 3, 4, 4, dtype=t), rand(3, 1, 1, dtype=t)], {}, "PRelu"
    ),
    "add_n": lambda t: Case(
        "add_n",
        [[rand(2, 3, dtype=t), rand(2, 3, dtype=t), rand(2, 3, dtype=t)]],
        {},
        "Sum",
    ),
    "conv2d": lambda t: Case(
        "conv2d",
        [rand(1, 3, 7, 7, dtype=t), rand(4, 3, 3, 3, dtype=t), rand(4, dtype=t)],
        {"data_format": "NCHW", "strides": [1, 1, 2, 2], "pads": [1, 0, 1, 2]},
        "Conv",
        {"strides": [2, 2], "pads": [1, 1, 0, 2]},
    ),
    "conv2d_grouped": lambda t: Case(
        "conv2d",
        [rand(1, 4, 6, 6, dtype=t), rand(6, 2, 3, 3, dtype=t)],
        {"data_format": "NCHW", "groups": 2, "dilations": [1, 1, 2, 1]},
        "Conv",
        {"group": 2, "dilations": [2, 1]},
    ),
    "conv2d_transpose": lambda t: Case(
        "conv2d_transpose",
        [rand(1, 4, 3, 3, dtype=t), rand(4, 3, 3, 3, dtype=t)],
        {
            "data_format": "NCHW",
            "strides": [1, 1, 2, 2],
            "pads": [1, 1, 1, 1],
            "output_padding": [1, 1],
        },
        "ConvTranspose",
        {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]},
    ),
    "max_pool": lambda t: Case(
        "max_pool",
        [rand(1, 3, 7, 7, dtype=t)],
        {
            "data_format": "NCHW",
            "ksize": [1, 1, 3, 3],
            "strides": [1, 1, 2, 2],
            "pads": [1, 1, 1, 1],
        },
        "MaxPool",
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    "avg_pool": lambda t: Case(
        "avg_pool",
        [rand(1, 3, 6, 6, dtype=t)],
        {
            "data_format": "NCHW",
            "ksize": [1, 1, 3, 3],
            "strides": [1, 1, 2, 2],
            "pads": [1, 1, 1, 1],
            "ceil_mode": True,
        },
        "AveragePool",
        {
            "kernel_shape": [3, 3],
            "strides": [2, 2],
            "pads": [1, 1, 1, 1],
            "ceil_mode": 1,
        },
    ),
    "global_avg_pool": lambda t: Case(
        "global_avg_pool",
        [rand(2, 3, 4, 5, dtype=t)],
        {"data_format": "NCHW"},
        "GlobalAveragePool",
    ),
    "global_max_pool": lambda t: Case(
        "global_max_pool",
        [rand(2, 3, 4, 5, dtype=t)],
        {"data_format": "NCHW"},
        "GlobalMaxPool",
    ),
    "batch_norm": lambda t: Case(
        "batch_norm",
        [
            rand(2, 3, 4, 4, dtype=t),
            rand(3, dtype=t),
            rand(3, dtype=t),
            rand(3, dtype=t),
            pos(3, dtype=t),
        ],
        {"data_format": "NCHW", "epsilon": 1e-3},
        "BatchNormalization",
        {"epsilon": 1e-3},
    ),
    "instance_norm": lambda t: Case(
        "instance_norm",
        [rand(2, 3, 4, 4, dtype=t), rand(3, dtype=t), rand(3, dtype=t)],
        {"data_format": "NCHW"},
        "InstanceNormalization",
    ),
    "lrn": lambda t: Case(
        "lrn",
        [rand(1, 5, 3, 3, dtype=t)],
        {"data_format": "NCHW", "size": 3, "alpha": 0.01, "beta": 0.5, "bias": 2.0},
        "LRN",
        {"size": 3, "alpha": 0.01, "beta": 0.5, "bias": 2.0},
    ),
    "matmul": lambda t: Case(
        "matmul", [rand(3, 5, dtype=t), rand(5, 4, dtype=t)], {}, "MatMul"
    ),
    "batch_matmul": lambda t: Case(
        "batch_matmul", [rand(2, 3, 5, dtype=t), rand(5, 4, dtype=t)], {}, "MatMul"
    ),
    "gemm": lambda t: Case(
        "gemm",
        [rand(5, 3, dtype=t), rand(4, 5, dtype=t), rand(4, dtype=t)],
        {"alpha": 0.5, "beta": 2.0, "trans_a": True, "trans_b": True},
        "Gemm",
        {"alpha": 0.5, "beta": 2.0, "transA": 1, "transB": 1},
    ),
    "concat": lambda t: Case(
        "concat",
        [[rand(2, 3, dtype=t), rand(2, 5, dtype=t)]],
        {"axis": 1},
        "Concat",
        {"axis": 1},
    ),
    "split": lambda t: Case(
        "split",
        [rand(2, 5, 3, dtype=t)],
        {"axis": 1, "sizes": [2, 3]},
        "Split",
        {"axis": 1},
        [i64(2, 3)],
        outputs=2,
    ),
    "slice": lambda t: Case(
        "slice",
        [rand(2, 5, 3, 6, dtype=t)],
        {"begins": [0, 1], "ends": [2, -1], "axes": [1, 3], "steps": [1, 2]},
        "Slice",
        onnx_extra=[i64(0, 1), i64(2, -1), i64(1, 3), i64(1, 2)],
    ),
    "gather": lambda t: Case(
        "gather",
        [rand(3, 4, dtype=t), np.array([[0, 2], [1, -1]], np.int64)],
        {"axis": 1},
        "Gather",
        {"axis": 1},
    ),
    "tile": lambda t: Case(
        "tile",
        [rand(2, 3, dtype=t)],
        {"multiples": [2, 3]},
        "Tile",
        onnx_extra=[i64(2, 3)],
    ),
    "pad": lambda t: Case(
        "pad",
        [rand(2, 4, dtype=t)],
        {"paddings": [1, 2, 0, 3], "mode": "reflect"},
        "Pad",
        {"mode": "reflect"},
        [i64(1, 2, 0, 3)],
    ),
    "reshape": lambda t: Case(
        "reshape",
        [rand(2, 3, 4, dtype=t)],
        {"shape": [0, -1, 2]},
        "Reshape",
        onnx_extra=[i64(0, -1, 2)],
    ),
    "flatten": lambda t: Case(
        "flatten", [rand(2, 3, 4, dtype=t)], {"axis": 2}, "Flatten", {"axis": 2}
    ),
    "squeeze": lambda t: Case(
        "squeeze",
        [rand(2, 1, 3, 1, dtype=t)],
        {"axes": [1, 3]},
        "Squeeze",
        onnx_extra=[i64(1, 3)],
    ),
    "unsqueeze": lambda t: Case(
        "unsqueeze",
        [rand(2, 3, dtype=t)],
        {"axes": [0, 3]},
        "Unsqueeze",
        onnx_extra=[i64(0, 3)],
    ),
    "transpose": lambda t: Case(
        "transpose",
        [rand(2, 3, 4, dtype=t)],
        {"perm": [2, 0, 1]},
        "Transpose",
        {"perm": [2, 0, 1]},
    ),
    "softmax": lambda t: Case(
        "softmax", [rand(2, 3, 4, dtype=t)], {"axis": 1}, "Softmax", {"axis": 1}
    ),
    "log_softmax": lambda t: Case(
        "log_softmax",
        [rand(2, 3, 4, dtype=t)],
        {"axis": -1},
        "LogSoftmax",
        {"axis": -1},
    ),
    "reduce_sum": lambda t: Case(
        "reduce_sum",
        [rand(2, 3, 4, dtype=t)],
        {"axes": [1, 2], "keep_dims": False},
        "ReduceSum",
        {"keepdims": 0},
        [i64(1, 2)],
    ),
    "reduce_mean": lambda t: Case(
        "reduce_mean",
        [rand(2, 3, 4, dtype=t)],
        {"axes": [0]},
        "ReduceMean",
        {"keepdims": 1},
        [i64(0)],
    ),
    "reduce_max": lambda t: Case(
        "reduce_max",
        [rand(2, 3, 4, dtype=t)],
        {"axes": [-1], "keep_dims": False},
        "ReduceMax",
        {"keepdims": 0},
        [i64(-1)],
    ),
    "cast_to_float16": lambda t: Case(
        "cast",
        [rand(2, 3, dtype=t)],
        {"dst_type": "float16"},
        "Cast",
        {"to": TensorProto.FLOAT16},
        out_dtype=np.float16,
    ),
    "cast_to_int32": lambda t: Case(
        "cast",
        [rand(2, 3, dtype=t, lo=-9, hi=9)],
        {"dst_type": "int32"},
        "Cast",
        {"to": TensorProto.INT32},
        out_dtype=np.int32,
    ),
}


def one_op_graph(
    op_name: str,
    inputs: Sequence[Any],
    result_types: Sequence[TensorType],
    **attrs: Any,
) -> tuple[Any, dict[str, np.ndarray]]:
    """A graph running one op on `ge.data` inputs (lists are variadic operands)."""
    b = GraphBuilder()
    feeds: dict[str, np.ndarray] = {}
    operands: list[Any] = []
    for operand in inputs:
        group = operand if isinstance(operand, list) else [operand]
        values = []
        for array in group:
            name = f"in{len(feeds)}"
            feeds[name] = array
            values.append(b.data(array.shape, array.dtype.name, name=name))
        operands.append(values if isinstance(operand, list) else values[0])
    result = b.op(op_name, *operands, result_types=list(result_types), **attrs)
    b.output(*(result if isinstance(result, list) else [result]))
    return b.build(), feeds


def flatten_inputs(inputs: Sequence[Any]) -> list[np.ndarray]:
    return [a for x in inputs for a in (x if isinstance(x, list) else [x])]


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("name", CASES)
def test_op_matches_onnxruntime(name: str, dtype: Any):
    case = CASES[name](dtype)
    refs = run_onnx(
        case.onnx_op,
        [*flatten_inputs(case.inputs), *case.onnx_extra],
        case.outputs,
        **case.onnx_attrs,
    )
    out_dtype = np.dtype(case.out_dtype or dtype)
    types = [tensor_type(r.shape, out_dtype.name) for r in refs]
    module, feeds = one_op_graph(case.ge_op, case.inputs, types, **case.attrs)
    outputs = evaluate(module, feeds)
    assert len(outputs) == len(refs)
    for ours, ref in zip(outputs, refs, strict=True):
        check(ours, ref, out_dtype)


_int_rng = np.random.default_rng(1)


def ints(*shape: int) -> np.ndarray:
    return _int_rng.integers(-9, 9, shape).astype(np.int32)


INT_CASES = {
    "add": Case("add", [ints(2, 3), ints(3)], {}, "Add"),
    "mul": Case("mul", [ints(2, 3), ints(2, 3)], {}, "Mul"),
    "div": Case("div", [ints(2, 3), np.array([2, -3, 4], np.int32)], {}, "Div"),
    "neg": Case("neg", [ints(4)], {}, "Neg"),
    "reduce_sum": Case(
        "reduce_sum",
        [ints(2, 3, 4)],
        {"axes": [1], "keep_dims": True},
        "ReduceSum",
        {"keepdims": 1},
        [i64(1)],
    ),
    "gather": Case(
        "gather", [ints(3, 4), np.array([2, 0], np.int64)], {"axis": 0}, "Gather"
    ),
    "concat": Case(
        "concat", [[ints(2, 3), ints(1, 3)]], {"axis": 0}, "Concat", {"axis": 0}
    ),
}


@pytest.mark.parametrize("name", INT_CASES)
def test_integer_ops_match_onnxruntime_and_keep_int32(name: str):
    case = INT_CASES[name]
    refs = run_onnx(
        case.onnx_op,
        [*flatten_inputs(case.inputs), *case.onnx_extra],
        **case.onnx_attrs,
    )
    types = [tensor_type(r.shape, "int32") for r in refs]
    module, feeds = one_op_graph(case.ge_op, case.inputs, types, **case.attrs)
    (out,) = evaluate(module, feeds)
    check(out, refs[0], np.int32)


def test_ops_without_onnx_equivalent():
    x = rand(2, 3, 4, 5)
    bias = rand(3)
    cases = [
        ("bias_add", [x, bias], {"data_format": "NCHW"}, x + bias[:, None, None]),
        ("expand_dims", [x], {"axis": 2}, x[:, :, None]),
        ("permute", [x], {"order": [0, 2, 3, 1]}, x.transpose(0, 2, 3, 1)),
    ]
    for op_name, inputs, attrs, expected in cases:
        module, feeds = one_op_graph(op_name, inputs, [plain(expected)], **attrs)
        (out,) = evaluate(module, feeds)
        np.testing.assert_array_equal(out, expected, err_msg=op_name)


def test_operand_origin_format_reaches_the_kernel():
    """A HWCN filter is passed with `filter_format="HWCN"`."""
    x, w = rand(1, 3, 6, 6), rand(4, 3, 3, 3)
    (ref,) = run_onnx("Conv", [x, w])
    b = GraphBuilder()
    xv = b.data(x.shape, "float32", name="x")
    wv = b.const(w.transpose(2, 3, 1, 0), format="HWCN")
    b.output(b.conv2d(xv, wv, data_format="NCHW", result_types=[plain(ref)]))
    (out,) = evaluate(b.build(), {"x": x})
    check(out, ref)


def test_reshape_without_shape_attribute_uses_the_result_type():
    x = rand(2, 3, 4)
    module, feeds = one_op_graph("reshape", [x], [tensor_type([4, 6], "float32")])
    (out,) = evaluate(module, feeds)
    np.testing.assert_array_equal(out, x.reshape(4, 6))


# ---------------------------------------------------------------------------
# Storage-format semantics
# ---------------------------------------------------------------------------


def conv_chain(channels: int, dtype: Any, stored: bool) -> tuple[Any, dict]:
    """conv → relu → batch_norm → max_pool → add → global_avg_pool.

    With `stored`, activations are held in NC1HWC0 (explicit `ge.transdata`
    in and out), the filter in FRACTAL_Z and the bias in NC1HWC0 (reshape
    type "C"); otherwise everything is plain NCHW.
    """
    dt = np.dtype(dtype).name
    rng = np.random.default_rng(channels)
    w = rng.uniform(-1, 1, (channels, channels, 3, 3)).astype(dtype)
    bias = rng.uniform(-1, 1, channels).astype(dtype)
    scale, offset, mean = (rng.uniform(-1, 1, channels).astype(dtype) for _ in "abc")
    var = rng.uniform(0.5, 2, channels).astype(dtype)
    inner = "NC1HWC0" if stored else None

    def act(n: int, hw: int) -> TensorType:
        return tensor_type([n, channels, hw, hw], dt, "NCHW", inner)

    b = GraphBuilder()
    x = b.data([2, channels, 5, 5], dt, format="NCHW", name="x")
    if stored:
        x = b.transdata(
            x, src_format="NCHW", dst_format="NC1HWC0", result_types=[act(2, 5)]
        )
        wv = stored_const(b, w, "NCHW", "FRACTAL_Z")
        bv = stored_const(b, bias, "NCHW", "NC1HWC0", reshape_type="C")
    else:
        wv = b.const(w, format="NCHW")
        bv = b.const(bias)
    y = b.conv2d(
        x, wv, bv, data_format="NCHW", pads=[1, 1, 1, 1], result_types=[act(2, 5)]
    )
    r = b.relu(y, result_types=[act(2, 5)])
    params = [b.const(p) for p in (scale, offset, mean, var)]
    n = b.batch_norm(r, *params, data_format="NCHW", result_types=[act(2, 5)])
    p = b.max_pool(
        n,
        data_format="NCHW",
        ksize=[1, 1, 3, 3],
        strides=[1, 1, 2, 2],
        pads=[1, 1, 1, 1],
        result_types=[act(2, 3)],
    )
    a = b.add(p, p, result_types=[act(2, 3)])
    g = b.global_avg_pool(a, data_format="NCHW", result_types=[act(2, 1)])
    outputs = [a, g]
    if stored:
        outputs = [
            b.transdata(
                v,
                src_format="NC1HWC0",
                dst_format="NCHW",
                result_types=[tensor_type(v.type.get_shape(), dt, "NCHW")],
            )
            for v in outputs
        ]
    b.output(*outputs, r)
    return b.build(), {"x": rng.uniform(-1, 1, (2, channels, 5, 5)).astype(dtype)}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("channels", [3, 17, 33])
def test_values_held_in_nc1hwc0_give_the_plain_results(channels: int, dtype: Any):
    stored, feeds = conv_chain(channels, dtype, stored=True)
    plain_module, _ = conv_chain(channels, dtype, stored=False)
    ours = evaluate(stored, feeds)
    expected = evaluate(plain_module, feeds)
    for a, e in zip(ours, expected, strict=True):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)
    # The relu output is held in NC1HWC0: padded channels are zero.
    relu_stored = evaluate(stored, feeds, outputs_as_stored=True)[2]
    c0 = 16 if np.dtype(dtype) == np.float16 else 8
    assert relu_stored.shape == (2, -(-channels // c0), 5, 5, c0)
    np.testing.assert_array_equal(
        relu_stored, to_storage(expected[2], "NCHW", "NC1HWC0")
    )
    channels_last = relu_stored.transpose(0, 2, 3, 1, 4).reshape(2, 5, 5, -1)
    assert not channels_last[..., channels:].any()


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("channels", [3, 17, 33])
def test_transdata_round_trip_is_exact(channels: int, dtype: Any):
    dt = np.dtype(dtype).name
    shape = [1, channels, 3, 2]
    b = GraphBuilder()
    x = b.data(shape, dt, format="NCHW")
    five = b.transdata(
        x,
        src_format="NCHW",
        dst_format="NC1HWC0",
        result_types=[tensor_type(shape, dt, "NCHW", "NC1HWC0")],
    )
    back = b.transdata(
        five,
        src_format="NC1HWC0",
        dst_format="NCHW",
        result_types=[tensor_type(shape, dt, "NCHW")],
    )
    b.output(back, five)
    module = b.build()
    x_in = rand(*shape, dtype=dtype)
    out_back, out_five = evaluate(module, {0: x_in})
    np.testing.assert_array_equal(out_back, x_in)
    np.testing.assert_array_equal(out_five, x_in)
    _, stored = evaluate(module, {0: x_in}, outputs_as_stored=True)
    np.testing.assert_array_equal(stored, to_storage(x_in, "NCHW", "NC1HWC0"))


def test_cast_between_storage_layouts_changes_c0():
    """fp32 NC1HWC0 (C0 = 8) cast to fp16 NC1HWC0 (C0 = 16)."""
    shape = [1, 17, 2, 2]
    b = GraphBuilder()
    x = b.data(shape, "float32", format="NCHW")
    x5 = b.transdata(
        x,
        src_format="NCHW",
        dst_format="NC1HWC0",
        result_types=[tensor_type(shape, "float32", "NCHW", "NC1HWC0")],
    )
    h5 = b.cast(
        x5,
        dst_type="float16",
        result_types=[tensor_type(shape, "float16", "NCHW", "NC1HWC0")],
    )
    b.output(h5)
    module = b.build()
    x_in = rand(*shape)
    (out,) = evaluate(module, {0: x_in})
    np.testing.assert_array_equal(out, x_in.astype(np.float16))
    (stored,) = evaluate(module, {0: x_in}, outputs_as_stored=True)
    assert stored.shape == (1, 2, 2, 2, 16)


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
def test_matmul_on_fractal_nz(dtype: Any):
    dt = np.dtype(dtype).name
    a, w = rand(17, 33, dtype=dtype), rand(33, 5, dtype=dtype)
    b = GraphBuilder()
    x = b.data(a.shape, dt)
    xn = b.transdata(
        x,
        src_format="ND",
        dst_format="FRACTAL_NZ",
        result_types=[tensor_type(a.shape, dt, "ND", "FRACTAL_NZ")],
    )
    wn = stored_const(b, w, "ND", "FRACTAL_NZ")
    y = b.matmul(xn, wn, result_types=[tensor_type([17, 5], dt, "ND", "FRACTAL_NZ")])
    b.output(y)
    (out,) = evaluate(b.build(), {0: a})
    np.testing.assert_array_equal(out, kernel_calls.matmul(a, w))


def test_grouped_fractal_z_takes_groups_from_transdata():
    x, w = rand(1, 4, 5, 5), rand(6, 2, 3, 3)
    (ref,) = run_onnx("Conv", [x, w], group=2)
    b = GraphBuilder()
    xv = b.data(x.shape, "float32", format="NCHW")
    wv = b.const(w, format="NCHW")
    wz = b.transdata(
        wv,
        src_format="NCHW",
        dst_format="FRACTAL_Z",
        groups=2,
        result_types=[tensor_type(w.shape, "float32", "NCHW", "FRACTAL_Z")],
    )
    y = b.conv2d(xv, wz, data_format="NCHW", groups=2, result_types=[plain(ref)])
    b.output(y, wz)
    out, wz_stored = evaluate(b.build(), {0: x}, outputs_as_stored=True)
    check(out, ref)
    np.testing.assert_array_equal(
        wz_stored, to_storage(w, "NCHW", "FRACTAL_Z", groups=2)
    )


# ---------------------------------------------------------------------------
# Control flow
# ---------------------------------------------------------------------------


def if_graph(cond_shape: Sequence[int]) -> Any:
    b = GraphBuilder()
    c = b.data(cond_shape, "int32", name="c")
    x = b.data([2, 3], "float32", name="x")
    t = tensor_type([2, 3], "float32")
    (r,) = b.if_(
        c,
        [x],
        lambda sb, a: sb.relu(a, result_types=[t]),
        lambda sb, a: sb.neg(a, result_types=[t]),
    )
    b.output(r)
    return b.build()


@pytest.mark.parametrize("cond_shape", [[], [1]])
@pytest.mark.parametrize("cond", [0, 1, -3])
def test_if_runs_the_branch_the_condition_selects(cond: int, cond_shape: list[int]):
    x = rand(2, 3)
    c = np.full(cond_shape, cond, np.int32)
    (out,) = evaluate(if_graph(cond_shape), {"c": c, "x": x})
    np.testing.assert_array_equal(out, np.maximum(x, 0) if cond else -x)


def test_if_with_several_elements_is_true_when_non_empty():
    x = rand(2, 3)
    (out,) = evaluate(if_graph([2]), {"c": np.zeros(2, np.int32), "x": x})
    np.testing.assert_array_equal(out, np.maximum(x, 0))


@pytest.mark.parametrize("index, branch", [(0, 0), (1, 1), (2, 2), (7, 2), (-1, 2)])
def test_case_runs_the_indexed_branch_out_of_range_is_last(index: int, branch: int):
    b = GraphBuilder()
    i = b.data([], "int32", name="i")
    x = b.data([4], "float32", name="x")
    t = tensor_type([4], "float32")
    (r,) = b.case(
        i,
        [x],
        [
            lambda sb, a: sb.relu(a, result_types=[t]),
            lambda sb, a: sb.neg(a, result_types=[t]),
            lambda sb, a: sb.exp(a, result_types=[t]),
        ],
    )
    b.output(r)
    x_in = rand(4)
    (out,) = evaluate(b.build(), {"i": np.array(index, np.int32), "x": x_in})
    expected = [np.maximum(x_in, 0), -x_in, np.exp(x_in)][branch]
    np.testing.assert_array_equal(out, expected)


def counting_loop(limit_value: int | None) -> Any:
    """while (limit - i) != 0: i += 1; x *= 2  (limit None: loop forever)."""
    scalar = tensor_type([], "int32")
    b = GraphBuilder()
    i = b.data([], "int32", name="i")
    x = b.data([2, 2], "float32", name="x")

    def cond(sb: GraphBuilder, iv: Any, xv: Any) -> Any:
        if limit_value is None:
            return sb.const(np.array(1, np.int32))
        limit = sb.const(np.array(limit_value, np.int32))
        return sb.sub(limit, iv, result_types=[scalar])

    def body(sb: GraphBuilder, iv: Any, xv: Any) -> list[Any]:
        one = sb.const(np.array(1, np.int32))
        two = sb.const(np.full([2, 2], 2, np.float32))
        return [
            sb.add(iv, one, result_types=[scalar]),
            sb.mul(xv, two, result_types=[xv.type]),
        ]

    b.output(*b.while_([i, x], cond, body))
    return b.build()


def test_while_loops_until_the_condition_is_false():
    x = rand(2, 2)
    i_out, x_out = evaluate(counting_loop(5), {"i": np.array(1, np.int32), "x": x})
    assert i_out == 5
    np.testing.assert_array_equal(x_out, x * 16)


def test_while_without_end_hits_the_iteration_cap():
    with pytest.raises(GEError, match="'ge.while' op did not finish within 20"):
        evaluate(
            counting_loop(None),
            {"i": np.array(0, np.int32), "x": rand(2, 2)},
            max_iterations=20,
        )


PARTITIONED = """
!plain = tensor<1x17x2x2xf16, #ge.layout<NCHW>>
!five = tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : !plain
  %y = ge.partitioned_call %x {engine = "AIcoreEngine"} : (!plain) -> !plain {
    %a = ge.data {parent_index = 0 : i64} : !five
    %b = ge.relu %a : !five -> !five
    ge.netoutput %b : !five
  }
  ge.netoutput %y : !plain
}
"""


def parse(text: str, name: str = "test.mlir") -> Any:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return parse_module(ctx, text, name)


def test_partitioned_call_subgraph_holds_its_own_layout():
    x = rand(1, 17, 2, 2, dtype=np.float16)
    (out,) = evaluate(parse(PARTITIONED), {"x": x})
    np.testing.assert_array_equal(out, np.maximum(x, 0))


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


def external_graph() -> tuple[Any, np.ndarray, np.ndarray]:
    """x + w where w is `#ge.external<"w">` held in NC1HWC0."""
    w = rand(1, 17, 2, 2)
    b = GraphBuilder()
    x = b.data(w.shape, "float32", format="NCHW", name="x")
    t = tensor_type(w.shape, "float32", "NCHW", "NC1HWC0")
    wv = b.op("const", value=ExternalDataAttr("w"), result_types=[t])
    b.output(b.add(x, wv, result_types=[tensor_type(w.shape, "float32", "NCHW")]))
    return b.build(), w, to_storage(w, "NCHW", "NC1HWC0")


def test_external_weights_are_read_in_storage_layout(tmp_path: Path):
    module, w, w_stored = external_graph()
    x = rand(*w.shape)
    (out,) = evaluate(module, {"x": x}, weights={"w": w_stored})
    np.testing.assert_array_equal(out, x + w)
    np.savez(tmp_path / "w.npz", w=w_stored)
    (out,) = evaluate(module, {"x": x}, weights=tmp_path / "w.npz")
    np.testing.assert_array_equal(out, x + w)


def test_external_weight_missing_or_in_origin_layout_is_an_error():
    module, w, _ = external_graph()
    x = rand(*w.shape)
    with pytest.raises(GEError, match="'ge.const' op weight 'w' is not in the weights"):
        evaluate(module, {"x": x})
    with pytest.raises(GEError, match=r"value is float32\[1, 17, 2, 2\], the result's"):
        evaluate(module, {"x": x}, weights={"w": w})


# ---------------------------------------------------------------------------
# Bad calls
# ---------------------------------------------------------------------------


def relu_module() -> Any:
    b = GraphBuilder()
    x = b.data([2, 3], "float32", name="x")
    b.output(b.relu(x, result_types=[tensor_type([2, 3], "float32")]))
    return b.build()


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({}, r"'ge.data' op input #0 \('x'\) is missing"),
        (
            {"y": np.zeros((2, 3), np.float32)},
            r"has no input 'y' \(inputs: #0 \('x'\)\)",
        ),
        ({"x": np.zeros((3, 2), np.float32)}, r"has shape \[3, 2\], the graph expects"),
        ({"x": np.zeros((2, 3), np.float64)}, "has dtype float64, the graph expects"),
        (
            {"x": np.zeros((2, 3), np.float32), 0: np.zeros((2, 3), np.float32)},
            "given twice",
        ),
    ],
)
def test_bad_inputs_are_one_line_errors(inputs: dict, message: str):
    with pytest.raises(GEError, match=message) as info:
        evaluate(relu_module(), inputs)
    assert "\n" not in str(info.value)


@irdl_op_definition
class MysteryOp(IRDLOperation):
    """An op without reference semantics."""

    name = "test.mystery"
    x = operand_def(TensorType)
    y = result_def(TensorType)


def test_unsupported_op_names_the_op_and_location():
    module = relu_module()
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    data = graph.inputs()[0]
    mystery = MysteryOp.build(operands=[data.output], result_types=[data.output.type])
    mystery.attributes["name"] = StringAttr("odd")
    graph.body.block.insert_op_after(mystery, data)
    graph.output.operands = [mystery.y]
    with pytest.raises(
        GEError, match=r"node 'odd': error: 'test.mystery' op has no NumPy reference"
    ):
        evaluate(module, {"x": np.zeros((2, 3), np.float32)})


def test_result_type_mismatch_is_reported():
    b = GraphBuilder()
    x = b.data([2, 3], "float32", name="x")
    b.output(b.relu(x, result_types=[tensor_type([3, 2], "float32")], name="r"))
    module = b.build(verify=False)
    with pytest.raises(GEError, match=r"'ge.relu' op result #0 has shape \[2, 3\]"):
        evaluate(module, {"x": np.zeros((2, 3), np.float32)})


def test_kernel_failure_is_a_located_error():
    b = GraphBuilder()
    x = b.data([2, 3], "float32", name="x")
    t = tensor_type([2, 1], "float32")
    b.output(*b.split(x, axis=1, sizes=[1, 1], result_types=[t, t], name="s"))
    with pytest.raises(GEError, match="node 's': error: 'ge.split' op host kernel"):
        evaluate(b.build(verify=False), {"x": np.zeros((2, 3), np.float32)})


# ---------------------------------------------------------------------------
# ge-run --reference
# ---------------------------------------------------------------------------


def write_module(module: Any, path: Path) -> Path:
    with path.open("w") as stream:
        Printer(stream=stream).print_op(module)
    return path


def test_ge_run_writes_outputs_and_summaries(tmp_path: Path, capsys):
    stored, feeds = conv_chain(17, np.float16, stored=True)
    model = write_module(stored, tmp_path / "chain.mlir")
    np.save(tmp_path / "x.npy", feeds["x"])
    out_dir = tmp_path / "out"
    argv = ["--reference", str(model), "--input", f"x={tmp_path / 'x.npy'}"]
    assert ge_run.main([*argv, "--output-dir", str(out_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "output_0.npy: shape [2, 17, 3, 3], dtype float16",
        "output_1.npy: shape [2, 17, 1, 1], dtype float16",
        "output_2.npy: shape [2, 17, 5, 5], dtype float16",
    ]
    expected = evaluate(stored, feeds)
    for index, array in enumerate(expected):
        np.testing.assert_array_equal(np.load(out_dir / f"output_{index}.npy"), array)
    stored_dir = tmp_path / "stored"
    assert (
        ge_run.main([*argv, "--output-dir", str(stored_dir), "--stored-outputs"]) == 0
    )
    assert np.load(stored_dir / "output_2.npy").shape == (2, 2, 5, 5, 16)


def test_ge_run_reads_weights_named_by_the_module(tmp_path: Path, capsys):
    module, w, w_stored = external_graph()
    module.attributes["ge.weights"] = StringAttr("weights.npz")
    model = write_module(module, tmp_path / "ext.mlir")
    np.savez(tmp_path / "weights.npz", w=w_stored)
    x = rand(*w.shape)
    np.save(tmp_path / "x.npy", x)
    argv = ["--reference", str(model), "--input", f"0={tmp_path / 'x.npy'}"]
    assert ge_run.main([*argv, "--output-dir", str(tmp_path / "o")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "o" / "output_0.npy"), x + w)


def test_ge_run_random_inputs_are_seeded(tmp_path: Path):
    model = write_module(relu_module(), tmp_path / "relu.mlir")
    runs = []
    for seed, name in ((1, "a"), (1, "b"), (2, "c")):
        argv = ["--reference", str(model), "--random-inputs", "--seed", str(seed)]
        assert ge_run.main([*argv, "--output-dir", str(tmp_path / name)]) == 0
        runs.append(np.load(tmp_path / name / "output_0.npy"))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])
    assert (runs[0] >= 0).all() and runs[0].dtype == np.float32


@pytest.mark.parametrize(
    "input_flag, message",
    [
        (None, "input #0 ('x') is missing"),
        ("y=GOOD", "graph 'main' has no input 'y'"),
        ("x=BAD_SHAPE", "has shape [3, 2], the graph expects [2, 3]"),
        ("x=MODEL", "relu.mlir: error: cannot read the array: not a .npy file"),
        ("x", "--input 'x' must be NAME=FILE.npy"),
    ],
)
def test_ge_run_errors_are_one_line_and_write_nothing(
    tmp_path: Path, capsys, input_flag: str | None, message: str
):
    model = write_module(relu_module(), tmp_path / "relu.mlir")
    np.save(tmp_path / "good.npy", np.zeros((2, 3), np.float32))
    np.save(tmp_path / "bad.npy", np.zeros((3, 2), np.float32))
    argv = ["--reference", str(model), "--output-dir", str(tmp_path / "out")]
    if input_flag is not None:
        flag = (
            input_flag.replace("GOOD", str(tmp_path / "good.npy"))
            .replace("BAD_SHAPE", str(tmp_path / "bad.npy"))
            .replace("MODEL", str(model))
        )
        argv += ["--input", flag]
    assert ge_run.main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_ge_run_without_reference_runs_the_jit(tmp_path: Path, capsys):
    model = write_module(relu_module(), tmp_path / "relu.mlir")
    args = [
        str(model),
        "--random-inputs",
        "--check",
        "--output-dir",
        str(tmp_path / "o"),
    ]
    assert ge_run.main(args) == 0
    assert ": ok" in capsys.readouterr().out


# The ONNX package's pytorch-converted / pytorch-operator backend cases need
# the ONNX importer (ge_frontend); they belong with that issue.
