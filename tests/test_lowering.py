"""`convert-ge-to-loops`: every op lowering, run through the JIT, against the
reference evaluator on the same graph; the loop IR is verified by `iree-opt`.

Graphs hold values in storage formats (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...)
with channel counts that are not multiples of C0, in float32 and float16.
The JIT runs with `poison=True`: a read of memory the IR never wrote gives
NaN and fails the comparison.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16, f32
from xdsl.ir import SSAValue

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.relayout import to_storage
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import (
    compile_graph,
    compile_module,
    lower_graph,
    lowered_module,
    run_graph,
)
from ge_runtime.jit.ops import JITError
from passes.lowering.index import Ix, Var
from passes.lowering.layouts import make_layout

FLOATS = ["float32", "float16"]


def iree_opt() -> str | None:
    """The `iree-opt` binary of the iree-base-compiler package, if installed."""
    found = shutil.which("iree-opt")
    if found:
        return found
    try:
        import iree.compiler.tools as tools
    except ImportError:
        return None
    candidates = sorted(Path(tools.__file__).parent.glob("**/iree-opt*"))
    return str(candidates[0]) if candidates else None


LOWERED: dict[str, str] = {}
"""Loop IR of every checked graph, verified by iree-opt in one run at the end."""


def verify_with_iree(texts: list[str]) -> None:
    """Parse and verify loop modules with upstream MLIR (skips without iree-opt)."""
    binary = iree_opt()
    if binary is None:
        pytest.skip("iree-base-compiler is not installed")
    result = subprocess.run(
        [binary, "--verify-each", "--split-input-file", "-o", "/dev/null", "-"],
        input="\n// -----\n".join(texts),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def random_inputs(module, seed: int = 0) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    graph = module.body.block.first_op
    inputs = {}
    for data in graph.inputs():
        shape = tuple(data.output.type.get_shape())
        dtype = {f32: np.float32, f16: np.float16}[data.output.type.element_type]
        inputs[data.index_value] = rng.standard_normal(shape).astype(dtype)
    return inputs


def check(module, inputs=None, weights=None, target=None) -> str:
    """Lowered (for `target`) + JIT results equal the reference, every nest
    vectorised.

    Returns the loop IR text, verified by iree-opt at the end.
    """
    inputs = random_inputs(module) if inputs is None else inputs
    graph = module.body.block.first_op
    text = lower_graph(graph, target)
    LOWERED[str(graph)] = text
    compiled = compile_graph(graph, target, poison=True)
    assert compiled.scalar_nests == []
    outputs = run_graph(module, inputs, weights, poison=True, target=target)
    expected = evaluate(module, inputs, weights=weights)
    for out, ref in zip(outputs, expected, strict=True):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        ref32, out32 = ref.astype(np.float32), out.astype(np.float32)
        finite = ref32[np.isfinite(ref32)]  # infinities must match exactly
        scale = max(1.0, float(np.abs(finite).max(initial=0)))
        tolerance = 2e-3 if ref.dtype == np.float16 else 2e-5
        np.testing.assert_allclose(out32, ref32, atol=tolerance * scale, rtol=0)
    return text


def to(b: GraphBuilder, x: SSAValue, storage: str, **attrs) -> SSAValue:
    """`ge.transdata` of x to `storage` (from its current storage format)."""
    from ge_dialect.layout import layout_of

    _, current = layout_of(x.type)
    return b.transdata(x, src_format=current.value, dst_format=storage, **attrs)


def nc1hwc0_graph(dtype: str, shape, body: Callable, extra_inputs=()):
    """data NCHW -> NC1HWC0 -> body(...) -> NCHW output(s)."""
    b = GraphBuilder("g")
    x = to(b, b.data(list(shape), dtype, format="NCHW"), "NC1HWC0")
    extras = [b.data(list(s), dtype, **kw) for s, kw in extra_inputs]
    results = body(b, x, *extras)
    results = results if isinstance(results, list) else [results]
    b.output(*[to(b, r, "NCHW") for r in results])
    return b.build()


# -- layouts ----------------------------------------------------------------

LAYOUT_CASES = [
    ((2, 17, 3, 5), "NCHW", "NC1HWC0", 1),
    ((2, 3, 5, 17), "NHWC", "NC1HWC0", 1),
    ((17, 1, 1), "NCHW", "NC1HWC0", 1),
    ((33, 17, 3, 3), "NCHW", "FRACTAL_Z", 1),
    ((3, 3, 17, 33), "HWCN", "FRACTAL_Z", 1),
    ((32, 1, 3, 3), "NCHW", "FRACTAL_Z", 32),
    ((24, 1, 3, 3), "NCHW", "FRACTAL_Z", 24),
    ((64, 4, 3, 3), "NCHW", "FRACTAL_Z", 16),
    ((17, 33), "ND", "FRACTAL_Z", 1),
    ((17, 33), "ND", "FRACTAL_NZ", 1),
    ((2, 17, 33), "ND", "FRACTAL_NZ", 1),
    ((17,), "ND", "FRACTAL_NZ", 1),
    ((2, 3, 4, 5), "NCHW", "NHWC", 1),
    ((2, 3, 4, 5, 6), "NCDHW", "NDC1HWC0", 1),
    ((17, 3, 3, 3, 2), "NCDHW", "FRACTAL_Z_3D", 1),
    ((17, 3, 3, 3), "NCHW", "FRACTAL_Z_C04", 1),
    ((2, 3, 5, 7), "NCHW", "NC1HWC0_C04", 1),
    ((1, 17, 3, 3), "NCHW", "C1HWNCoC0", 1),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, origin, storage, groups", LAYOUT_CASES)
def test_layout_index_map_matches_to_storage(dtype, shape, origin, storage, groups):
    element = f16 if dtype == "float16" else f32
    layout = make_layout(shape, element, origin, storage, groups=groups)
    x = (np.arange(np.prod(shape)) + 1).reshape(shape).astype(dtype)
    expected = to_storage(x, origin, storage, groups=groups)
    assert expected.shape == layout.storage_shape
    variables = [Var(i, 0, s - 1) for i, s in enumerate(shape)]
    index = layout.storage_index([Ix.of(v) for v in variables])
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    env = dict(zip(variables, grids, strict=True))
    placed = np.zeros(layout.storage_shape, x.dtype)
    placed[tuple(np.broadcast_to(e.evaluate(env), shape) for e in index)] = x
    np.testing.assert_array_equal(placed, expected)


# -- elementwise ------------------------------------------------------------

UNARY = [
    "relu",
    "sigmoid",
    "tanh",
    "softplus",
    "neg",
    "abs",
    "exp",
    "reciprocal",
    "leaky_relu",
    "elu",
    "selu",
    "identity",
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", UNARY)
def test_unary_on_nc1hwc0(dtype, op):
    check(nc1hwc0_graph(dtype, (2, 17, 3, 3), lambda b, x: getattr(b, op)(x)))


@pytest.mark.parametrize("op", ["sqrt", "log"])
def test_unary_positive_domain(op):
    module = nc1hwc0_graph("float32", (1, 17, 2, 2), lambda b, x: getattr(b, op)(x))
    inputs = {
        0: np.random.default_rng(1).uniform(0.5, 2, (1, 17, 2, 2)).astype(np.float32)
    }
    check(module, inputs)


def test_clip_bounds():
    check(
        nc1hwc0_graph(
            "float16", (1, 17, 2, 2), lambda b, x: b.clip(x, min=-0.5, max=0.25)
        )
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "op", ["add", "sub", "mul", "div", "maximum", "minimum", "prelu"]
)
def test_binary_with_nc1hwc0_broadcast_bias(dtype, op):
    """A [C, 1, 1] operand stored as NC1HWC0 broadcasts onto an NC1HWC0 activation."""

    def body(b, x, bias):
        return getattr(b, op)(x, to(b, bias, "NC1HWC0"))

    module = nc1hwc0_graph(
        dtype, (2, 17, 3, 3), body, [((17, 1, 1), {"format": "NCHW"})]
    )
    check(module)


def test_pow_and_plain_nd_broadcast():
    b = GraphBuilder("g")
    x = b.data([3, 4], "float32")
    y = b.data([4], "float32")
    b.output(b.pow(b.abs(x), y), b.add(x, y))
    check(b.build())


def test_integer_binary_ops():
    b = GraphBuilder("g")
    x, y = b.data([2, 3], "int32"), b.data([3], "int32")
    b.output(b.maximum(b.sub(x, y), b.mul(x, y)))
    rng = np.random.default_rng(3)
    inputs = {
        i: rng.integers(-50, 50, s).astype(np.int32)
        for i, s in enumerate([(2, 3), (3,)])
    }
    check(b.build(), inputs)


@pytest.mark.parametrize("dtype", FLOATS)
def test_add_n_bias_add_batch_norm(dtype):
    def body(b, x, bias, scale, offset, mean, var):
        y = b.bias_add(x, bias, data_format="NCHW")
        y = b.batch_norm(
            y, scale, offset, mean, b.abs(var), data_format="NCHW", epsilon=1e-3
        )
        return b.add_n([y, x, y])

    params = [((17,), {}) for _ in range(5)]
    check(nc1hwc0_graph(dtype, (2, 17, 3, 3), body, params))


def test_cast_changes_c0():
    """float32 NC1HWC0 (C0 = 8) -> float16 NC1HWC0 (C0 = 16)."""
    check(
        nc1hwc0_graph(
            "float32", (1, 17, 2, 3), lambda b, x: b.cast(x, dst_type="float16")
        )
    )


# -- transdata --------------------------------------------------------------

TRANSDATA = [
    ((2, 17, 3, 5), "NCHW", ["NC1HWC0", "NHWC", "NC1HWC0", "NCHW"]),
    ((2, 3, 5, 17), "NHWC", ["NC1HWC0", "NCHW"]),
    ((33, 17, 3, 3), "NCHW", ["FRACTAL_Z", "NCHW"]),
    ((3, 3, 17, 33), "HWCN", ["FRACTAL_Z", "HWCN"]),
    ((17, 33), "ND", ["FRACTAL_NZ", "ND"]),
    ((2, 17, 33), "ND", ["FRACTAL_NZ", "ND"]),
    ((2, 3, 4, 5, 6), "NCDHW", ["NDC1HWC0", "NCDHW"]),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, origin, chain", TRANSDATA)
def test_transdata_round_trips(dtype, shape, origin, chain):
    b = GraphBuilder("g")
    x = b.data(list(shape), dtype, format=origin)
    stored = []
    for storage in chain:
        x = to(b, x, storage)
        stored.append(x)
    b.output(*stored)
    check(b.build())


@pytest.mark.parametrize("groups", [1, 4, 24])
def test_transdata_to_grouped_fractal_z(groups):
    b = GraphBuilder("g")
    w = b.data([48, 48 // groups, 3, 3], "float32", format="NCHW")
    b.output(to(b, w, "FRACTAL_Z", groups=groups))
    module = b.build()
    (w_value,) = random_inputs(module).values()
    (stored,) = compile_graph(module.body.block.first_op, poison=True)(w_value)
    np.testing.assert_array_equal(
        stored, to_storage(w_value, "NCHW", "FRACTAL_Z", groups=groups)
    )


# -- convolution ------------------------------------------------------------

CONVOLUTIONS = [
    # cin, cout, groups, filter format, stride, pad, dilation
    (17, 33, 1, "NCHW", 2, 1, 1),
    (3, 5, 1, "HWCN", 1, 0, 1),
    (17, 6, 1, "NCHW", 1, 2, 2),
    (32, 32, 32, "NCHW", 1, 1, 1),
    (24, 24, 24, "NCHW", 2, 1, 1),
    (16, 64, 4, "NCHW", 1, 1, 1),
    (24, 36, 3, "NCHW", 1, 1, 1),  # 8 and 12 channels per group
    (68, 34, 2, "NCHW", 2, 0, 1),  # 34 and 17
    (9, 6, 3, "NCHW", 1, 1, 1),  # 3 and 2
    (51, 51, 3, "NCHW", 2, 1, 1),  # 17
    (136, 136, 4, "NCHW", 1, 0, 2),  # 34, dilated
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "cin, cout, groups, wformat, stride, pad, dilation", CONVOLUTIONS
)
def test_conv2d_nc1hwc0_fractal_z(
    dtype, cin, cout, groups, wformat, stride, pad, dilation
):
    wshape = (
        [cout, cin // groups, 3, 3]
        if wformat == "NCHW"
        else [3, 3, cin // groups, cout]
    )

    def body(b, x, w, bias):
        return b.conv2d(
            x,
            to(b, w, "FRACTAL_Z", groups=groups),
            bias,
            strides=[1, 1, stride, stride],
            pads=[pad, pad, pad, pad],
            dilations=[1, 1, dilation, dilation],
            groups=groups,
            data_format="NCHW",
        )

    extra = [(wshape, {"format": wformat}), ((cout,), {})]
    check(nc1hwc0_graph(dtype, (1, cin, 9, 9), body, extra))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "cin, cout, groups, gathered",
    [(24, 36, 3, True), (68, 34, 2, True), (12, 12, 3, False), (64, 32, 4, False)],
)
def test_grouped_conv2d_at_misaligned_channels_is_gathered(
    dtype, cin, cout, groups, gathered
):
    """Groups whose channels start inside a C0 block (12 output channels
    per group, 34 or 17 in blocks of 8 or 16): one nest per output block
    shape (whole blocks of the group's channels, its last partial one),
    its groups and input channels read through `floordiv`/`mod`, not a
    nest per group and block crossed; fused with a ReLU too. Groups that
    fit the blocks (4 or 16 channels) stay affine."""

    def body(b, x, w):
        conv = b.conv2d(
            x, to(b, w, "FRACTAL_Z", groups=groups), groups=groups, data_format="NCHW"
        )
        return [conv, b.relu(conv)]

    extra = [([cout, cin // groups, 1, 1], {"format": "NCHW"})]
    text = check(nc1hwc0_graph(dtype, (1, cin, 3, 5), body, extra))
    nests = text.split("\n    affine.for")[1:]
    products = [nest for nest in nests if "arith.mulf" in nest]
    assert products, text
    wraps = ["floordiv" in nest or " mod " in nest for nest in products]
    if gathered:
        assert len(products) <= 2 and all(wraps), text
    else:
        assert not any(wraps), text


@pytest.mark.parametrize("kernels", ["c", "numpy"])
def test_only_the_padding_box_is_zeroed_and_it_reads_zero(kernels):
    """A 17-channel NC1HWC0 buffer (C0 = 8): one nest zeroes lanes 1..7 of
    its last block, not the whole buffer (the returned relu's; the
    transdata's result's, which the relu does not read, is erased:
    `unread_fills`); in fresh NaN-filled buffers (`poison`) the padding comes
    out zero and the channels as computed."""
    b = GraphBuilder("g")
    x = to(b, b.data([1, 17, 3, 5], "float32", format="NCHW"), "NC1HWC0")
    b.output(b.relu(x))
    graph = b.build().body.block.first_op
    text = lower_graph(graph)
    zero = re.search(r"(%\w+) = arith.constant 0.000000e\+00 : f32", text)
    assert zero is not None, text
    zeroed = re.findall(rf"affine.store {zero.group(1)}, %\w+\[(.*)\]", text)
    assert len(zeroed) == 1, text
    assert all(re.fullmatch(r"0, 2, .*, %\w+ \+ 1", index) for index in zeroed), text
    value = np.random.default_rng(0).standard_normal((1, 17, 3, 5)).astype(np.float32)
    compiled = compile_module(text, poison=True, kernels=kernels)
    (stored,) = compiled(value)
    assert stored.shape == (1, 3, 3, 5, 8)
    np.testing.assert_array_equal(stored[0, 2, :, :, 1:], 0)
    np.testing.assert_array_equal(
        stored, to_storage(np.maximum(value, 0), "NCHW", "NC1HWC0")
    )


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_conv2d_plain_layouts(data_format):
    b = GraphBuilder("g")
    shape = [1, 5, 7, 7] if data_format == "NCHW" else [1, 7, 7, 5]
    x = b.data(shape, "float32", format=data_format)
    w = b.data([4, 5, 3, 3], "float32", format="NCHW")
    strides = [1, 1, 2, 1] if data_format == "NCHW" else [1, 2, 1, 1]
    b.output(
        b.conv2d(x, w, strides=strides, pads=[1, 0, 1, 1], data_format=data_format)
    )
    check(b.build())


def test_conv_then_relu_is_one_einsum():
    """The convolution's accumulation nest becomes one BLAS contraction."""
    module = nc1hwc0_graph(
        "float32",
        (1, 16, 8, 8),
        lambda b, x, w: b.relu(
            b.conv2d(x, to(b, w, "FRACTAL_Z"), pads=[1, 1, 1, 1], data_format="NCHW")
        ),
        [([16, 16, 3, 3], {"format": "NCHW"})],
    )
    check(module)
    source = compile_graph(module.body.block.first_op, kernels="numpy").source
    assert source.count("np.dot(") == 1 and "np.einsum" not in source


# -- pooling ----------------------------------------------------------------

POOLS = [
    # ksize, stride, pads, ceil_mode, count_include_pad
    (3, 2, [1, 1, 1, 1], False, False),
    (3, 2, [0, 0, 0, 0], True, False),
    (2, 2, [1, 0, 1, 0], True, True),
    (3, 1, [1, 1, 1, 1], False, True),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
@pytest.mark.parametrize("k, s, pads, ceil, include", POOLS)
def test_pooling_on_nc1hwc0(dtype, op, k, s, pads, ceil, include):
    attrs = {"count_include_pad": include} if op == "avg_pool" else {}

    def body(b, x):
        return getattr(b, op)(
            x,
            ksize=[1, 1, k, k],
            strides=[1, 1, s, s],
            pads=pads,
            ceil_mode=ceil,
            data_format="NCHW",
            **attrs,
        )

    check(nc1hwc0_graph(dtype, (1, 17, 7, 7), body))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_integer_max_pool_and_reduce_max_are_exact(dtype):
    """An integer max pool pads with the type's minimum and accumulates in its
    own type (no float rounding of large values)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(11)
    x_value = rng.integers(info.min, info.max, (1, 17, 7, 7), dtype=dtype)
    x_value[0, 0, 0, :3] = info.min  # the minimum itself inside a padded window

    def body(b, x):
        pooled = b.max_pool(
            x,
            ksize=[1, 1, 3, 3],
            strides=[1, 1, 2, 2],
            pads=[1, 1, 1, 1],
            data_format="NCHW",
        )
        return [pooled]

    check(nc1hwc0_graph(dtype, (1, 17, 7, 7), body), {0: x_value})
    b = GraphBuilder("g")
    x = b.data([5, 3, 33], dtype)
    b.output(b.reduce_max(x, axes=[0, 2], keep_dims=False))
    check(b.build(), {0: rng.integers(info.min, info.max, (5, 3, 33), dtype=dtype)})


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint16", "int64"])
def test_reduce_min_and_prod_lower_with_special_values(dtype):
    """Odd sizes; NaN propagates through a min, ±inf and -0.0 take part; a
    product over an axis of 33 (floats only)."""
    rng = np.random.default_rng(19)
    shape = (3, 33, 5)
    if dtype.startswith("float"):
        x_value = (rng.standard_normal(shape) * 0.5 + 1).astype(dtype)
        x_value[0, 3, 1], x_value[1, 0, :], x_value[2, 4, 4] = np.nan, np.inf, -0.0
    else:
        info = np.iinfo(dtype)
        x_value = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        x_value[0, 0, :] = info.min
    for axes, keep in (([1], True), ([0, 2], False), ([], False)):
        b = GraphBuilder("g")
        x = b.data(list(shape), dtype)
        outputs = [b.reduce_min(x, axes=axes, keep_dims=keep)]
        if dtype.startswith("float"):
            outputs.append(b.reduce_prod(x, axes=axes, keep_dims=keep))
        b.output(*outputs)
        module = b.build()
        check(module, {0: x_value})
        got = run_graph(module, {0: x_value})
        reduced = tuple(axes) or None
        np.testing.assert_array_equal(
            got[0], np.min(x_value, axis=reduced, keepdims=keep)
        )


def unsigned_max_graphs(dtype: str):
    """A max pool over NC1HWC0 and a reduce_max of an unsigned or bool tensor,
    with random values including the type's extremes, as (module, inputs)."""
    rng = np.random.default_rng(12)
    if dtype == "bool":
        x_value = rng.random((1, 17, 7, 7)) < 0.2
        r_value = rng.random((5, 3, 33)) < 0.1
    else:
        info = np.iinfo(dtype)
        x_value = rng.integers(0, info.max, (1, 17, 7, 7), dtype=dtype, endpoint=True)
        x_value[0, 0, 0, :3] = info.max  # above the signed range
        x_value[0, 1, :3, :3] = 0  # a window of zeros, the identity
        r_value = rng.integers(0, info.max, (5, 3, 33), dtype=dtype, endpoint=True)

    def body(b, x):
        pooled = b.max_pool(
            x,
            ksize=[1, 1, 3, 3],
            strides=[1, 1, 2, 2],
            pads=[1, 1, 1, 1],
            data_format="NCHW",
        )
        return [pooled]

    b = GraphBuilder("g")
    b.output(b.reduce_max(b.data([5, 3, 33], dtype), axes=[0, 2], keep_dims=False))
    return [
        (nc1hwc0_graph(dtype, (1, 17, 7, 7), body), {0: x_value}),
        (b.build(), {0: r_value}),
    ]


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint64", "bool"])
def test_unsigned_and_bool_max_pool_and_reduce_max_are_exact(dtype):
    """Unsigned maxima compare unsigned (`arith.maxui`) from 0 (values above
    the signed range stay largest); a bool maximum is an `or`."""
    for module, inputs in unsigned_max_graphs(dtype):
        text = check(module, inputs)
        assert "arith.maxui" in text


def test_unsigned_loop_ir_is_upstream_mlir():
    """Lowered modules over unsigned integers hold signless memrefs (`i8`),
    the arguments and results saying `ge.element_type = ui8`; iree-opt
    verifies them."""
    module, _ = unsigned_max_graphs("uint8")[1]
    text = lower_graph(module.body.block.first_op)
    assert "ge.element_type = ui8" in text
    assert not re.search(r"\bui\d+\b", text.replace("ge.element_type = ui8", ""))
    verify_with_iree([text])


UNSIGNED_BINARY = ("add", "sub", "mul", "div", "mod", "maximum", "minimum")
UNSIGNED_COMPARISONS = ("less", "less_equal", "greater", "greater_equal", "equal")
UNSIGNED_CASTS = ("float32", "float64", "int64", "int8", "uint16", "uint64")


def unsigned_operands(dtype: str, count: int = 33) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of `dtype` holding its extremes, values above the signed
    range, zero divisors and wraparound sums (odd length)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    a = rng.integers(0, info.max, count, dtype=dtype, endpoint=True)
    b = rng.integers(0, info.max, count, dtype=dtype, endpoint=True)
    top = info.max // 2 + 1  # the first value a signed reading makes negative
    a[:8] = [info.max, info.max, top, top, 0, 1, info.max, top + 3]
    b[:8] = [1, info.max, 2, 0, info.max, 0, 0, top - 1]
    return a, b


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("op", UNSIGNED_BINARY + UNSIGNED_COMPARISONS)
def test_unsigned_binary_ops_read_the_bits_as_unsigned(op, dtype):
    """Loop IR holds unsigned data in signless memrefs: divui/remui/maxui/
    cmpi ult... compute on the unsigned value (above the signed range too),
    sums wrap, division by zero gives 0 as NumPy's; the outputs come back
    in the graph's dtype."""
    a, b = unsigned_operands(dtype)
    g = GraphBuilder("g")
    g.output(g.op(f"ge.{op}", g.data([a.size], dtype), g.data([b.size], dtype)))
    text = check(g.build(), {0: a, 1: b})
    assert "ge.element_type = ui" in text


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("to", UNSIGNED_CASTS)
def test_casts_from_unsigned_zero_extend(dtype, to):
    """A cast of values above the signed range reads them as unsigned
    (`extui`, `uitofp`); a cast to an unsigned type of floats `fptoui`."""
    a, _ = unsigned_operands(dtype)
    g = GraphBuilder("g")
    g.output(g.op("ge.cast", g.data([a.size], dtype), dst_type=to))
    check(g.build(), {0: a})
    if to.startswith("float"):
        g = GraphBuilder("g")
        g.output(g.op("ge.cast", g.data([a.size], to), dst_type=dtype))
        check(g.build(), {0: a.astype(to)})


@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
def test_pooling_nhwc(op):
    b = GraphBuilder("g")
    x = b.data([1, 6, 6, 3], "float32", format="NHWC")
    b.output(
        getattr(b, op)(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], data_format="NHWC")
    )
    check(b.build())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["global_avg_pool", "global_max_pool"])
