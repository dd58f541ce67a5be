"""`GraphBuilder`: building verified `ge` graphs from Python."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    f16,
    f32,
)
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, OptOperandDef, VarOperandDef
from xdsl.printer import Printer

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.builder import (
    GraphBuilder,
    dtype_of,
    python_to_attribute,
    tensor_type,
)
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.ops import (
    GE_OPS,
    CaseOp,
    ConstOp,
    DataOp,
    GraphOp,
    IfOp,
    NetOutputOp,
    Structural,
    VariableOp,
    WhileOp,
)
from ge_dialect.parsing import parse_module

STRUCTURE_OPS = {
    "ge.graph",
    "ge.data",
    "ge.const",
    "ge.variable",
    "ge.netoutput",
    "ge.if",
    "ge.case",
    "ge.while",
    "ge.partitioned_call",
    "ge.fused",
}
"""Ops the builder makes with dedicated methods (or, for partitioned_call and
fused, not at all: engine partitioning and fuse-ops create them)."""


def text_of(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def reparsed(module: ModuleOp) -> str:
    """The module printed, parsed back (verified) and printed again."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    text = text_of(module)
    again = text_of(parse_module(ctx, text))
    assert again == text
    return text


def ops_of(module: ModuleOp, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


def shape(value) -> tuple[int, ...]:
    return shape_of(value.type)


# ---------------------------------------------------------------------------
# Inputs, constants, variables, outputs
# ---------------------------------------------------------------------------


def test_data_inputs_get_consecutive_indices():
    b = GraphBuilder("inputs")
    x = b.data([1, 3, 8, 8], "float16", format="NCHW", name="x")
    y = b.data([2, 5])
    z = b.data([-1, 4], "int32")
    b.output(x, y, z)
    module = b.build()
    data = ops_of(module, "ge.data")
    assert [op.index_value for op in data] == [0, 1, 2]
    assert data[0].attributes["name"] == StringAttr("x")
    assert x.type == TensorType(f16, [1, 3, 8, 8], LayoutAttr("NCHW"))
    assert y.type == TensorType(f32, [2, 5])
    assert shape(z) == (-1, 4) and dtype_of(z) == "int32"
    text = reparsed(module)
    assert "tensor<?x4xi32>" in text
    assert "ge.graph @inputs" in text


def test_data_storage_format_and_shape():
    b = GraphBuilder()
    x = b.data(
        [1, 3, 8, 8],
        "float16",
        format="NCHW",
        storage_format="NC1HWC0",
        storage_shape=[1, 1, 8, 8, 16],
    )
    b.output(x)
    module = b.build()
    (data,) = ops_of(module, "ge.data")
    assert data.attributes["storage_format"] == FormatAttr(Format.NC1HWC0)
    storage_shape = data.attributes["storage_shape"]
    assert isinstance(storage_shape, DenseArrayBase)
    assert list(storage_shape.get_values()) == [1, 1, 8, 8, 16]
    assert "storage_format = #ge.format<NC1HWC0>" in reparsed(module)


def test_storage_shape_without_storage_format_fails_verification():
    b = GraphBuilder()
    b.output(b.data([2], storage_shape=[2]))
    with pytest.raises(GEError, match="'storage_shape' requires 'storage_format'"):
        b.build()


def test_constants():
    b = GraphBuilder("constants")
    w = b.const(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    i = b.const([1, 2, 3], "int32")
    s = b.const(2.5, "float16")
    f = b.const(np.ones((4, 3, 3, 3), np.float32), format="NCHW")
    e = b.external_const("conv1.weight", [8, 3, 3, 3], "float16", format="NCHW")
    b.output(w, i, s, f, e)
    module = b.build()
    consts = ops_of(module, "ge.const")
    assert len(consts) == 5
    assert consts[0].attributes["name"] == StringAttr("w")
    assert w.type == TensorType(f32, [2, 3])
    assert i.type == TensorType(IntegerType(32), [3])
    assert s.type == TensorType(f16, [])
    assert layout_of(f.type) == (Format.NCHW, Format.NCHW)
    assert consts[4].attributes["value"] == ExternalDataAttr("conv1.weight")
    assert e.type == TensorType(f16, [8, 3, 3, 3], LayoutAttr("NCHW"))
    text = reparsed(module)
    assert '#ge.external<"conv1.weight">' in text
    assert "dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00]," in text


def test_variable():
    b = GraphBuilder()
    v = b.variable("step", [], "int64")
    b.output(v)
    module = b.build()
    (var,) = ops_of(module, "ge.variable")
    assert isinstance(var, VariableOp)
    assert var.var_name == StringAttr("step")
    assert 'ge.variable {name = "step"} : tensor<i64>' in reparsed(module)


def test_output_storage_formats():
    b = GraphBuilder()
    x = b.data([1, 16, 4, 4], "float16", format="NCHW")
    y = b.data([2, 3])
    b.output(x, y, storage_formats=["NC1HWC0", "ND"])
    module = b.build()
    (out,) = ops_of(module, "ge.netoutput")
    assert out.attributes["storage_formats"] == ArrayAttr(
        [FormatAttr(Format.NC1HWC0), FormatAttr(Format.ND)]
    )
    assert "storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]" in reparsed(module)


def test_output_storage_formats_length_is_verified():
    b = GraphBuilder()
    b.output(b.data([2]), storage_formats=["ND", "ND"])
    with pytest.raises(GEError, match="'storage_formats' has 2 entries for 1 outputs"):
        b.build()


def test_graph_without_outputs():
    b = GraphBuilder("empty")
    b.output()
    module = b.build()
    graph = next(iter(module.ops))
    assert isinstance(graph, GraphOp)
    assert graph.sym_name == StringAttr("empty")
    assert isinstance(graph.output, NetOutputOp) and not graph.output.operands


def test_graph_op_and_inputs():
    b = GraphBuilder("g")
    x = b.data([2])
    y = b.data([2])
    b.output(b.add(x, y))
    graph = b.graph()
    assert isinstance(graph, GraphOp)
    assert [d.index_value for d in graph.inputs()] == [0, 1]


# ---------------------------------------------------------------------------
# Every op family through b.<op>(...)
# ---------------------------------------------------------------------------


def test_trans_ops():
    b = GraphBuilder("trans")
    x = b.data([1, 3, 8, 8], "float16", format="NCHW")
    td = b.transdata(x, src_format="NCHW", dst_format="NC1HWC0")
    back = b.transdata(td, src_format="NC1HWC0", dst_format="NCHW")
    c = b.cast(back, dst_type="float32")
    r = b.reshape(c, shape=[1, 3, 64])
    f = b.flatten(c, axis=2)
    u = b.unsqueeze(r, axes=[0])
    s = b.squeeze(u, axes=[0])
    e = b.expand_dims(s, axis=-1)
    t = b.transpose(c, perm=[0, 2, 3, 1])
    p = b.permute(c, order=[3, 2, 1, 0])
    heads = b.confusion_transpose(r, perm=[0, 2, 1, 3], shape=[1, 3, 4, 16])
    merged = b.confusion_transpose(
        heads, perm=[0, 2, 1, 3], shape=[1, 3, 64], transpose_first=True
    )
    b.output(td, f, e, t, p, merged)
    module = b.build()
    assert td.type == TensorType(f16, [1, 3, 8, 8], LayoutAttr("NCHW", "NC1HWC0"))
    assert layout_of(back.type) == (Format.NCHW, Format.NCHW)
    assert dtype_of(c) == "float32" and shape(c) == (1, 3, 8, 8)
    assert shape(r) == (1, 3, 64)
    assert shape(f) == (3, 64)
    assert shape(u) == (1, 1, 3, 64)
    assert shape(s) == (1, 3, 64)
    assert shape(e) == (1, 3, 64, 1)
    assert shape(t) == (1, 8, 8, 3)
    assert shape(p) == (8, 8, 3, 1)
    assert shape(heads) == (1, 4, 3, 16) and shape(merged) == (1, 3, 64)
    text = reparsed(module)
    assert "src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>" in text
    assert "dst_type = f32" in text
    assert "transpose_first = true" in text


UNARY = [
    "relu",
    "sigmoid",
    "tanh",
    "softplus",
    "neg",
    "abs",
    "exp",
    "sqrt",
    "log",
    "reciprocal",
    "identity",
    "hard_swish",
    "erf",
    "relu6",
    "rsqrt",
]


def test_elementwise_ops():
    b = GraphBuilder("elementwise")
    x = b.data([4, 1, 3])
    y = b.data([2, 1])
    value = x
    for name in UNARY:
        value = getattr(b, name)(value)
        assert shape(value) == (4, 1, 3), name
    value = b.leaky_relu(value, alpha=0.2)
    value = b.elu(value, alpha=0.5)
    value = b.selu(value)
    value = b.clip(value, min=0.0, max=6.0)
    binary = ("add", "sub", "mul", "div", "squared_difference")
    results = [b.op(name, value, y) for name in binary]
    results += [b.pow(value, y), b.maximum(value, y), b.minimum(value, y)]
    for result in results:
        assert shape(result) == (4, 2, 3)
    predicates = [
        b.op(name, value, y)
        for name in ("equal", "not_equal", "less", "less_equal", "greater")
    ]
    predicates += [b.greater_equal(value, y), b.logical_not(value)]
    truth = b.logical_and(b.logical_or(predicates[0], predicates[1]), predicates[2])
    chosen = b.select(b.logical_xor(truth, predicates[3]), results[0], results[1])
    for predicate in (*predicates[:-1], truth):
        assert shape(predicate) == (4, 2, 3) and dtype_of(predicate) == "bool"
    assert shape(chosen) == (4, 2, 3) and dtype_of(chosen) == "float32"
    results.append(chosen)
    total = b.add_n(results)
    slope = b.const(np.full(3, 0.25, np.float32))
    pr = b.prelu(total, slope)
    b.output(pr)
    module = b.build()
    assert shape(total) == (4, 2, 3) and shape(pr) == (4, 2, 3)
    text = reparsed(module)
    assert "alpha = 2.000000e-01 : f32" in text
    assert "min = 0.000000e+00 : f32, max = 6.000000e+00 : f32" in text
    predicates = [
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
    ]
    logic = ["logical_and", "logical_or", "logical_xor", "logical_not", "select"]
    others = ["leaky_relu", "elu", "selu", "clip", "add_n", "prelu"]
    for name in [*UNARY, *others, *predicates, *logic]:
        assert f"ge.{name} " in text, name


MATH = [
    "erf",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "ceil",
    "floor",
    "round",
    "sign",
    "mish",
    "gelu",
    "swish",
    "celu",
    "thresholded_relu",
    "shrink",
]
COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGIC = ["logical_and", "logical_or", "logical_xor"]
BITS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]


def test_math_comparison_logic_and_bit_ops():
    """Float math keeps shape and dtype; comparisons broadcast to bools; logic
    and bit ops keep their operands' dtype; select broadcasts all three."""
    b = GraphBuilder("logic")
    x = b.data([4, 1, 3])
    y = b.data([2, 1])
    value = x
    for name in MATH:
        value = getattr(b, name)(value)
        assert shape(value) == (4, 1, 3) and dtype_of(value) == "float32", name
    masks = [getattr(b, name)(value, y) for name in COMPARISONS]
    assert all(shape(m) == (4, 2, 3) and dtype_of(m) == "bool" for m in masks)
    mask = masks[0]
    for name in LOGIC:
        mask = getattr(b, name)(mask, masks[1])
    mask = b.logical_not(mask)
    nan, inf = b.is_nan(value), b.is_inf(value, detect_negative=0)
    assert dtype_of(nan) == dtype_of(inf) == "bool"
    chosen = b.select(mask, value, y)
    assert shape(chosen) == (4, 2, 3) and dtype_of(chosen) == "float32"
    bits = b.data([5], "uint8")
    word = bits
    for name in BITS:
        word = getattr(b, name)(word, bits)
    word = b.bitwise_not(word)
    remainder = b.mod(value, y, fmod=1)
    b.output(chosen, nan, inf, word, remainder)
    text = reparsed(b.build())
    for name in [*MATH, *COMPARISONS, *LOGIC, *BITS, "select", "mod", "bitwise_not"]:
        assert f"ge.{name} " in text, name


def test_layout_is_kept_by_elementwise_ops():
    b = GraphBuilder()
    x = b.data([1, 16, 4, 4], "float16", format="NCHW")
    y = b.relu(x)
    b.output(y)
    b.build()
    assert y.type == x.type


def test_nn_ops_nchw():
    b = GraphBuilder("nn")
    x = b.data([1, 3, 8, 8], format="NCHW")
    w = b.const(np.ones((4, 3, 3, 3), np.float32), format="NCHW")
    bias = b.const(np.zeros(4, np.float32))
    y = b.conv2d(
        x, w, bias, data_format="NCHW", strides=[1, 1, 2, 2], pads=[1, 1, 1, 1]
    )
    assert shape(y) == (1, 4, 4, 4)
    assert layout_of(y.type)[0] is Format.NCHW
    y0 = b.conv2d(x, w, data_format="NCHW")
    assert shape(y0) == (1, 4, 6, 6)
    wt = b.const(np.ones((4, 2, 3, 3), np.float32))
    up = b.conv2d_transpose(
        y, wt, data_format="NCHW", strides=[1, 1, 2, 2], output_padding=[1, 1]
    )
    assert shape(up) == (1, 2, 10, 10)
    mp = b.max_pool(y0, data_format="NCHW", ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2])
    ap = b.avg_pool(
        y0,
        data_format="NCHW",
        ksize=[1, 1, 3, 3],
        strides=[1, 1, 1, 1],
        pads=[1, 1, 1, 1],
        count_include_pad=True,
    )
    assert shape(mp) == (1, 4, 3, 3) and shape(ap) == (1, 4, 6, 6)
    lp = b.lp_pool(
        y0, data_format="NCHW", ksize=[1, 1, 2, 2], dilations=[1, 1, 2, 2], p=3.0
    )
    assert shape(lp) == (1, 4, 4, 4)
    ga = b.global_avg_pool(y0, data_format="NCHW")
    gm = b.global_max_pool(y0, data_format="NCHW")
    gl = b.global_lp_pool(lp, data_format="NCHW")
    assert shape(ga) == shape(gm) == shape(gl) == (1, 4, 1, 1)
    p = b.const(np.ones(4, np.float32))
    bn = b.batch_norm(y0, p, p, p, p, data_format="NCHW", epsilon=1e-3)
    inn = b.instance_norm(bn, p, p, data_format="NCHW")
    lrn = b.lrn(inn, data_format="NCHW", size=3)
    ba = b.bias_add(lrn, p, data_format="NCHW")
    assert shape(ba) == (1, 4, 6, 6)
    b.output(up, mp, ap, ga, gm, gl, ba)
    text = reparsed(b.build())
    for name in [
        "conv2d",
        "conv2d_transpose",
        "max_pool",
        "avg_pool",
        "lp_pool",
        "global_avg_pool",
        "global_max_pool",
        "global_lp_pool",
        "batch_norm",
        "instance_norm",
        "lrn",
        "bias_add",
    ]:
        assert f"ge.{name} " in text, name
    assert "count_include_pad = true" in text


