"""Compare every op's NumPy kernel (`numpy_kernel`) with onnxruntime."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import kernel_calls as ops
import numpy as np
import pytest
from onnx import TensorProto
from onnx_util import BF16, check, rand, run_onnx

from ge_dialect.ops import OPS_BY_NAME

FP = [np.float32, np.float16]
FP_ALL = [np.float32, np.float16, BF16]
FORMATS = ["NCHW", "NHWC"]

_rng = np.random.default_rng(0)


def nhwc(a: np.ndarray) -> np.ndarray:
    return a.transpose(0, 2, 3, 1)


def nchw(a: np.ndarray) -> np.ndarray:
    return a.transpose(0, 3, 1, 2)


def layout(a: np.ndarray, fmt: str) -> np.ndarray:
    """NCHW array in ``fmt``."""
    return nhwc(a) if fmt == "NHWC" else a


def attr4(hw: Sequence[int], fmt: str) -> list[int]:
    """(h, w) as a 4-value attribute in ``fmt`` order."""
    return [1, 1, *hw] if fmt == "NCHW" else [1, *hw, 1]


def onnx_pads(pads: Sequence[int]) -> list[int]:
    """[top, bottom, left, right] -> ONNX [top, left, bottom, right]."""
    t, b, l_, r = pads
    return [t, l_, b, r]


def run_layout_op(fn, x: np.ndarray, fmt: str, *args: Any, **kwargs: Any):
    """Call a layout kernel on NCHW ``x`` given in ``fmt``; result back in NCHW."""
    y = fn(layout(x, fmt), *args, data_format=fmt, **kwargs)
    return nchw(y) if fmt == "NHWC" else y


# --------------------------------------------------------------------------
# Contract with docs/OPS.md
# --------------------------------------------------------------------------


def _ops_table() -> dict[str, tuple[list[str], list[str]]]:
    """op name -> (operand names, attribute names) from docs/OPS.md (generated
    from the op definitions by `python -m ge_xdsl.docs`)."""
    text = (Path(__file__).parents[1] / "docs" / "OPS.md").read_text()
    table = {}
    for section in text.split("\n### ge.")[1:]:
        name, body = section.split("\n", 1)
        operands_line = re.search(r"^- operands: (.*)$", body, re.M)
        operands = re.findall(r"`([a-z_0-9]+)`", operands_line.group(1))
        attrs = re.findall(r"^\| `([a-z_0-9]+)` \|", body, re.M)
        table[name] = (operands, attrs)
    return table


def test_contract_matches_ops_md():
    """The reference documents every op with a kernel, with its IRDL operands
    and attributes (the kernel's own contract is checked in test_reference)."""
    table = _ops_table()
    assert set(ops.RAW) <= set(table)
    for name, (operands, attrs) in table.items():
        definition = OPS_BY_NAME[f"ge.{name}"].get_irdl_definition()
        assert operands == [n for n, _ in definition.operands], name
        assert set(attrs) == set(definition.attributes), name


# --------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------

# N, C, H, W, O, (kh, kw), (sh, sw), [t, b, l, r], (dh, dw), groups, bias
CONV_CASES = [
    (1, 3, 32, 32, 17, (7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1, True),
    (2, 17, 15, 13, 33, (3, 3), (1, 1), (0, 1, 2, 1), (2, 2), 1, True),
    (1, 33, 12, 12, 21, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 3, False),
    (1, 17, 14, 14, 34, (3, 3), (2, 2), (1, 0, 1, 0), (1, 1), 17, True),
    (2, 8, 11, 10, 6, (3, 5), (2, 1), (1, 2, 0, 3), (1, 3), 2, True),
    (1, 16, 8, 8, 8, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1, False),
]
FILTER_TO = {
    "NCHW": lambda w: w,
    "HWCN": lambda w: w.transpose(2, 3, 1, 0),
    "NHWC": lambda w: w.transpose(0, 2, 3, 1),
}


@pytest.mark.parametrize("dtype", FP_ALL)
@pytest.mark.parametrize("filter_format", list(FILTER_TO))
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d(case, fmt, filter_format, dtype):
    n, c, h, w, o, k, s, pads, d, g, has_bias = case
    x, wt = rand(n, c, h, w, dtype=dtype), rand(o, c // g, *k, dtype=dtype)
    b = rand(o, dtype=dtype) if has_bias else None
    (ref,) = run_onnx(
        "Conv",
        [x, wt, b],
        kernel_shape=list(k),
        strides=list(s),
        pads=onnx_pads(pads),
        dilations=list(d),
        group=g,
    )
    ours = run_layout_op(
        ops.conv2d,
        x,
        fmt,
        FILTER_TO[filter_format](wt),
        b,
        strides=attr4(s, fmt),
        pads=list(pads),
        dilations=attr4(d, fmt),
        groups=g,
        filter_format=filter_format,
    )
    check(ours, ref, dtype)


# N, Cin, H, W, Cout, (kh, kw), (sh, sw), [t, b, l, r], (dh, dw), groups,
# output_padding, bias
CONVT_CASES = [
    (1, 17, 7, 7, 3, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, (1, 1), True),
    (2, 8, 5, 6, 6, (4, 4), (2, 2), (1, 2, 0, 1), (1, 1), 2, (0, 1), True),
    (1, 33, 4, 5, 33, (3, 3), (1, 1), (0, 0, 0, 0), (2, 2), 33, (0, 0), False),
    (1, 4, 6, 6, 5, (3, 2), (3, 2), (0, 0, 2, 0), (1, 2), 1, (2, 1), True),
]


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CONVT_CASES)
def test_conv2d_transpose(case, fmt, dtype):
    n, c, h, w, o, k, s, pads, d, g, op, has_bias = case
    x, wt = rand(n, c, h, w, dtype=dtype), rand(c, o // g, *k, dtype=dtype)
    b = rand(o, dtype=dtype) if has_bias else None
    (ref,) = run_onnx(
        "ConvTranspose",
        [x, wt, b],
        kernel_shape=list(k),
        strides=list(s),
        pads=onnx_pads(pads),
        dilations=list(d),
        group=g,
        output_padding=list(op),
    )
    ours = run_layout_op(
        ops.conv2d_transpose,
        x,
        fmt,
        wt,
        b,
        strides=attr4(s, fmt),
        pads=list(pads),
        dilations=attr4(d, fmt),
        groups=g,
        output_padding=list(op),
    )
    check(ours, ref, dtype)


# --------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------

# N, C, H, W, (kh, kw), (sh, sw), [t, b, l, r], ceil_mode, count_include_pad
POOL_CASES = [
    (1, 3, 17, 17, (3, 3), (2, 2), (1, 1, 1, 1), False, False),
    (2, 17, 16, 15, (3, 3), (2, 2), (0, 1, 1, 0), True, False),
    (1, 33, 11, 12, (2, 3), (2, 2), (0, 0, 1, 1), True, True),
    (1, 5, 7, 7, (3, 3), (3, 3), (1, 1, 1, 1), True, True),
    (1, 3, 5, 5, (2, 2), (2, 2), (1, 1, 1, 1), True, True),
    (1, 5, 8, 8, (2, 2), (3, 3), (0, 1, 0, 1), True, False),
    (1, 4, 9, 9, (7, 7), (1, 1), (3, 3, 3, 3), False, True),
    (1, 6, 10, 10, (2, 2), (2, 2), (0, 0, 0, 0), False, False),
]


@pytest.mark.parametrize("dtype", FP_ALL)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", POOL_CASES)
def test_pools(case, fmt, dtype):
    n, c, h, w, k, s, pads, ceil_mode, cip = case
    x = rand(n, c, h, w, dtype=dtype)
    common = dict(kernel_shape=list(k), strides=list(s), pads=onnx_pads(pads))
    kw = dict(ksize=attr4(k, fmt), strides=attr4(s, fmt), pads=list(pads))
    (ref,) = run_onnx("MaxPool", [x], ceil_mode=int(ceil_mode), **common)
    ours = run_layout_op(ops.max_pool, x, fmt, ceil_mode=ceil_mode, **kw)
    check(ours, ref, dtype)
    (ref,) = run_onnx(
        "AveragePool",
        [x],
        ceil_mode=int(ceil_mode),
        count_include_pad=int(cip),
        **common,
    )
    ours = run_layout_op(
        ops.avg_pool, x, fmt, ceil_mode=ceil_mode, count_include_pad=cip, **kw
    )
    check(ours, ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "name, onnx_op",
    [("global_avg_pool", "GlobalAveragePool"), ("global_max_pool", "GlobalMaxPool")],
)
def test_global_pools(name, onnx_op, fmt, dtype):
    x = rand(2, 17, 7, 9, dtype=dtype)
    (ref,) = run_onnx(onnx_op, [x])
    check(run_layout_op(ops.HOST_OPS[name], x, fmt), ref, dtype)


def test_max_pool_int():
    x = _rng.integers(-100, 100, (1, 3, 6, 6)).astype(np.int32)
    y = ops.max_pool(x, ksize=[1, 1, 3, 3], strides=[1, 1, 2, 2], pads=[1, 1, 1, 1])
    ref = ops.max_pool(
        x.astype(np.float32),
        ksize=[1, 1, 3, 3],
        strides=[1, 1, 2, 2],
        pads=[1, 1, 1, 1],
    )
    check(y, ref.astype(np.int32), np.int32)


# --------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FP_ALL)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("c", [3, 17])
def test_batch_norm(c, fmt, dtype):
    x = rand(2, c, 5, 6, dtype=dtype)
    scale, offset, mean = (rand(c, dtype=dtype) for _ in range(3))
    var = rand(c, dtype=dtype, lo=0.1, hi=2.0)
    (ref,) = run_onnx("BatchNormalization", [x, scale, offset, mean, var], epsilon=1e-3)
    ours = run_layout_op(ops.batch_norm, x, fmt, scale, offset, mean, var, epsilon=1e-3)
    check(ours, ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("fmt", FORMATS)
def test_instance_norm(fmt, dtype):
    x = rand(2, 17, 6, 5, dtype=dtype, lo=-2, hi=3)
    gamma, beta = rand(17, dtype=dtype), rand(17, dtype=dtype)
    (ref,) = run_onnx("InstanceNormalization", [x, gamma, beta], epsilon=1e-4)
    ours = run_layout_op(ops.instance_norm, x, fmt, gamma, beta, epsilon=1e-4)
    check(ours, ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn(size, fmt, dtype):
    x = rand(2, 17, 4, 5, dtype=dtype, lo=-3, hi=3)
    attrs = dict(size=size, alpha=0.02, beta=0.6, bias=1.5)
    (ref,) = run_onnx("LRN", [x], **attrs)
    check(run_layout_op(ops.lrn, x, fmt, **attrs), ref, dtype)


@pytest.mark.parametrize("size", [2, 4])
def test_lrn_even_size(size):
    """onnxruntime rejects even sizes: check the ONNX spec formula directly."""
    x = rand(2, 17, 4, 5, lo=-3, hi=3)
    lo, hi = (size - 1) // 2, size // 2
    ssum = np.stack(
        [(x[:, max(c - lo, 0) : c + hi + 1] ** 2).sum(1) for c in range(17)], 1
    )
    ref = x / (1.5 + 0.02 / size * ssum) ** 0.6
    check(ops.lrn(x, size=size, alpha=0.02, beta=0.6, bias=1.5), ref)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("fmt", FORMATS)
def test_bias_add(fmt, dtype):
    x, b = rand(2, 33, 3, 4, dtype=dtype), rand(33, dtype=dtype)
    (ref,) = run_onnx("Add", [x, b.reshape(33, 1, 1)])
    check(run_layout_op(ops.bias_add, x, fmt, b), ref, dtype)


def test_bias_add_2d():
    x, b = rand(4, 7), rand(7)
    for fmt in FORMATS:
        check(ops.bias_add(x, b, data_format=fmt), x + b)


# --------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------

UNARY = [
    ("relu", "Relu", {}, {}, (-3, 3)),
    ("sigmoid", "Sigmoid", {}, {}, (-30, 30)),
    ("tanh", "Tanh", {}, {}, (-4, 4)),
    ("softplus", "Softplus", {}, {}, (-30, 30)),
    ("neg", "Neg", {}, {}, (-3, 3)),
    ("abs", "Abs", {}, {}, (-3, 3)),
    ("exp", "Exp", {}, {}, (-5, 5)),
    ("sqrt", "Sqrt", {}, {}, (0, 9)),
    ("log", "Log", {}, {}, (0.01, 9)),
    ("reciprocal", "Reciprocal", {}, {}, (0.5, 3)),
    ("identity", "Identity", {}, {}, (-3, 3)),
    ("leaky_relu", "LeakyRelu", {"alpha": 0.2}, {"alpha": 0.2}, (-3, 3)),
    ("elu", "Elu", {"alpha": 0.7}, {"alpha": 0.7}, (-30, 3)),
    ("selu", "Selu", {}, {}, (-3, 3)),
    (
        "selu",
        "Selu",
        {"alpha": 1.3, "gamma": 0.9},
        {"alpha": 1.3, "gamma": 0.9},
        (-3, 3),
    ),
    ("softmax", "Softmax", {"axis": 1}, {"axis": 1}, (-5, 5)),
    ("softmax", "Softmax", {}, {}, (-50, 50)),
    ("log_softmax", "LogSoftmax", {"axis": 0}, {"axis": 0}, (-5, 5)),
    ("log_softmax", "LogSoftmax", {}, {}, (-50, 50)),
]


@pytest.mark.parametrize("dtype", FP_ALL)
@pytest.mark.parametrize("name, onnx_op, kwargs, attrs, rng", UNARY)
def test_unary(name, onnx_op, kwargs, attrs, rng, dtype):
    x = rand(3, 17, 5, dtype=dtype, lo=rng[0], hi=rng[1])
    (ref,) = run_onnx(onnx_op, [x], **attrs)
    check(ops.HOST_OPS[name](x, **kwargs), ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("slope_shape", [(17, 1, 1), (1,), (5,), (1, 17, 1, 5)])
def test_prelu(slope_shape, dtype):
    x, slope = rand(2, 17, 3, 5, dtype=dtype), rand(*slope_shape, dtype=dtype)
    (ref,) = run_onnx("PRelu", [x, slope])
    check(ops.prelu(x, slope), ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("lo, hi", [(-0.5, 0.7), (None, 0.2), (-0.1, None), (0.0, 6.0)])
def test_clip(lo, hi, dtype):
    x = rand(4, 33, dtype=dtype, lo=-2, hi=7)
    bound = [None if v is None else np.array(v, dtype=np.float32) for v in (lo, hi)]
    (ref,) = run_onnx("Clip", [x, *bound])
    check(ops.clip(x, min=lo, max=hi), ref, dtype)


BINARY = [
    ("add", "Add"),
    ("sub", "Sub"),
    ("mul", "Mul"),
    ("div", "Div"),
    ("pow", "Pow"),
    ("maximum", "Max"),
    ("minimum", "Min"),
]


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (3, 1, 5)), ((4, 1), (1, 17))])
@pytest.mark.parametrize("name, onnx_op", BINARY)
def test_binary(name, onnx_op, shapes, dtype):
    x1 = rand(*shapes[0], dtype=dtype, lo=0.5, hi=2)
    x2 = rand(*shapes[1], dtype=dtype, lo=-2, hi=2)
    (ref,) = run_onnx(onnx_op, [x1, x2])
    check(ops.HOST_OPS[name](x1, x2), ref, dtype)


@pytest.mark.parametrize("name, onnx_op", BINARY)
def test_binary_int(name, onnx_op):
    """Integer semantics: Div truncates toward zero, Pow keeps the base dtype."""
    x1 = _rng.integers(1, 20, (3, 7)) * _rng.choice([-1, 1], (3, 7))
    x2 = _rng.integers(1, 4, (7,)) * np.array([1, -1] * 3 + [1])
    x1, x2 = x1.astype(np.int32), x2.astype(np.int32)
    (ref,) = run_onnx(onnx_op, [x1, x2])
    check(ops.HOST_OPS[name](x1, x2), ref, np.int32)


@pytest.mark.parametrize("dtype", FP)
def test_add_n(dtype):
    xs = [rand(2, 17, dtype=dtype), rand(17, dtype=dtype), rand(3, 2, 1, dtype=dtype)]
    (ref,) = run_onnx("Sum", xs)
    check(ops.add_n(xs), ref, dtype)


# --------------------------------------------------------------------------
# Matrix products
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("has_bias", [False, True])
def test_matmul(ta, tb, has_bias, dtype):
    a, b = rand(33, 17, dtype=dtype), rand(17, 9, dtype=dtype)
    a, b = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    bias = rand(9, dtype=dtype) if has_bias else None
    (ref,) = run_onnx("Gemm", [a, b, bias], transA=int(ta), transB=int(tb))
    ours = ops.matmul(a, b, bias, transpose_x1=ta, transpose_x2=tb)
    check(ours, ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("adj_x1, adj_x2", [(False, False), (True, True)])
@pytest.mark.parametrize("s1, s2", [((2, 1, 4, 5), (3, 5, 6)), ((7, 3), (2, 3, 4))])
def test_batch_matmul(s1, s2, adj_x1, adj_x2, dtype):
    x1, x2 = rand(*s1, dtype=dtype), rand(*s2, dtype=dtype)
    (ref,) = run_onnx("MatMul", [x1, x2])
    a = np.swapaxes(x1, -1, -2) if adj_x1 else x1
    b = np.swapaxes(x2, -1, -2) if adj_x2 else x2
    check(ops.batch_matmul(a, b, adj_x1=adj_x1, adj_x2=adj_x2), ref, dtype)


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("c_shape", [None, (9,), (5, 1), (5, 9)])
@pytest.mark.parametrize("ta, tb", [(False, False), (True, True)])
def test_gemm(c_shape, ta, tb, dtype):
    a = rand(*((17, 5) if ta else (5, 17)), dtype=dtype)
    b = rand(*((9, 17) if tb else (17, 9)), dtype=dtype)
    c = None if c_shape is None else rand(*c_shape, dtype=dtype)
    attrs = dict(alpha=0.5, beta=-1.5)
    (ref,) = run_onnx("Gemm", [a, b, c], transA=int(ta), transB=int(tb), **attrs)
    check(ops.gemm(a, b, c, trans_a=ta, trans_b=tb, **attrs), ref, dtype)


# --------------------------------------------------------------------------
# Shape and data movement (exact)
# --------------------------------------------------------------------------

I64 = np.int64
X3 = np.arange(5 * 6 * 7, dtype=np.float32).reshape(5, 6, 7)


@pytest.mark.parametrize("axis", [0, 2, -1])
def test_concat(axis):
    xs = [X3, X3 + 1, X3[:2] if axis == 0 else X3 * 2]
    (ref,) = run_onnx("Concat", xs, axis=axis)
    check(ops.concat(xs, axis=axis), ref)


@pytest.mark.parametrize("axis, sizes", [(0, [1, 4]), (1, [2, 1, 3]), (-1, [7])])
def test_split(axis, sizes):
    refs = run_onnx("Split", [X3, np.array(sizes, I64)], len(sizes), axis=axis)
    ours = ops.split(X3, axis=axis, sizes=sizes)
    assert isinstance(ours, list) and len(ours) == len(refs)
    for o, r in zip(ours, refs, strict=True):
        check(o, r)


def test_split_bad_sizes():
    with pytest.raises(ValueError):
        ops.split(X3, axis=0, sizes=[2, 2])


SLICE_CASES = [
    ([1, -4], [4, 100], [0, 2], [1, 2]),
    ([-1], [-100], [1], [-1]),
    ([10, 3], [-10, 0], [0, 2], [-2, -1]),
    ([0, 0, 0], [5, 6, 7], None, None),
    ([-100], [2], [-1], [3]),
    ([-7], [-100], [0], [-1]),
    ([4], [1], [0], [1]),
    ([2, 2], [100, -100], [1, 2], [3, -3]),
]


@pytest.mark.parametrize("begins, ends, axes, steps", SLICE_CASES)
def test_slice(begins, ends, axes, steps):
    operands = [X3, np.array(begins, I64), np.array(ends, I64)]
    operands += [None if axes is None else np.array(axes, I64)]
    operands += [None if steps is None else np.array(steps, I64)]
    (ref,) = run_onnx("Slice", operands)
    check(ops.slice(X3, begins=begins, ends=ends, axes=axes, steps=steps), ref)


@pytest.mark.parametrize(
    "indices, axis",
    [([[0, -1], [2, 3]], 1), ([4, 0, -7], -1), (3, 0), ([[1]], 2)],
)
def test_gather(indices, axis):
    idx = np.array(indices, I64)
    (ref,) = run_onnx("Gather", [X3, idx], axis=axis)
    check(ops.gather(X3, idx, axis=axis), ref)


@pytest.mark.parametrize("multiples", [[1, 1, 1], [2, 1, 3], [1, 4, 1]])
def test_tile(multiples):
    (ref,) = run_onnx("Tile", [X3, np.array(multiples, I64)])
    check(ops.tile(X3, multiples=multiples), ref)


@pytest.mark.parametrize(
    "paddings, mode, value",
    [
        ([0, 1, 2, 3, 0, 1], "constant", 1.5),
        ([1, -2, 0, 0, 3, -1], "constant", 0.0),
        ([2, 0, 3, 1, 5, 0], "reflect", 0.0),
        ([2, 0, 3, 1, 5, 0], "edge", 0.0),
    ],
)
def test_pad(paddings, mode, value):
    (ref,) = run_onnx(
        "Pad", [X3, np.array(paddings, I64), np.array(value, np.float32)], mode=mode
    )
    check(ops.pad(X3, paddings=paddings, mode=mode, value=value), ref)


@pytest.mark.parametrize("shape", [[0, -1], [-1, 3, 0], [210], [5, 0, 7, 1]])
def test_reshape(shape):
    (ref,) = run_onnx("Reshape", [X3, np.array(shape, I64)])
    check(ops.reshape(X3, shape=shape), ref)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1])
def test_flatten(axis):
    (ref,) = run_onnx("Flatten", [X3], axis=axis)
    check(ops.flatten(X3, axis=axis), ref)


X_SQ = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 1, 3, 1, 4)


@pytest.mark.parametrize("axes", [[0], [-2, 2], None])
def test_squeeze(axes):
    (ref,) = run_onnx("Squeeze", [X_SQ, None if axes is None else np.array(axes, I64)])
    check(ops.squeeze(X_SQ, axes=axes), ref)


@pytest.mark.parametrize("axes", [[0], [-1], [1, 3], [0, -1]])
def test_unsqueeze(axes):
    (ref,) = run_onnx("Unsqueeze", [X3, np.array(axes, I64)])
    check(ops.unsqueeze(X3, axes=axes), ref)


@pytest.mark.parametrize("axis", [0, 2, -1])
def test_expand_dims(axis):
    (ref,) = run_onnx("Unsqueeze", [X3, np.array([axis], I64)])
    check(ops.expand_dims(X3, axis=axis), ref)


@pytest.mark.parametrize("perm", [[2, 0, 1], [0, 2, 1], None])
def test_transpose_permute(perm):
    (ref,) = run_onnx("Transpose", [X3], **({} if perm is None else {"perm": perm}))
    check(ops.transpose(X3, perm=perm), ref)
    if perm is not None:
        check(ops.permute(X3, order=perm), ref)


# --------------------------------------------------------------------------
# Reductions and cast
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FP)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("axes", [[1], [0, -1], None])
@pytest.mark.parametrize(
    "name, onnx_op",
    [
        ("reduce_sum", "ReduceSum"),
        ("reduce_mean", "ReduceMean"),
        ("reduce_max", "ReduceMax"),
    ],
)
def test_reduce(name, onnx_op, axes, keep_dims, dtype):
    x = rand(3, 17, 5, dtype=dtype)
    operands = [x, None if axes is None else np.array(axes, I64)]
    (ref,) = run_onnx(onnx_op, operands, keepdims=int(keep_dims))
    check(ops.HOST_OPS[name](x, axes=axes, keep_dims=keep_dims), ref, dtype)


@pytest.mark.parametrize(
    "dst_type, to",
    [
        ("float16", TensorProto.FLOAT16),
        ("int32", TensorProto.INT32),
        ("int64", TensorProto.INT64),
        ("bool", TensorProto.BOOL),
        ("float32", TensorProto.FLOAT),
    ],
)
def test_cast(dst_type, to):
    x = np.array([[-2.7, -0.3, 0.0, 0.4, 1.6, 300.2]], np.float32)
    (ref,) = run_onnx("Cast", [x], to=to)
    ours = ops.cast(x, dst_type=dst_type)
    assert ours.dtype == np.dtype(dst_type)
    np.testing.assert_array_equal(ours, ref)


def test_cast_bfloat16():
    x = rand(4, 5)
    y = ops.cast(x, dst_type="bfloat16")
    assert y.dtype == BF16
    np.testing.assert_allclose(y.astype(np.float32), x, rtol=1e-2)