def test_global_pooling(dtype, op):
    check(
        nc1hwc0_graph(
            dtype, (2, 17, 5, 5), lambda b, x: getattr(b, op)(x, data_format="NCHW")
        )
    )


# -- normalisation, softmax, reductions ---------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_lrn_across_channels(dtype):
    check(
        nc1hwc0_graph(
            dtype,
            (1, 17, 3, 3),
            lambda b, x: b.lrn(
                x, size=5, alpha=1e-2, beta=0.75, bias=2.0, data_format="NCHW"
            ),
        )
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_over_channels_of_nc1hwc0(dtype, op):
    check(nc1hwc0_graph(dtype, (2, 17, 2, 3), lambda b, x: getattr(b, op)(x, axis=1)))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_nd_last_axis(op):
    b = GraphBuilder("g")
    b.output(getattr(b, op)(b.data([3, 10], "float32")))
    check(b.build())


@pytest.mark.parametrize("columns", [3, 17, 33, 100])
def test_softmax_computes_each_exponential_once(columns):
    """Softmax's exponentials are written to the result, summed and divided
    there: one `math.exp` in its loops (log_softmax needs none after the
    sum), the results those of the reference at odd sizes and on special
    values (a row of -inf is NaN, -inf entries are 0, +inf makes NaN)."""
    b = GraphBuilder("g")
    b.output(b.softmax(b.data([5, columns], "float32")))
    module = b.build()
    text = lower_graph(module.body.block.first_op)
    assert text.count("math.exp") == 1, text
    x = np.random.default_rng(columns).standard_normal((5, columns)) * 30
    x[1, :] = -np.inf
    x[2, 0] = -np.inf
    x[3, -1] = np.inf
    check(module, {0: x.astype(np.float32)})


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_max"])
@pytest.mark.parametrize("axes, keep", [([1], True), ([0, 2], False), ([], False)])
def test_reductions(op, axes, keep):
    b = GraphBuilder("g")
    b.output(getattr(b, op)(b.data([2, 17, 3], "float32"), axes=axes, keep_dims=keep))
    check(b.build())


def test_instance_norm():
    def body(b, x, gamma, beta):
        return b.instance_norm(x, gamma, beta, data_format="NCHW")

    check(nc1hwc0_graph("float32", (2, 17, 3, 4), body, [((17,), {}), ((17,), {})]))


# -- matrix products ----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "trans_a, trans_b", [(False, False), (True, False), (False, True)]
)
def test_matmul_on_fractal_nz(dtype, trans_a, trans_b):
    b = GraphBuilder("g")
    a = b.data([33, 17] if trans_a else [17, 33], dtype)
    w = b.data([5, 33] if trans_b else [33, 5], dtype)
    bias = b.data([5], dtype)
    y = b.matmul(
        to(b, a, "FRACTAL_NZ"),
        to(b, w, "FRACTAL_NZ"),
        bias,
        transpose_x1=trans_a,
        transpose_x2=trans_b,
    )
    b.output(to(b, y, "ND"))
    check(b.build())