def test_nn_ops_nhwc():
    b = GraphBuilder("nhwc")
    x = b.data([1, 8, 8, 3], format="NHWC")
    w = b.data([3, 3, 3, 6], format="HWCN")
    y = b.conv2d(x, w, data_format="NHWC", pads=[1, 1, 1, 1])
    assert shape(y) == (1, 8, 8, 6)
    g = b.conv2d(
        y,
        b.data([3, 3, 2, 6], format="HWCN"),
        data_format="NHWC",
        groups=3,
        strides=[1, 2, 2, 1],
    )
    assert shape(g) == (1, 3, 3, 6)
    p = b.max_pool(g, data_format="NHWC", ksize=[1, 3, 3, 1])
    assert shape(p) == (1, 1, 1, 6)
    ba = b.bias_add(p, b.data([6]), data_format="NHWC")
    b.output(ba)
    assert "groups = 3 : i64" in reparsed(b.build())


def test_matmul_ops():
    b = GraphBuilder("matmul")
    a = b.data([2, 3])
    w = b.data([5, 3])
    m = b.matmul(a, w, transpose_x2=True)
    assert shape(m) == (2, 5)
    mb = b.matmul(a, b.data([3, 4]), b.data([4]))
    assert shape(mb) == (2, 4)
    bm = b.batch_matmul(b.data([4, 1, 2, 3]), b.data([5, 3, 6]))
    assert shape(bm) == (4, 5, 2, 6)
    bma = b.batch_matmul(b.data([5, 3, 2]), b.data([5, 3, 6]), adj_x1=True)
    assert shape(bma) == (5, 2, 6)
    g = b.gemm(b.data([3, 2]), b.data([4, 3]), b.data([4]), trans_a=True, trans_b=True)
    assert shape(g) == (2, 4)
    g2 = b.gemm(a, b.data([3, 7]), alpha=0.5, beta=0.0)
    assert shape(g2) == (2, 7)
    b.output(m, mb, bm, bma, g, g2)
    text = reparsed(b.build())
    assert "transpose_x2 = true" in text and "trans_a = true" in text
    assert "adj_x1 = true" in text and "alpha = 5.000000e-01 : f32" in text