def test_gemm_and_batch_matmul_nd():
    b = GraphBuilder("g")
    a, w, c = (
        b.data([4, 9], "float32"),
        b.data([6, 9], "float32"),
        b.data([6], "float32"),
    )
    x, y = b.data([2, 1, 3, 4], "float32"), b.data([3, 4, 5], "float32")
    b.output(
        b.gemm(a, w, c, alpha=0.5, beta=2.0, trans_b=True),
        b.batch_matmul(x, y),
    )
    check(b.build())


# -- data movement ------------------------------------------------------------


@pytest.mark.parametrize("channels", [(16, 16), (17, 5, 3)])
def test_concat_on_c1(channels):
    """Aligned channel counts concatenate on C1; others go through the origin index."""
    b = GraphBuilder("g")
    parts = [
        to(b, b.data([1, c, 2, 2], "float16", format="NCHW"), "NC1HWC0")
        for c in channels
    ]
    b.output(to(b, b.concat(parts, axis=1), "NCHW"))
    check(b.build())


@pytest.mark.parametrize("channels, groups", [(112, 4), (136, 4), (51, 3), (34, 2)])
def test_channel_shuffle_on_nc1hwc0_sweeps_the_pixels_once(channels, groups):
    """A channel shuffle whose groups start inside C0 blocks (16 float32
    lanes on Ascend910): at most `NEST_PIECES` nests over the pixels (112
    channels in 4 groups were 40 nests of 1 to 4 lanes each, 51 in 3 were
    53); past that one nest gathers each block's lanes through
    `floordiv`/`mod`."""
    from passes.lowering.emitter import NEST_PIECES

    def body(b, x):  # between ReLUs: its copy stays (`forwarded_copies`)
        shuffled = b.channel_shuffle(b.relu(x), groups=groups, result_types=[x.type])
        return b.relu(shuffled)

    module = nc1hwc0_graph("float32", (1, channels, 3, 5), body)
    text = check(module, target="Ascend910")
    nests = text.count("\n    affine.for")
    # the shuffle's blocks and last block, the transdatas and ReLUs: at most
    # `NEST_PIECES` each (44 to 59 nests before, all but 4 the shuffle's)
    assert nests <= 4 * NEST_PIECES, text
    if channels != 34:  # 2 groups of 17: 8 nests of whole vectors
        assert "floordiv" in text, text
    if channels in (112, 136):  # the gather's lanes one loop (`coalesced`)
        lines = text[: text.index("floordiv")].splitlines()
        innermost = next(line for line in reversed(lines) if "affine.for" in line)
        assert innermost.endswith("= 0 to 16 {"), innermost


def test_split():
    b = GraphBuilder("g")
    x = to(b, b.data([1, 20, 2, 2], "float16", format="NCHW"), "NC1HWC0")
    parts = b.split(x, axis=1, sizes=[16, 3, 1])
    b.output(*[to(b, p, "NCHW") for p in parts])
    check(b.build())


def test_reshape_family_and_transpose():
    b = GraphBuilder("g")
    x = b.data([2, 3, 4, 5], "float32")
    flat = b.flatten(x, axis=1)
    b.output(
        flat,
        b.reshape(flat, shape=[6, 20]),
        b.transpose(x, perm=[0, 2, 3, 1]),
        b.unsqueeze(b.squeeze(b.data([3, 1, 4], "float32"), axes=[1]), axes=[0]),
    )
    check(b.build())


def test_flatten_of_nc1hwc0():
    b = GraphBuilder("g")
    x = to(b, b.data([2, 17, 2, 2], "float32", format="NCHW"), "NC1HWC0")
    b.output(b.flatten(x, axis=1))
    check(b.build())


def test_slice_pad_tile():
    b = GraphBuilder("g")
    x = b.data([4, 6], "float32")
    b.output(
        b.slice(x, begins=[1, -1], ends=[4, 0], axes=[0, 1], steps=[2, -2]),
        b.pad(x, paddings=[1, -1, 0, 2], value=3.0),
        b.tile(x, multiples=[2, 3]),
    )
    check(b.build())