def test_data_movement_ops():
    b = GraphBuilder("movement")
    x = b.data([2, 3])
    y = b.data([2, 5])
    c = b.concat([x, y], axis=1)
    assert shape(c) == (2, 8)
    parts = b.split(c, axis=1, sizes=[4, 3, 1])
    assert [shape(p) for p in parts] == [(2, 4), (2, 3), (2, 1)]
    (single,) = [b.split(x, axis=0, sizes=[2])]
    assert shape(single) == (2, 3)
    s = b.slice(c, begins=[0, 1], ends=[1, 7], axes=[0, 1], steps=[1, 2])
    assert shape(s) == (1, 3)
    indices = b.const(np.array([0, 2], np.int64))
    g = b.gather(c, indices, axis=1)
    assert shape(g) == (2, 2)
    ge = b.gather_elements(c, b.const(np.zeros((2, 3), np.int64)), axis=1)
    assert shape(ge) == (2, 3)
    gn = b.gather_nd(c, b.const(np.array([[1], [0]], np.int32)), batch_dims=1)
    assert shape(gn) == (2,)
    t = b.tile(x, multiples=[2, 2])
    assert shape(t) == (4, 6)
    p = b.pad(x, paddings=[0, 1, 1, 2], mode="constant", value=-1.0)
    assert shape(p) == (3, 6)
    pr = b.pad(x, paddings=[1, 1, 1, 1], mode="reflect")
    assert shape(pr) == (4, 5)
    tu = b.trilu(c, b.const(np.array(-1, np.int64)), upper=False)
    assert shape(tu) == (2, 8)
    cs = b.channel_shuffle(c, groups=4)
    assert shape(cs) == (2, 8)
    b.output(*parts, single, s, g, ge, gn, t, p, pr, tu, cs)
    text = reparsed(b.build())
    assert "upper = false" in text and "groups = 4" in text
    names = ["concat", "split", "slice", "gather", "gather_elements", "gather_nd"]
    for name in [*names, "tile", "pad", "trilu", "channel_shuffle"]:
        assert f"ge.{name} " in text, name
    assert 'mode = "reflect"' in text


def test_softmax_and_reductions():
    b = GraphBuilder("reduce")
    x = b.data([2, 3, 4])
    s = b.softmax(x, axis=1)
    ls = b.log_softmax(x)
    lp = b.lp_norm(x, axis=0, p=1)
    assert shape(s) == shape(ls) == shape(lp) == (2, 3, 4)
    r = b.reduce_sum(x, axes=[1])
    m = b.reduce_mean(x, axes=[0, -1], keep_dims=False)
    mx = b.reduce_max(x)
    assert shape(r) == (2, 1, 4)
    assert shape(m) == (3,)
    assert shape(mx) == (1, 1, 1)
    mn = b.reduce_min(x, axes=[2])
    pr = b.reduce_prod(x, keep_dims=False)
    assert shape(mn) == (2, 3, 1) and shape(pr) == ()
    am = b.arg_max(x, axis=1)
    an = b.arg_min(x, axis=-1, keep_dims=False, select_last_index=True)
    assert shape(am) == (2, 1, 4) and shape(an) == (2, 3)
    b.output(s, ls, lp, r, m, mx, mn, pr, am, an)
    text = reparsed(b.build())
    assert "keep_dims = false" in text and "select_last_index = true" in text
    for name in [
        "softmax",
        "log_softmax",
        "lp_norm",
        "reduce_sum",
        "reduce_mean",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "arg_max",
        "arg_min",
    ]:
        assert f"ge.{name} " in text, name


def test_cumulative_ops():
    b = GraphBuilder("cumulative")
    x = b.data([3, 17], "int32")
    s = b.cum_sum(x, axis=1, exclusive=True)
    p = b.cum_prod(x, axis=-2, reverse=True)
    assert shape(s) == shape(p) == (3, 17)
    b.output(s, p)
    text = reparsed(b.build())
    assert "ge.cum_sum " in text and "ge.cum_prod " in text
    assert "exclusive = true" in text and "reverse = true" in text