@pytest.mark.parametrize("mode", ["edge", "reflect"])
@pytest.mark.parametrize(
    "paddings",
    [
        [1, 2, 0, 2],  # both borders of the last axis
        [2, 0, 1, 3],  # rows and columns
        [-1, 1, 2, -2],  # crops as well
    ],
)
def test_edge_and_reflect_pad(mode, paddings):
    b = GraphBuilder("g")
    x = b.data([4, 6], "float32")
    b.output(b.pad(x, paddings=paddings, mode=mode))
    x_value = np.arange(24, dtype=np.float32).reshape(4, 6)
    x_value[1, 1] = -np.inf
    check(b.build(), {0: x_value})


def test_edge_pad_of_an_nc1hwc0_image():
    def body(b, x):
        return b.pad(x, paddings=[0, 0, 1, 2, 0, 0, 2, 1], mode="edge")

    check(nc1hwc0_graph("float16", (1, 17, 3, 5), body))


def test_reflect_pad_wider_than_the_axis_is_an_error():
    """ONNX's reflect reaches at most n - 1 elements (numpy would reflect
    again): refused when the op is built, before any lowering."""
    b = GraphBuilder("g")
    x = b.data([2, 3], "float32")
    with pytest.raises(ValueError, match="'reflect' padding of 3 before axis 1 must"):
        b.pad(x, paddings=[0, 3, 0, 0], mode="reflect")


# -- constants, weights, errors -----------------------------------------------


def test_constants_globals_and_weight_arguments():
    """Inline constants (small or large) become memref.globals, external ones
    arguments."""
    rng = np.random.default_rng(2)
    b = GraphBuilder("g")
    x = b.data([3, 300], "float32")
    small = b.const(rng.standard_normal(3).astype(np.float32))
    large = b.const(rng.standard_normal(300).astype(np.float32), name="big")
    external = b.external_const("w.ext", [300], "float32")
    y = b.add(b.add(b.add(x, large), external), b.unsqueeze(small, axes=[1]))
    b.output(y)
    module = b.build()
    weights = {"w.ext": rng.standard_normal(300).astype(np.float32)}
    text = check(module, weights=weights)
    assert text.count("memref.global") == 2 and '{ge.weight = "big"}' not in text
    assert '{ge.weight = "w.ext"}' in text


def test_identity_aliases_and_only_allocations_are_freed():
    """identity shares its operand's buffer; an argument is never deallocated."""
    b = GraphBuilder("g")
    y = b.identity(b.data([2, 3], "float32"))
    b.output(b.relu(b.relu(y)))
    text = check(b.build())
    assert text.count("memref.alloc()") == 2
    assert text.count("memref.dealloc") == 1


# -- control flow -------------------------------------------------------------


@pytest.mark.parametrize(
    "cond",
    [
        np.array([True]),
        np.array([False]),
        np.zeros(0, np.bool_),  # no element: false
        np.array([False, False, False]),  # several: true
    ],
    ids=["true", "false", "empty", "several"],
)
def test_if_runs_the_branch_the_reference_runs(cond):
    b = GraphBuilder("g")
    x = b.data([3, 17], "float32")
    c = b.data(list(cond.shape), "bool")
    (y,) = b.if_(c, [x], lambda s, v: s.relu(v), lambda s, v: s.neg(v))
    b.output(b.exp(y))
    x_value = np.array([[-np.inf, -0.0, np.nan, 2.0] * 4 + [1.0]] * 3, np.float32)
    text = check(b.build(), {0: x_value, 1: cond})
    assert "scf.if" in text


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 33])
def test_case_clamps_to_the_last_branch(index):
    b = GraphBuilder("g")
    x = b.data([5, 3], "float32")
    i = b.data([], "int32")
    branches = [lambda s, v: s.exp(v), lambda s, v: s.tanh(v), lambda s, v: s.neg(v)]
    (y,) = b.case(i, [x], branches)
    b.output(y)
    x_value = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    text = check(b.build(), {0: x_value, 1: np.array(index, np.int32)})
    assert "scf.index_switch" in text