def test_scatter_ops():
    b = GraphBuilder("scatter")
    data = b.data([3, 17])
    se = b.scatter_elements(
        data,
        b.const(np.zeros((3, 2), np.int32)),
        b.const(np.ones((3, 2), np.float32)),
        axis=1,
        reduction="add",
    )
    sn = b.scatter_nd(
        data,
        b.const(np.array([[0], [2]], np.int64)),
        b.const(np.ones((2, 17), np.float32)),
    )
    assert shape(se) == shape(sn) == (3, 17)
    oh = b.one_hot(b.data([3, 5], "int64"), b.const(np.array([0, 1], np.int8)), depth=4)
    assert shape(oh) == (3, 5, 4) and dtype_of(oh) == "int8"
    b.output(se, sn, oh)
    text = reparsed(b.build())
    assert "ge.scatter_elements " in text and "ge.scatter_nd " in text
    assert "ge.one_hot " in text
    assert 'reduction = "add"' in text


def test_einsum():
    b = GraphBuilder("einsum")
    x = b.data([3, 4, 17])
    w = b.data([17, 5])
    e = b.einsum([x, w], equation="...j,jk->...k")
    d = b.einsum([b.data([5, 5])], equation="ii")
    assert shape(e) == (3, 4, 5) and shape(d) == ()
    b.output(e, d)
    text = reparsed(b.build())
    assert "ge.einsum " in text and 'equation = "...j,jk->...k"' in text


def test_top_k():
    b = GraphBuilder("top_k")
    x = b.data([3, 17], "float16")
    values, indices = b.top_k(x, k=5)
    smallest, positions = b.top_k(x, k=3, axis=0, largest=False)
    assert shape(values) == shape(indices) == (3, 5)
    assert shape(smallest) == (3, 17) and dtype_of(positions) == "int64"
    kept = b.compress(x, b.data([17], "bool"), axis=1)
    assert shape(kept) == (3, -1)
    b.output(values, indices, smallest, positions, kept)
    text = reparsed(b.build())
    assert "ge.top_k " in text and "largest = false" in text
    assert "ge.compress " in text
    b = GraphBuilder("unique")
    y, first, inverse, counts = b.unique(b.data([17], "int32"), sorted=False)
    assert shape(y) == shape(first) == shape(counts) == (-1,)
    assert shape(inverse) == (17,) and dtype_of(counts) == "int64"
    b.output(y, first, inverse, counts)
    assert "ge.unique " in reparsed(b.build())
    b = GraphBuilder("non_zero")
    found = b.non_zero(b.data([3, 17], "int32"))
    assert shape(found) == (2, -1) and dtype_of(found) == "int64"
    b.output(found)
    assert "ge.non_zero " in reparsed(b.build())


def test_col2im():
    b = GraphBuilder("col2im")
    y = b.col2im(
        b.data([2, 12, 9]),
        image_shape=[5, 6],
        block_shape=[2, 2],
        strides=[2, 2],
        dilations=[1, 1],
        pads=[0, 1, 1, 0],
    )
    assert shape(y) == (2, 3, 5, 6)
    b.output(y)
    assert "ge.col2im " in reparsed(b.build())


def test_stft():
    b = GraphBuilder("stft")
    signal, window = b.data([2, 17, 1]), b.data([5])
    y = b.stft(signal, window, frame_step=3, frame_length=5)
    z = b.stft(signal, frame_step=4, frame_length=6, onesided=False)
    assert shape(y) == (2, 5, 3, 2) and shape(z) == (2, 3, 6, 2)
    b.output(y, z)
    assert "ge.stft " in reparsed(b.build())


def test_mel_weight_matrix():
    b = GraphBuilder("mel")
    scalars = [b.data([], t) for t in ("int64", "int64", "int64", "float32", "float32")]
    y = b.mel_weight_matrix(*scalars, dst_type="float32")
    assert shape(y) == (-1, -1) and dtype_of(y) == "float32"
    b.output(y)
    assert "ge.mel_weight_matrix " in reparsed(b.build())


def test_dropout():
    b = GraphBuilder("dropout")
    y, mask = b.dropout(b.data([3, 17]), b.data([]), b.data([], "bool"))
    assert shape(y) == shape(mask) == (3, 17) and dtype_of(mask) == "bool"
    b.output(y, mask)
    assert "ge.dropout " in reparsed(b.build())


def test_non_max_suppression():
    b = GraphBuilder("nms")
    boxes, scores = b.data([2, 17, 4]), b.data([2, 3, 17])
    limit, threshold = b.data([1], "int64"), b.data([1])
    selected = b.non_max_suppression(
        boxes, scores, limit, threshold, threshold, center_point_box=1
    )
    assert shape(selected) == (-1, 3) and dtype_of(selected) == "int64"
    b.output(selected)
    text = reparsed(b.build())
    assert "ge.non_max_suppression " in text and "center_point_box = 1" in text


def test_shape_and_size_of_a_tensor():
    b = GraphBuilder()
    x = b.data([1, 2, 3, 5])
    dims = b.shape(x)
    count = b.size(x)
    assert shape(dims) == (4,)
    assert shape(count) == ()
    b.output(dims, count)
    text = reparsed(b.build())
    assert "ge.shape " in text and "ge.size " in text


def test_value_shaped_ops_have_unknown_dims_from_data():
    b = GraphBuilder()
    x = b.data([-1, 1, 20])
    dims = b.shape(x)
    zero = b.const(np.array(0.0, np.float32))
    filled = b.fill(dims, zero)
    broadcast = b.broadcast_to(x, dims)
    reshaped = b.dynamic_reshape(x, dims)
    one = b.const(np.array(1, np.int64))
    count = b.range(one, b.size(x), one)
    assert shape(filled) == shape(reshaped) == (-1, -1, -1)
    assert shape(broadcast) == (-1, -1, 20)
    assert shape(count) == (-1,)
    b.output(filled, broadcast, reshaped, count)
    text = reparsed(b.build())
    for name in ["fill", "broadcast_to", "dynamic_reshape", "range"]:
        assert f"ge.{name} " in text, name


def test_dynamic_attrs_types_results_while_parameters_are_unknown():
    """Reduce axes and slice bounds as run-time operands: the results' rank
    is known, the dims the parameters decide are not."""
    b = GraphBuilder()
    x = b.data([3, 17, 5])
    axes = b.data([2], dtype="int64")
    ends = b.data([1], dtype="int64")
    reduced = b.dynamic_attrs(
        [x],
        [axes],
        static_op="ge.reduce_sum",
        parameter_names=["axes"],
        static_attrs={"keep_dims": False},
    )
    sliced = b.dynamic_attrs(
        [x],
        [ends],
        static_op="ge.slice",
        parameter_names=["ends"],
        static_attrs={"starts": [0], "axes": [1]},
    )
    assert shape(reduced) == (-1,)
    assert shape(sliced) == (3, -1, 5)
    b.output(reduced, sliced)
    text = reparsed(b.build())
    assert text.count("ge.dynamic_attrs ") == 2


def test_resize_builds_from_sizes_and_scales():
    b = GraphBuilder()
    x = b.data([1, 2, 3, 5])
    y = b.resize(x, sizes=[1, 2, 6, 10], scales=[1.0, 1.0, 2.0, 2.0], mode="linear")
    assert shape(y) == (1, 2, 6, 10)
    b.output(y)
    text = reparsed(b.build())
    assert 'mode = "linear"' in text
    assert "nearest_mode" not in text  # defaults are elided


def test_max_pool_with_argmax_gives_values_and_int64_positions():
    b = GraphBuilder()
    x = b.data([1, 3, 5, 5])
    y, argmax = b.max_pool_with_argmax(
        x, data_format="NCHW", ksize=[1, 1, 2, 2], storage_order=1
    )
    assert shape(y) == shape(argmax) == (1, 3, 4, 4)
    assert str(argmax.type.element_type) == "i64"
    b.output(y, argmax)
    assert "ge.max_pool_with_argmax " in reparsed(b.build())


def test_roi_align_pools_each_roi():
    b = GraphBuilder()
    x = b.data([2, 3, 9, 7])
    rois = b.data([5, 4])
    batch = b.data([5], dtype="int64")
    y = b.roi_align(x, rois, batch, output_height=3, output_width=2, mode="max")
    assert shape(y) == (5, 3, 3, 2)
    b.output(y)
    text = reparsed(b.build())
    assert 'mode = "max"} : (tensor<2x3x9x7xf32>, tensor<5x4xf32>' in text


def test_max_unpool_takes_its_output_shape():
    b = GraphBuilder()
    x = b.data([1, 3, 5, 5])
    y, argmax = b.max_pool_with_argmax(x, data_format="NCHW", ksize=[1, 1, 2, 2])
    back = b.max_unpool(y, argmax, output_shape=[1, 3, 5, 5])
    assert shape(back) == (1, 3, 5, 5)
    b.output(back)
    assert "ge.max_unpool " in reparsed(b.build())


def test_dft_bins_and_parts():
    b = GraphBuilder()
    x = b.data([2, 10, 3, 1])
    full = b.dft(x, axis=1, length=12)
    half = b.dft(x, axis=1, length=10, onesided=True)
    back = b.dft(half, axis=1, length=10, inverse=True, onesided=True)
    assert shape(full) == (2, 12, 3, 2)
    assert shape(half) == (2, 6, 3, 2)
    assert shape(back) == (2, 10, 3, 1)
    b.output(full, half, back)
    text = reparsed(b.build())
    assert text.count("ge.dft ") == 3
    assert "inverse = true, onesided = true" in text


def test_grid_sample_takes_the_grid_s_output_size():
    b = GraphBuilder()
    x = b.data([2, 3, 5, 7])
    grid = b.data([2, 4, 6, 2])
    y = b.grid_sample(x, grid, mode="cubic", padding_mode="reflection")
    assert shape(y) == (2, 3, 4, 6)
    volume = b.grid_sample(b.data([1, 3, 4, 5, 6]), b.data([1, 2, 3, 4, 3]))
    assert shape(volume) == (1, 3, 2, 3, 4)
    b.output(y, volume)
    text = reparsed(b.build())
    assert 'mode = "cubic", padding_mode = "reflection"}' in text
    assert text.count("ge.grid_sample ") == 2


DEDICATED_METHODS = {
    "ge.graph": "build",
    "ge.data": "data",
    "ge.const": "const",
    "ge.variable": "variable",
    "ge.netoutput": "output",
    "ge.if": "if_",
    "ge.case": "case",
    "ge.while": "while_",
}
"""The structural ops the builder makes, and the method of its own each has."""

MADE_BY_PASSES = {"ge.partitioned_call", "ge.fused"}
"""Structural ops the builder does not make (engine partitioning, fuse-ops)."""