def test_while_swaps_crossed_loop_variables():
    """(n, a, b) -> (n - 1, b, a * b) while n is non-zero: a and b cross."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    a = b.data([33], "float32")
    c = b.data([33], "float32")
    one = b.const(np.array(1, np.int32))

    def body(s: GraphBuilder, n_, a_, b_):
        return [s.sub(n_, s.const(np.array(1, np.int32))), b_, s.mul(a_, b_)]

    _, y, z = b.while_([n, a, c], lambda s, n_, a_, b_: s.identity(n_), body)
    b.output(b.add(y, z), one)
    rng = np.random.default_rng(4)
    inputs = {
        0: np.array(3, np.int32),
        1: rng.uniform(0.5, 1.5, 33).astype(np.float32),
        2: rng.uniform(0.5, 1.5, 33).astype(np.float32),
    }
    text = check(b.build(), inputs)
    assert "scf.while" in text


@pytest.mark.parametrize("planned", [False, True], ids=["unplanned", "planned"])
@pytest.mark.usefixtures("aicpu_tile")
def test_engine_subgraphs_become_called_functions(planned):
    """partition-engines' `ge.partitioned_call`s (a conv on NC1HWC0 with 17
    channels and a constant, relu, an AI CPU tile, exp) lower to private
    functions and `func.call`s; planned, the callees' values are views of the
    caller's arena. The JIT (which inlines each call) matches the reference."""
    from ge_dialect.dialect import make_context
    from passes.partition_engines import PartitionEnginesPass
    from passes.plan_memory import PlanMemoryPass

    rng = np.random.default_rng(17)

    def body(b, x):
        w = b.const(rng.standard_normal((17, 17, 3, 3)).astype(np.float32))
        y = b.relu(b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW"))
        return b.tile(to(b, y, "NCHW"), multiples=[1, 1, 2, 1])

    b = GraphBuilder("g")
    x = to(b, b.data([1, 17, 5, 5], "float32", format="NCHW"), "NC1HWC0")
    b.output(b.exp(body(b, x)))
    module = b.build()
    PartitionEnginesPass().apply(make_context(), module)
    if planned:
        PlanMemoryPass().apply(make_context(), module)
    text = check(module)
    assert text.count("func.call @g_") >= 2
    assert "func.func private @g_aicpu" in text
    assert ("memref.view" in text) is planned


@pytest.mark.usefixtures("aicpu_tile")
def test_planned_while_with_engine_subgraphs_in_its_body():
    """A while body split into engine subgraphs (AI Core ops around an AI CPU
    tile) by partition-engines, then planned: the calls inside the body are
    planned inlined (their outputs are their inner values' bytes), lowered as
    func.calls that return arena views, and the JIT matches the reference."""
    from ge_dialect.dialect import make_context
    from passes.partition_engines import PartitionEnginesPass
    from passes.plan_memory import PlanMemoryPass

    b = GraphBuilder("g")
    n = b.data([], "int32")
    table = b.data([5, 33], "float32")
    acc = b.data([33], "float32")

    def body(s: GraphBuilder, n_, t_, a_):
        one = s.const(np.array(1, np.int32))
        row = s.tile(s.gather(t_, s.sub(n_, one), axis=0), multiples=[1])
        return [s.sub(n_, one), t_, s.add(s.tanh(a_), s.mul(row, a_))]

    _, _, y = b.while_([n, table, acc], lambda s, n_, t_, a_: s.identity(n_), body)
    b.output(b.exp(y))
    module = b.build()
    PartitionEnginesPass().apply(make_context(), module)
    PlanMemoryPass().apply(make_context(), module)
    rng = np.random.default_rng(18)
    inputs = {
        0: np.array(5, np.int32),
        1: rng.uniform(-1, 1, (5, 33)).astype(np.float32),
        2: rng.uniform(-1, 1, 33).astype(np.float32),
    }
    text = check(module, inputs)
    assert "scf.while" in text and "func.call @g_aicpu" in text
    assert "memref.view" in text


def test_lowered_subgraph_constants_are_weights_or_globals():
    """Constants inside a branch become memref.globals too (an external one
    would be a weight argument); they are read inside the scf region."""
    b = GraphBuilder("g")
    x = b.data([300], "float32")
    c = b.data([], "bool")
    big = np.linspace(-1, 1, 300, dtype=np.float32)
    (y,) = b.if_(
        c,
        [x],
        lambda s, v: s.add(v, s.const(big)),
        lambda s, v: s.mul(v, s.const(np.array([2.0], np.float32))),
    )
    b.output(y)
    text = check(b.build(), {0: np.ones(300, np.float32), 1: np.array(True)})
    assert text.count("memref.get_global") == 2 and "ge.weight" not in text


CONV_TRANSPOSES = [
    # x shape, filter shape, strides, pads, dilations, groups, output_padding
    ((1, 3, 5, 5), (3, 4, 3, 3), 1, [0, 0, 0, 0], 1, 1, [0, 0]),
    ((1, 17, 4, 5), (17, 5, 3, 3), 2, [1, 1, 1, 1], 1, 1, [1, 0]),
    ((2, 4, 3, 3), (4, 3, 2, 2), 3, [0, 1, 2, 0], 1, 2, [0, 2]),
    ((1, 6, 5, 4), (6, 1, 3, 3), 2, [2, 2, 2, 2], 2, 6, [1, 1]),  # depthwise
    ((1, 2, 3, 3), (2, 3, 2, 2), 2, [2, 2, 2, 2], 1, 1, [0, 0]),  # pad > k - 1
]


@pytest.mark.parametrize("case", CONV_TRANSPOSES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv2d_transpose_lowers(case, bias):
    x_shape, w_shape, s, pads, d, groups, extra = case
    rng = np.random.default_rng(13)
    b = GraphBuilder("g")
    x = b.data(list(x_shape), "float32", format="NCHW")
    w = b.const(rng.standard_normal(w_shape).astype(np.float32), format="NCHW")
    operands = [x, w]
    if bias:
        operands.append(
            b.const(rng.standard_normal(w_shape[1] * groups).astype(np.float32))
        )
    y = b.conv2d_transpose(
        *operands,
        strides=[1, 1, s, s],
        pads=pads,
        dilations=[1, 1, d, d],
        groups=groups,
        output_padding=extra,
        data_format="NCHW",
    )
    b.output(y)
    check(b.build())


def test_conv2d_transpose_on_nc1hwc0():
    def body(b, x):
        w = b.const(
            np.random.default_rng(14).standard_normal((17, 9, 3, 3)).astype(np.float32),
            format="NCHW",
        )
        return b.conv2d_transpose(
            x, w, strides=[1, 1, 2, 2], pads=[1, 1, 1, 1], data_format="NCHW"
        )

    check(nc1hwc0_graph("float32", (1, 17, 4, 4), body))


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gather_lowers_with_negative_indices(axis, dtype):
    b = GraphBuilder("g")
    x = b.data([4, 3, 5], "float32")
    index = b.data([2, 3], dtype)
    b.output(b.gather(x, index, axis=axis))
    size = (4, 3, 5)[axis]
    indices = np.array([[0, -1, size - 1], [1, -size, 0]], dtype)
    x_value = np.random.default_rng(15).standard_normal((4, 3, 5)).astype(np.float32)
    text = check(b.build(), {0: x_value, 1: indices})
    assert "memref.load" in text


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize(
    "index", [0, 2, -1, -3, [-2], [[1, 1, 1], [1, 1, 1]], [0, 1, 2], [[2, 1], [1, 0]]]
)
def test_gather_of_affine_constant_indices_is_an_affine_copy(axis, index):
    """Constant indices that are an affine function of their position (a
    scalar, a 1-element tensor, negative ones, a 2x3 tensor of ones, a
    range, a 2x2 table falling along both axes) are a slice: no
    data-dependent load, the reference's result, also from NC1HWC0 (17
    channels) without a row-major copy; out of range it stays a run-time
    check."""
    b = GraphBuilder("g")
    x = to(b, b.data([3, 17, 5, 33], "float32", format="NCHW"), "NC1HWC0")
    b.output(b.gather(x, b.const(index, "int64"), axis=axis))
    text = check(b.build())
    assert "memref.load" not in text and "cf.assert" not in text, text
    bad = GraphBuilder("g")
    y = bad.data([3, 17, 5, 33], "float32")
    size = (3, 17, 5, 33)[axis]
    bad.output(bad.gather(y, bad.const(size, "int64"), axis=axis))
    assert "memref.load" in lower_graph(bad.build().body.block.first_op)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gather_elements_lowers_with_negative_indices(axis, dtype):
    shape = (3, 5, 17)
    index_shape = [2 if d == axis else min(n, 4) for d, n in enumerate(shape)]
    b = GraphBuilder("g")
    x = b.data(list(shape), "float32")
    index = b.data(index_shape, dtype)
    b.output(b.gather_elements(x, index, axis=axis))
    rng = np.random.default_rng(16)
    indices = rng.integers(-shape[axis], shape[axis], index_shape).astype(dtype)
    x_value = rng.standard_normal(shape).astype(np.float32)
    assert "memref.load" in check(b.build(), {0: x_value, 1: indices})


@pytest.mark.parametrize(
    ("index_shape", "batch_dims"), [((4, 2), 0), ((2, 3, 1), 0), ((3, 4, 2), 1)]
)
def test_gather_nd_lowers_with_negative_indices(index_shape, batch_dims):
    shape = (3, 5, 17)
    b = GraphBuilder("g")
    x = b.data(list(shape), "float32")
    index = b.data(list(index_shape), "int64")
    b.output(b.gather_nd(x, index, batch_dims=batch_dims))
    rng = np.random.default_rng(17)
    depth = index_shape[-1]
    sizes = np.array(shape[batch_dims : batch_dims + depth])
    indices = (rng.integers(0, 1 << 16, index_shape) % sizes) - sizes * rng.integers(
        0, 2, index_shape
    )
    x_value = rng.standard_normal(shape).astype(np.float32)
    check(b.build(), {0: x_value, 1: indices.astype(np.int64)})


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize(
    ("dtype", "index_dtype"),
    [("float32", "int64"), ("float16", "int32"), ("int8", "int64"), ("bool", "int32")],
)
def test_gather_elements_of_every_dtype_and_a_longer_gather_axis(
    axis, dtype, index_dtype
):
    """Odd sizes; the indices may be smaller than x on every axis but `axis`
    keeps x's range; negative ones count from the end."""
    shape, index_shape = (3, 17, 5), [2, 9, 3]
    index_shape[axis] = 33
    rng = np.random.default_rng(16)
    size = shape[axis]
    indices = rng.integers(-size, size, index_shape).astype(index_dtype)
    x_value = (rng.standard_normal(shape) * 5).astype(dtype)
    b = GraphBuilder("g")
    x = b.data(list(shape), dtype)
    index = b.data(index_shape, index_dtype)
    b.output(b.gather_elements(x, index, axis=axis))
    module = b.build()
    text = check(module, {0: x_value, 1: indices})
    assert "memref.load" in text
    (got,) = run_graph(module, {0: x_value, 1: indices})
    expected = np.empty(index_shape, dtype)
    for position in np.ndindex(*index_shape):
        source = list(position)
        source[axis] = indices[position]
        expected[position] = x_value[tuple(source)]
    np.testing.assert_array_equal(got, expected)


def _gather_graph(op: str, index_shape: list[int]):
    """`op` on x[3, 4] along axis 1 (a GatherND: index tuples of length 2)."""
    b = GraphBuilder("g")
    x = b.data([3, 4], "float32")
    index = b.data(index_shape, "int64")
    gathered = {
        "gather": lambda: b.gather(x, index, axis=1, name="take"),
        "gather_elements": lambda: b.gather_elements(x, index, axis=1, name="take"),
        "gather_nd": lambda: b.gather_nd(x, index, name="take"),
    }[op]()
    b.output(gathered)
    return b.build()


GATHER_INDICES = {
    "gather": ([3], lambda bad: [0, bad, -4]),
    "gather_elements": ([3, 1], lambda bad: [[0], [bad], [-4]]),
    "gather_nd": ([3, 2], lambda bad: [[0, -4], [2, bad], [-3, 3]]),
}
"""Per gather: the index shape, and indices with one entry `bad` on axis 1
(the others in range, negative ones included)."""


@pytest.mark.parametrize("op", sorted(GATHER_INDICES))
@pytest.mark.parametrize("bad", [4, -5, 1 << 40])
def test_gather_index_out_of_range_is_a_located_error(op: str, bad: int):
    """ONNX allows indices in [-size, size): one past either end fails on
    the JIT (vectorised and scalar paths) with the diagnostic at the node,
    as in the reference; it never wraps around (-5 is not -1)."""
    index_shape, values = GATHER_INDICES[op]
    module = _gather_graph(op, index_shape)
    feeds = {0: np.zeros((3, 4), np.float32), 1: np.array(values(bad), np.int64)}
    message = f"node 'take': error: 'ge.{op}' op index out of range [-4, 3] on axis 1"
    with pytest.raises(GEError, match=re.escape(message)):
        run_graph(module, feeds)
    scalar = compile_module(lowered_module(module.body.block.first_op), vectorize=False)
    with pytest.raises(JITError, match=re.escape(message)):
        scalar(*feeds.values())
    with pytest.raises(GEError, match=f"node 'take': error: 'ge.{op}' op"):
        evaluate(module, feeds)
    feeds[1] = np.array(values(3), np.int64)
    assert np.isfinite(run_graph(module, feeds)[0]).all()


@pytest.mark.parametrize("op", ["arg_max", "arg_min"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint8", "int64"])
@pytest.mark.parametrize("last", [False, True])
def test_arg_max_and_min_lower_with_ties_and_special_values(op, dtype, last):
    """Odd sizes; ties (first or last index), NaN (the extreme wherever it
    is), ±inf, the dtype's own bounds; every axis, kept or dropped."""
    rng = np.random.default_rng(17)
    shape = (3, 17, 5)
    if dtype.startswith("float"):
        x_value = rng.standard_normal(shape).astype(dtype)
        x_value[0, 3, 1] = np.nan
        x_value[1, :, 2] = 1.0
        x_value[2, 5, :] = np.inf
        x_value[2, 6, :] = -np.inf
    else:
        info = np.iinfo(dtype)
        x_value = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        x_value[1, :, 2] = 7
        x_value[0, 4, :] = info.max
        x_value[0, 9, :] = info.min
    find = np.argmax if op == "arg_max" else np.argmin
    for axis in range(3):
        for keep in (False, True):
            b = GraphBuilder("g")
            x = b.data(list(shape), dtype)
            method = getattr(b, op)
            b.output(method(x, axis=axis, keep_dims=keep, select_last_index=last))
            module = b.build()
            check(module, {0: x_value})
            (got,) = run_graph(module, {0: x_value})
            if last:
                expected = shape[axis] - 1 - find(np.flip(x_value, axis), axis=axis)
            else:
                expected = find(x_value, axis=axis)
            if keep:
                expected = np.expand_dims(expected, axis)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "bool"])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("k", [None, -4, 0, 3, 40])
def test_trilu_lowers_with_a_run_time_offset(dtype, upper, k):
    """Odd sizes, a batch axis; `k` read at run time (0 when absent), past
    either edge too; NaN and -0.0 kept where the triangle keeps them."""
    rng = np.random.default_rng(20)
    shape = (2, 17, 33)
    x_value = (rng.standard_normal(shape) * 4).astype(dtype)
    if dtype.startswith("float"):
        x_value[0, 0, :2] = [np.nan, -0.0]
    b = GraphBuilder("g")
    operands = [b.data(list(shape), dtype)]
    feeds = {0: x_value}
    if k is not None:
        operands.append(b.data([], "int64"))
        feeds[1] = np.array(k, np.int64)
    b.output(b.trilu(*operands, upper=upper))
    module = b.build()
    check(module, feeds)
    (got,) = run_graph(module, feeds)
    expected = (np.triu if upper else np.tril)(x_value, k or 0)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "attrs",
    [
        {"mode": "linear", "antialias": True},
        {"mode": "cubic", "exclude_outside": True},
        {"mode": "nearest", "nearest_mode": "ceil"},
        {
            "mode": "linear",
            "coordinate_transformation_mode": "tf_crop_and_resize",
            "roi": [0.0, 0.0, 0.1, -0.2, 1.0, 1.0, 0.8, 1.1],
            "extrapolation_value": 3.0,
        },
    ],
    ids=["linear-antialias", "cubic-exclude", "nearest-ceil", "crop-extrapolate"],
)
def test_resize_on_nc1hwc0(dtype, attrs):
    """Resize keeps its input's layout: 17 channels in NC1HWC0 (padded), H
    7 -> 3 and W 5 -> 9, tap tables as constant globals."""

    def body(b, x):
        return b.resize(
            x, sizes=[1, 17, 3, 9], scales=[1.0, 1.0, 3 / 7, 9 / 5], **attrs
        )

    text = check(nc1hwc0_graph(dtype, (1, 17, 7, 5), body))
    assert "memref.global" in text and "memref.load" in text


@pytest.mark.parametrize("axis", [1, 2, -1])
def test_gather_from_a_blocked_layout_reads_a_row_major_copy(axis):
    """A gather from NC1HWC0 (17 channels, padded to 32) first copies its input
    into a row-major scratch buffer; indices include negatives and both ends."""
    size = (1, 17, 3, 5)[axis]

    b = GraphBuilder("g")
    x = to(b, b.data([1, 17, 3, 5], "float32", format="NCHW"), "NC1HWC0")
    b.output(b.gather(x, b.data([2, 2], "int32"), axis=axis))
    module = b.build()
    rng = np.random.default_rng(16)
    inputs = {
        0: rng.standard_normal((1, 17, 3, 5)).astype(np.float32),
        1: np.array([[0, -1], [size - 1, -size]], np.int32),
    }
    text = check(module, inputs)
    assert "memref.load" in text


def test_all_lowered_modules_verify_with_iree_opt():
    """Every loop module the tests above produced is valid upstream MLIR.

    Runs last; when run alone it lowers a few graphs itself.
    """
    if not LOWERED:
        test_conv2d_nc1hwc0_fractal_z("float16", *CONVOLUTIONS[0])
        test_pooling_on_nc1hwc0("float32", "avg_pool", *POOLS[2])
        test_matmul_on_fractal_nz("float32", True, False)
    verify_with_iree(list(LOWERED.values()))


# -- whole models (slow) --------------------------------------------------------

LIGHT_MODELS = [
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "squeezenet",
    "vgg19",
    "zfnet512",
]


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_model_through_pipeline_and_jit_matches_onnxruntime(name):
    """ONNX import, the format pipeline, lowering and the JIT vs onnxruntime."""
    import onnx
    import onnxruntime as ort
    from xdsl.context import Context

    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import randomize_weights
    from passes.format_pipeline import FormatPipelinePass

    path = Path(onnx.__file__).parent / f"backend/test/data/light/light_{name}.onnx"
    model = randomize_weights(onnx.load(path), seed=0)
    imported = import_onnx(model)
    FormatPipelinePass().apply(Context(), imported.module)
    graph = imported.module.body.block.first_op
    data = graph.inputs()[0]
    x = np.random.default_rng(0).standard_normal(data.output.type.get_shape())
    x = x.astype(np.float32)
    outputs = run_graph(imported.module, {0: x}, imported.weights)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, {imported.input_names[0]: x})
    assert compile_graph(graph).scalar_nests == []
    for out, ref in zip(outputs, expected, strict=True):
        assert np.abs(out - ref).max() <= 1e-3 * np.abs(ref).max()