def test_every_structural_op_has_a_method_defined_on_the_builder():
    structural = {op.name for op in GE_OPS if op.has_trait(Structural)}
    assert structural == set(DEDICATED_METHODS) | MADE_BY_PASSES
    assert STRUCTURE_OPS == structural
    for op_name, method in DEDICATED_METHODS.items():
        defined = vars(GraphBuilder).get(method)
        assert callable(defined), f"GraphBuilder defines no {method}() for {op_name}"


def compute_ops() -> list[type[IRDLOperation]]:
    return [op for op in GE_OPS if not op.has_trait(Structural)]


@pytest.mark.parametrize("op_class", compute_ops(), ids=lambda op: op.name)
def test_a_compute_op_s_builder_method_builds_that_op(op_class):
    """`b.<op>(...)` (no method of its own: the op's definition says how)
    appends one op of that class, with its operands grouped as its
    definition says, the result types given and the node name."""
    short = op_class.name.removeprefix("ge.")
    assert short not in vars(GraphBuilder), f"{short}() shadows the generic method"
    b = GraphBuilder()
    x = b.data([2, 3])
    definition = op_class.get_irdl_definition()
    operands = [
        [x] if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef) else x
        for _, d in definition.operands
    ]
    result_types = [TensorType(f32, [2, 3])] * max(len(definition.results), 1)
    value = getattr(b, short)(*operands, result_types=result_types, name="node")
    b.output(*(value if isinstance(value, list) else [value]))
    ops = b.graph().body.block.ops
    (built,) = [op for op in ops if not isinstance(op, DataOp | NetOutputOp)]
    assert type(built) is op_class
    assert built.attributes["name"] == StringAttr("node")
    assert list(built.operands) == [x] * len(definition.operands)
    assert [r.type for r in built.results] == result_types


def test_explicit_result_types():
    b = GraphBuilder()
    x = b.data([2, 3])
    y = b.op("relu", x, result_types=[TensorType(f32, [2, 3])], name="r")
    z = b.op("ge.identity", y, result_types=[TensorType(f32, [2, 3])])
    b.output(z)
    module = b.build()
    (relu,) = ops_of(module, "ge.relu")
    assert relu.attributes["name"] == StringAttr("r")
    assert shape(z) == (2, 3)


def test_node_names_appear_in_diagnostics():
    b = GraphBuilder()
    x = b.data([2, 3])
    b.op("relu", x, result_types=[TensorType(f32, [3, 2])], name="bad_relu")
    b.output()
    with pytest.raises(GEError) as info:
        b.build()
    assert str(info.value) == (
        "node 'bad_relu': error: 'ge.relu' op result shape [3, 2] must equal the "
        "input shape [2, 3]"
    )


# ---------------------------------------------------------------------------
# Control flow with subgraphs
# ---------------------------------------------------------------------------


def test_if():
    b = GraphBuilder("if")
    cond = b.data([], "bool")
    x = b.data([2, 3])
    (r,) = b.if_(
        cond,
        [x],
        lambda s, a: s.relu(a),
        lambda s, a: [s.neg(a)],
        name="branchy",
    )
    b.output(r)
    module = b.build()
    (op,) = ops_of(module, "ge.if")
    assert isinstance(op, IfOp)
    assert op.attributes["name"] == StringAttr("branchy")
    assert r.type == x.type
    for region in (op.then_branch, op.else_branch):
        (data,) = [d for d in region.block.ops if isinstance(d, DataOp)]
        assert data.parent_index is not None and data.parent_index.value.data == 1
        assert data.output.type == x.type
    text = reparsed(module)
    assert "ge.data {parent_index = 1 : i64} : tensor<2x3xf32>" in text
    assert "} else {" in text


def test_if_with_several_outputs_and_layouts():
    b = GraphBuilder()
    cond = b.data([], "bool")
    x = b.data([1, 16, 4, 4], "float16", format="NCHW")
    y = b.data([4])
    outs = b.if_(
        cond, [x, y], lambda s, a, c: [a, c], lambda s, a, c: [s.relu(a), s.neg(c)]
    )
    assert [o.type for o in outs] == [x.type, y.type]
    b.output(*outs)
    reparsed(b.build())


def test_case():
    b = GraphBuilder("case")
    index = b.data([], "int32")
    x = b.data([4])
    y = b.data([4])
    (r,) = b.case(
        index,
        [x, y],
        [
            lambda s, a, c: s.add(a, c),
            lambda s, a, c: s.sub(a, c),
            lambda s, a, c: s.const(np.zeros(4, np.float32)),
        ],
    )
    b.output(r)
    module = b.build()
    (op,) = ops_of(module, "ge.case")
    assert isinstance(op, CaseOp) and len(op.branches) == 3
    parents = [
        d.parent_index.value.data
        for d in op.branches[0].block.ops
        if isinstance(d, DataOp) and d.parent_index is not None
    ]
    assert parents == [1, 2]
    assert "}, {" in reparsed(module)


def test_while():
    b = GraphBuilder("loop")
    n = b.data([], "int32")
    x = b.data([2])

    def cond(s, i, v):
        return s.cast(i, dst_type="bool")

    def body(s, i, v):
        one = s.const(np.array(1, np.int32))
        return [s.sub(i, one), s.mul(v, v)]

    count, value = b.while_([n, x], cond, body, name="loop")
    b.output(value)
    module = b.build()
    (op,) = ops_of(module, "ge.while")
    assert isinstance(op, WhileOp)
    assert count.type == n.type and value.type == x.type
    cond_data = [d for d in op.cond.block.ops if isinstance(d, DataOp)]
    assert [d.index_value for d in cond_data] == [0, 1]
    text = reparsed(module)
    assert "cond {" in text and "} body {" in text


def test_nested_control_flow():
    b = GraphBuilder("nested")
    c = b.data([], "bool")
    x = b.data([])

    def then(s, a):
        (w,) = s.while_(
            [a],
            lambda t, v: t.cast(v, dst_type="bool"),
            lambda t, v: t.add(v, v),
        )
        return w

    (r,) = b.if_(c, [x], then, lambda s, a: a)
    b.output(r)
    text = reparsed(b.build())
    assert text.count("ge.while") == 1 and text.count("ge.if") == 1


def test_subgraph_output_type_mismatch_fails_verification():
    b = GraphBuilder()
    c = b.data([], "bool")
    x = b.data([2])
    b.if_(c, [x], lambda s, a: a, lambda s, a: s.cast(a, dst_type="float16"))
    b.output()
    with pytest.raises(GEError, match="else branch output #0 has type"):
        b.build()


# ---------------------------------------------------------------------------
# Verification and errors
# ---------------------------------------------------------------------------


def test_build_verifies_and_verify_false_skips():
    b = GraphBuilder()
    x = b.data([2, 3])
    b.op("relu", x, result_types=[TensorType(f32, [3, 2])])
    b.output()
    with pytest.raises(GEError, match="must equal the input shape"):
        b.build()
    b2 = GraphBuilder()
    x2 = b2.data([2, 3])
    b2.op("relu", x2, result_types=[TensorType(f32, [3, 2])])
    b2.output()
    assert isinstance(b2.build(verify=False), ModuleOp)


def test_unknown_op():
    b = GraphBuilder()
    x = b.data([2])
    with pytest.raises(ValueError, match="unknown op 'ge.frobnicate'"):
        b.op("frobnicate", x)
    with pytest.raises(AttributeError, match="GraphBuilder has no op 'frobnicate'"):
        b.frobnicate(x)


def test_wrong_operand_count():
    b = GraphBuilder()
    x = b.data([2])
    with pytest.raises(ValueError, match="'ge.relu' takes 1 operands, got 2"):
        b.relu(x, x)
    with pytest.raises(ValueError, match="'ge.add' is missing operand #1"):
        b.add(x)
    with pytest.raises(ValueError, match="'ge.conv2d' is missing operand #1"):
        b.conv2d(x, None, data_format="NCHW")


def test_invalid_shapes_are_reported_by_shape_inference():
    from ge_dialect.shape_inference import ShapeError

    b = GraphBuilder()
    with pytest.raises(ShapeError):
        b.add(b.data([2, 3]), b.data([4, 3]))
    with pytest.raises(ShapeError):
        b.matmul(b.data([2, 3]), b.data([4, 5]))


def test_no_output():
    b = GraphBuilder("open")
    b.data([2])
    with pytest.raises(ValueError, match="graph 'open' has no output"):
        b.build()
    with pytest.raises(ValueError, match="has no output"):
        b.graph()


def test_subgraph_without_outputs_is_allowed():
    b = GraphBuilder()
    c = b.data([], "bool")
    b.if_(c, [], lambda s: [], lambda s: [])
    b.output()
    assert "ge.if" in reparsed(b.build())


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def test_tensor_type():
    assert tensor_type([2, 3]) == TensorType(f32, [2, 3])
    assert tensor_type([2, 3], "float32", "ND") == TensorType(f32, [2, 3])
    assert tensor_type([1, 3, 4, 4], "float16", "NCHW", "NC1HWC0") == TensorType(
        f16, [1, 3, 4, 4], LayoutAttr("NCHW", "NC1HWC0")
    )
    assert tensor_type([2, 3], "float16", "ND", "FRACTAL_NZ").encoding == LayoutAttr(
        "ND", "FRACTAL_NZ"
    )
    assert shape_of(tensor_type([-1, 3])) == (-1, 3)


def test_python_to_attribute():
    assert python_to_attribute(True) == IntegerAttr(1, IntegerType(1))
    assert python_to_attribute(3) == IntegerAttr(3, 64)
    assert python_to_attribute(np.int32(3)) == IntegerAttr(3, 64)
    assert python_to_attribute(0.5) == FloatAttr(0.5, f32)
    assert python_to_attribute("NCHW") == StringAttr("NCHW")
    assert python_to_attribute("NCHW", "format") == FormatAttr(Format.NCHW)
    assert python_to_attribute(Format.NHWC) == FormatAttr(Format.NHWC)
    assert python_to_attribute("float16", "type") == f16
    assert python_to_attribute(np.float32, "type") == f32
    ints = python_to_attribute([1, 2, 3])
    assert isinstance(ints, DenseArrayBase) and list(ints.get_values()) == [1, 2, 3]
    assert python_to_attribute(np.array([4, 5])) == python_to_attribute([4, 5])
    assert python_to_attribute([0.5, 1.5]) == ArrayAttr(
        [FloatAttr(0.5, f32), FloatAttr(1.5, f32)]
    )
    with pytest.raises(TypeError, match="cannot convert"):
        python_to_attribute(object())


def test_const_op_value_is_the_storage_array():
    b = GraphBuilder()
    c = b.const(np.arange(4, dtype=np.float32).reshape(2, 2))
    b.output(c)
    module = b.build()
    (op,) = ops_of(module, "ge.const")
    assert isinstance(op, ConstOp)
    assert op.value.get_type() == TensorType(f32, [2, 2])