# -- completeness ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_div_truncates_and_integer_pow_lowers(dtype):
    """ONNX integer Div truncates toward zero (also with mixed signs); integer
    Pow computes in float64 and truncates back, as the kernel does."""
    b = GraphBuilder("g")
    x = b.data([3, 17], dtype)
    y = b.data([3, 17], dtype)
    b.output(b.div(x, y), b.pow(x, b.data([3, 17], dtype)))
    rng = np.random.default_rng(16)
    numerators = rng.integers(-50, 50, (3, 17)).astype(dtype)
    denominators = rng.integers(1, 7, (3, 17)).astype(dtype)
    denominators[0] *= -1  # negative divisors too
    exponents = rng.integers(0, 4, (3, 17)).astype(dtype)
    text = check(b.build(), {0: numerators, 1: denominators, 2: exponents})
    assert "arith.divsi" in text and "math.powf" in text


@pytest.mark.parametrize("start", [0, 1, -1, 3])
def test_shape_and_size_lower_to_their_static_value(start):
    """`ge.shape`/`ge.size` of a static shape (odd dims) run on the JIT, their
    value copied from a constant table; an empty selection stores nothing."""
    b = GraphBuilder("g")
    x = b.data([3, 17, 5], "float32")
    b.output(b.op("ge.shape", x, start=start), b.op("ge.size", x))
    text = check(b.build())
    assert "memref.get_global" in text


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("position", [0, 2, -1, "range", "strided"])
@pytest.mark.parametrize(
    ("reduction", "taken"), [("none", 1), ("none", 3), ("add", 3), ("max", 3)]
)
def test_scatter_of_affine_constant_indices_is_affine(axis, position, reduction, taken):
    """Constant indices that are an affine function of their position (one
    position: torch's `select_scatter`, `state[:, i] = x`; a range or a
    strided range along the axis, negative ones too: slice assignments)
    store through affine maps: no data-dependent store, so the nest
    vectorises; with several updates per element the last one wins ("none")
    or they combine in order, as the reference's element-by-element
    scatter; special values pass through."""
    shape = [3, 17, 5]
    index_shape = [taken if d == axis % 3 else n for d, n in enumerate(shape)]
    along = np.arange(taken).reshape([-1 if d == axis % 3 else 1 for d in range(3)])
    stride = 2 if 2 * (taken - 1) < shape[axis] else 1
    table = {
        "range": along - taken,  # negative: counted from the end
        "strided": stride * along + shape[axis] - 1 - stride * (taken - 1),
    }.get(position, position)
    b = GraphBuilder("g")
    data = b.data(shape, "float32")
    updates = b.data(index_shape, "float32")
    values = np.broadcast_to(np.asarray(table, np.int64), index_shape)
    indices = b.const(np.ascontiguousarray(values), "int64")
    b.output(b.scatter_elements(data, indices, updates, axis=axis, reduction=reduction))
    rng = np.random.default_rng(17)
    values = rng.standard_normal(index_shape).astype(np.float32)
    values.reshape(-1)[:3] = [np.inf, -0.0, np.nan]
    inputs = {0: rng.standard_normal(shape).astype(np.float32), 1: values}
    text = check(b.build(), inputs)
    assert "memref.store" not in text and "memref.load" not in text, text


def test_scatter_of_constant_indices_off_an_affine_map_stays_data_dependent():
    b = GraphBuilder("g")
    data = b.data([4, 3], "float32")
    indices = b.const(np.array([[0, 1, 3]], np.int64), "int64")
    b.output(b.scatter_elements(data, indices, b.data([1, 3], "float32"), axis=0))
    assert "memref.store" in lower_graph(b.build().body.block.first_op)


@pytest.mark.parametrize(
    ("rows", "affine"),
    [
        ([[1], [2], [3], [4]], True),  # x[1:5] = v (BART's shifted tokens)
        ([[4, 0], [3, 2], [2, 4]], True),  # a strided diagonal, negative slope
        ([[-1], [-2]], True),  # counted from the end
        ([[0], [2], [1]], False),  # a permutation: not affine
        ([[1], [1]], False),  # one element written twice: order would matter
    ],
)
@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_nd_of_affine_constant_tuples_is_affine(rows, affine, reduction):
    """ScatterND index tuples whose entries are affine in the tuple's
    position and name distinct elements store through affine maps; the
    reference's results either way, 17 columns of special values."""
    depth = len(rows[0])
    shape = [5, 5, 17][:depth] + [17]
    b = GraphBuilder("g")
    data = b.data(shape, "float32")
    updates = b.data([len(rows), *shape[depth:]], "float32")
    indices = b.const(np.array(rows, np.int64), "int64")
    b.output(b.scatter_nd(data, indices, updates, reduction=reduction))
    rng = np.random.default_rng(18)
    values = rng.standard_normal((len(rows), *shape[depth:])).astype(np.float32)
    values.reshape(-1)[:3] = [np.inf, -0.0, np.nan]
    module = b.build()
    inputs = {0: rng.standard_normal(shape).astype(np.float32), 1: values}
    if affine:
        text = check(module, inputs)
        assert "memref.store" not in text and "memref.load" not in text, text
    else:
        assert "memref.store" in lower_graph(module.body.block.first_op)


def test_lowered_module_only_reads_the_graph():
    """`lowered_module` lowers the graph itself, not a copy of it: the
    graph's text is the same after, and no lowered op uses its values."""
    module = nc1hwc0_graph("float32", (1, 17, 4, 4), lambda b, x: b.relu(x))
    graph = module.body.block.first_op
    before = str(module)
    lowered = lowered_module(graph)
    assert str(module) == before
    inside = set(graph.walk())
    assert all(
        use.operation in inside
        for op in graph.walk()
        for result in op.results
        for use in result.uses
    )
    assert [op.name for op in lowered.body.block.ops] == ["func.func"]
