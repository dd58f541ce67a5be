"""ONNX op -> `ge` op conversion rules (the policy; `onnx_import` is the driver).

Each converter takes a `NodeContext` and returns the node's output values in
order. It raises `Unsupported` for a configuration the `ge` dialect cannot
express (the driver reports all of them at once) and `ValueError` for an
invalid node. Opset differences are handled here: attributes that became
inputs (Reshape shape, Slice starts/ends at 10, Pad pads and Clip min/max at
11, Squeeze/Unsqueeze axes, ReduceSum axes and Split sizes at 13, the other
reductions at 18), pre-13 Softmax semantics (coerce to 2-D at `axis`) and
pre-7 "legacy" broadcasting (`broadcast=1, axis=k`, per-channel PRelu).

Layout conventions: every windowed or per-channel op is emitted with
`data_format = "NCHW"` (they are the anchors of origin-format inference);
ONNX 2-D pads `[top, left, bottom, right]` become `ge` pads
`[top, bottom, left, right]`; strides/dilations get 4 entries `[1, 1, h, w]`.
1-D convolutions and pools run as 2-D ones over an inserted H axis of size 1;
per-channel ops on ranks other than 4 run on a `[N, C, -1, 1]` reshape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx

from ge_dialect.builder import tensor_type
from ge_dialect.dtypes import element_type
from ge_dialect.limits import over_budget, tensor_bytes
from ge_dialect.ops import broadcast_shapes
from ge_dialect.ops.windows import full_transposed_size
from ge_frontend.importing import (
    Unsupported,
    Value,
    check_indices,
    dtype_name_of,
    int_list,
    normalize_axis,
    registrar,
    same_padding,
    shape_of,
    split_padding,
)
from ge_frontend.onnx_context import NodeContext
from ge_frontend.onnx_control_flow import CONVERTERS as CONTROL_FLOW_CONVERTERS
from ge_frontend.onnx_deform_conv import CONVERTERS as DEFORM_CONV_CONVERTERS
from ge_frontend.onnx_detection import CONVERTERS as DETECTION_CONVERTERS
from ge_frontend.onnx_microsoft import CONVERTERS as MICROSOFT_CONVERTERS
from ge_frontend.onnx_ml import ML_CONVERTERS, ML_DOMAIN
from ge_frontend.onnx_quantize import CONVERTERS as QUANTIZE_CONVERTERS
from ge_frontend.onnx_recurrent import CONVERTERS as RECURRENT_CONVERTERS
from ge_frontend.onnx_sequences import CONVERTERS as SEQUENCE_CONVERTERS
from ge_frontend.onnx_shape_values import entries_of
from ge_frontend.onnx_text import TEXT_CONVERTERS
from ge_frontend.onnx_training import CONVERTERS as TRAINING_CONVERTERS
from ge_frontend.onnx_training import DOMAIN as TRAINING_DOMAIN

Converter = Callable[[NodeContext], Sequence[Value]]

CONVERTERS: dict[str, Converter] = {}
"""ONNX op type -> converter (`domain.OpType` outside the default domain)."""


converts = registrar(CONVERTERS)
"""`@converts("OpType", ...)` registers a converter."""


def _axes(axes: Sequence[int] | np.ndarray | None, rank: int) -> list[int]:
    return [] if axes is None else [normalize_axis(int(a), rank) for a in axes]


# ---------------------------------------------------------------------------
# Elementwise ops
# ---------------------------------------------------------------------------

UNARY = {
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Softplus": "softplus",
    "Neg": "neg",
    "Abs": "abs",
    "Exp": "exp",
    "Sqrt": "sqrt",
    "Log": "log",
    "Reciprocal": "reciprocal",
    "HardSwish": "hard_swish",
    "Not": "logical_not",
    "BitwiseNot": "bitwise_not",
    "IsNaN": "is_nan",
    "Erf": "erf",
    "Sin": "sin",
    "Cos": "cos",
    "Tan": "tan",
    "Asin": "asin",
    "Acos": "acos",
    "Atan": "atan",
    "Sinh": "sinh",
    "Cosh": "cosh",
    "Asinh": "asinh",
    "Acosh": "acosh",
    "Atanh": "atanh",
    "Ceil": "ceil",
    "Floor": "floor",
    "Round": "round",
    "Sign": "sign",
    "Mish": "mish",
}

UNARY_WITH_ATTRS = {
    "LeakyRelu": ("leaky_relu", ("alpha",)),
    "Elu": ("elu", ("alpha",)),
    "Selu": ("selu", ("alpha", "gamma")),
    "Celu": ("celu", ("alpha",)),
    "ThresholdedRelu": ("thresholded_relu", ("alpha",)),
    "Swish": ("swish", ("alpha",)),
    "Shrink": ("shrink", ("bias", "lambd")),
}
"""ONNX op -> (ge op, its float attributes). ONNX's defaults are the ge ops'
defaults, so an attribute the node leaves out is left out."""

BINARY = {
    "Add": "add",
    "Sub": "sub",
    "Mul": "mul",
    "Div": "div",
    "Pow": "pow",
    "Equal": "equal",
    "Less": "less",
    "LessOrEqual": "less_equal",
    "Greater": "greater",
    "GreaterOrEqual": "greater_equal",
    "And": "logical_and",
    "Or": "logical_or",
    "Xor": "logical_xor",
    "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or",
    "BitwiseXor": "bitwise_xor",
}

PAIRWISE_VARIADIC = {"Max": "maximum", "Min": "minimum"}


@converts(*UNARY)
def convert_unary(ctx: NodeContext) -> list[Value]:
    return [ctx.op(UNARY[ctx.node.op_type], ctx.input(0))]


@converts(*UNARY_WITH_ATTRS)
def convert_unary_with_attrs(ctx: NodeContext) -> list[Value]:
    op_name, names = UNARY_WITH_ATTRS[ctx.node.op_type]
    attrs = {name: float(ctx.attr(name)) for name in names if ctx.has_attr(name)}
    return [ctx.op(op_name, ctx.input(0), **attrs)]


def _legacy_broadcast(ctx: NodeContext, value: Value) -> Value:
    """Opset < 7 `broadcast=1, axis=k`: align the second operand at axis k."""
    if ctx.opset >= 7 or not ctx.attr("broadcast", 0) or not ctx.has_attr("axis"):
        return value
    rank = ctx.rank(0)
    trailing = rank - normalize_axis(ctx.attr("axis"), rank) - len(shape_of(value))
    if trailing <= 0:
        return value
    first = len(shape_of(value))
    axes = list(range(first, first + trailing))
    return ctx.op("unsqueeze", value, axes=axes, suffix="broadcast")


@converts(*BINARY)
def convert_binary(ctx: NodeContext) -> list[Value]:
    rhs = _legacy_broadcast(ctx, ctx.input(1))
    if ctx.node.op_type == "Pow" and ctx.dtype(1) != ctx.dtype(0):
        rhs = ctx.op("cast", rhs, dst_type=ctx.dtype(0), suffix="exponent")
    return [ctx.op(BINARY[ctx.node.op_type], ctx.input(0), rhs)]


@converts("BitShift")
def convert_bit_shift(ctx: NodeContext) -> list[Value]:
    direction = ctx.attr("direction")
    if direction not in ("LEFT", "RIGHT"):
        raise ValueError(f"direction must be LEFT or RIGHT, got {direction!r}")
    op_name = "left_shift" if direction == "LEFT" else "right_shift"
    return [ctx.op(op_name, ctx.input(0), ctx.input(1))]


@converts("IsInf")
def convert_is_inf(ctx: NodeContext) -> list[Value]:
    return [
        ctx.op(
            "is_inf",
            ctx.input(0),
            detect_positive=int(ctx.attr("detect_positive", 1)),
            detect_negative=int(ctx.attr("detect_negative", 1)),
        )
    ]


@converts("Mod")
def convert_mod(ctx: NodeContext) -> list[Value]:
    fmod = int(ctx.attr("fmod", 0))
    return [ctx.op("mod", ctx.input(0), ctx.input(1), fmod=fmod)]


@converts("Gelu")
def convert_gelu(ctx: NodeContext) -> list[Value]:
    approximate = ctx.attr("approximate", "none")
    return [ctx.op("gelu", ctx.input(0), approximate=approximate)]


@converts("Where")
def convert_where(ctx: NodeContext) -> list[Value]:
    return [ctx.op("select", ctx.input(0), ctx.input(1), ctx.input(2))]


@converts("PRelu")
def convert_prelu(ctx: NodeContext) -> list[Value]:
    """Opset < 7 applies a 1-D slope per channel (axis 1), later ones broadcast."""
    slope, rank = ctx.input(1), ctx.rank(0)
    slope_shape = shape_of(slope)
    if ctx.opset < 7 and len(slope_shape) == 1 and slope_shape[0] != 1 and rank > 2:
        axes = list(range(1, rank - 1))
        slope = ctx.op("unsqueeze", slope, axes=axes, suffix="per_channel")
    return [ctx.op("prelu", ctx.input(0), slope)]


def _present_inputs(ctx: NodeContext) -> list[Value]:
    return [value for value in ctx.inputs if value is not None]


@converts("Sum", "Mean")
def convert_sum(ctx: NodeContext) -> list[Value]:
    values = _present_inputs(ctx)
    mean = ctx.node.op_type == "Mean"
    suffix = "sum" if mean else None
    if len(values) == 1:
        total = ctx.op("identity", values[0], suffix=suffix)
    else:
        total = ctx.op("add_n", values, suffix=suffix)
    if not mean:
        return [total]
    return [ctx.op("div", total, ctx.array(len(values)))]


@converts(*PAIRWISE_VARIADIC)
def convert_pairwise_variadic(ctx: NodeContext) -> list[Value]:
    op_name = PAIRWISE_VARIADIC[ctx.node.op_type]
    first, *rest = _present_inputs(ctx)
    if not rest:
        return [ctx.op("identity", first)]
    result = first
    for index, value in enumerate(rest):
        suffix = None if index == len(rest) - 1 else str(index)
        result = ctx.op(op_name, result, value, suffix=suffix)
    return [result]


@converts("Clip")
def convert_clip(ctx: NodeContext) -> list[Value]:
    """Bounds from attributes (before opset 11) or inputs, known at import
    or at run time; a bound computed at run time (`max(x) - 80` dB) is read
    as a tensor (`clip_by_run_time_bounds`)."""
    if ctx.opset < 11:
        bounds = {"min": ctx.attr("min"), "max": ctx.attr("max")}
        return [ctx.parameterized_op("clip", [ctx.input(0)], {}, **bounds)]
    if ctx.is_run_time(1) or ctx.is_run_time(2):
        if (clipped := clip_by_run_time_bounds(ctx)) is not None:
            return [clipped]
    return [ctx.parameterized_op("clip", [ctx.input(0)], {"min": 1, "max": 2})]


def clip_by_run_time_bounds(ctx: NodeContext) -> Value | None:
    """min(max(x, min), max) as `ge.maximum`/`ge.minimum` of x and the
    one-element bounds as scalar tensors (None: a bound's element count is
    not known to be 1; the host checks it at run time). The bound's value
    is data the kernel reads, so the graph keeps static shapes and sinks
    whole, one compiled kernel serving every bound (a bound bound into a
    `ge.clip` would host-schedule the op and compile it once per value)."""
    bounds = []
    for index, op_name in ((1, "maximum"), (2, "minimum")):
        bound = ctx.optional_input(index)
        if bound is None:
            continue
        shape = np.shape(bound) if isinstance(bound, np.ndarray) else ctx.shape(index)
        if 0 in shape:
            continue  # an empty bound is no bound
        if -1 in shape or math.prod(shape) != 1:
            return None
        if shape:
            bound = ctx.op("reshape", bound, shape=[], suffix=f"{op_name}_bound")
        bounds.append((op_name, bound))
    result = ctx.input(0)
    for number, (op_name, bound) in enumerate(bounds, 1):
        last = number == len(bounds)  # the node's own name
        result = ctx.op(op_name, result, bound, suffix=None if last else op_name)
    return result


@converts("HardSigmoid")
def convert_hard_sigmoid(ctx: NodeContext) -> list[Value]:
    """max(0, min(1, alpha * x + beta)) as mul, add and clip."""
    alpha, beta = ctx.attr("alpha", 0.2), ctx.attr("beta", 0.5)
    scaled = ctx.op("mul", ctx.input(0), ctx.array(alpha), suffix="scale")
    shifted = ctx.op("add", scaled, ctx.array(beta), suffix="shift")
    return [ctx.op("clip", shifted, min=0.0, max=1.0)]


@converts("Softsign")
def convert_softsign(ctx: NodeContext) -> list[Value]:
    """x / (1 + |x|)."""
    magnitude = ctx.op("abs", ctx.input(0), suffix="abs")
    denominator = ctx.op("add", magnitude, ctx.array(1), suffix="denominator")
    return [ctx.op("div", ctx.input(0), denominator)]


def _target_dtype(ctx: NodeContext) -> str:
    """The dtype the `to` attribute names (Unsupported if `ge` has none)."""
    to = ctx.attr("to")
    try:
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(to)).name
        element_type(dtype)
    except (KeyError, TypeError, ValueError):
        raise Unsupported(f"to {onnx.TensorProto.DataType.Name(to)}") from None
    return dtype


@converts("Cast")
def convert_cast(ctx: NodeContext) -> list[Value]:
    dtype = _target_dtype(ctx)
    return [ctx.op("cast", ctx.input(0), dst_type=dtype, **cast_rounding(ctx))]


@converts("BitCast")
def convert_bitcast(ctx: NodeContext) -> list[Value]:
    """The bits of each element as `to` (of the same width)."""
    return [ctx.op("bitcast", ctx.input(0), dst_type=_target_dtype(ctx))]


@converts("CastLike")
def convert_cast_like(ctx: NodeContext) -> list[Value]:
    """Cast to the dtype of input 1 (only its dtype is read)."""
    return [ctx.op("cast", ctx.input(0), dst_type=ctx.dtype(1), **cast_rounding(ctx))]


def cast_rounding(ctx: NodeContext) -> dict[str, Any]:
    """Cast's and CastLike's `saturate` (float8) and `round_mode` (float8_e8m0fnu)."""
    return {
        "saturate": bool(ctx.attr("saturate", 1)),
        "round_mode": ctx.attr("round_mode", "up"),
    }


@converts("Dropout")
def convert_dropout(ctx: NodeContext) -> list[Value]:
    """Inference or a ratio of 0: the identity, and a mask that keeps
    everything (all true; before opset 10 it has x's dtype, all ones). A
    run-time `training_mode` (or a training one with a run-time ratio)
    becomes `ge.dropout`, which computes those cases and stops the run
    where the mask would be random; a known random mask is refused."""
    if ctx.opset >= 12 and (ctx.is_run_time(2) or ctx.is_run_time(1)):
        training = ctx.optional_input(2)
        if training is None or not ctx.is_run_time(2) and not bool(training):
            return _dropout_identity(ctx)
        ratio = ctx.optional_input(1)
        y, mask = ctx.op(
            "dropout",
            ctx.input(0),
            ctx.array(0.5) if ratio is None else ratio,
            training,
        )
        return [y, mask][: ctx.num_outputs]
    training = ctx.constant(2, "training_mode") if ctx.opset >= 12 else None
    if training is not None and bool(training):
        ratio = ctx.constant(1, "ratio")
        value = 0.5 if ratio is None else float(ratio.reshape(-1)[0])
        if value != 0:
            raise Unsupported(f"in training mode with ratio {value:g} (a random mask)")
    return _dropout_identity(ctx)


def _dropout_identity(ctx: NodeContext) -> list[Value]:
    """Dropout that drops nothing: x and an all-true mask."""
    outputs = [ctx.op("identity", ctx.input(0))]
    if ctx.num_outputs > 1 and ctx.outputs_used[1]:
        shape = ctx.static_shape(0)
        mask = np.ones(shape, bool if ctx.opset >= 10 else ctx.dtype(0))
        outputs.append(mask)
    return outputs


# ---------------------------------------------------------------------------
# Convolution and pooling
# ---------------------------------------------------------------------------

SAME_PADDING = ("SAME_UPPER", "SAME_LOWER")


def _window_input(ctx: NodeContext) -> tuple[Value, bool]:
    """Input 0 as a 4-D NCHW value; 1-D inputs get an H axis (returns lifted)."""
    rank = ctx.rank(0)
    if rank == 4:
        return ctx.input(0), False
    if rank == 3:
        return ctx.op("unsqueeze", ctx.input(0), axes=[2], suffix="to_2d"), True
    raise Unsupported(f"with {rank - 2}-D spatial input")


def _finish_window(ctx: NodeContext, result: Value, lifted: bool) -> Value:
    return ctx.op("squeeze", result, axes=[2], suffix="to_1d") if lifted else result


def _hw(values: Sequence[int], lifted: bool, fill: int) -> list[int]:
    """Per-spatial-axis values as [h, w] (a lifted 1-D op has h = fill)."""
    return [fill, *int_list(values)] if lifted else int_list(values)


def _ge_pads(pads: Sequence[int], lifted: bool) -> list[int]:
    """ONNX [begin_h, begin_w, end_h, end_w] (or 1-D [b, e]) -> ge [t, b, l, r]."""
    if lifted:
        return [0, 0, int(pads[0]), int(pads[1])]
    top, left, bottom, right = int_list(pads)
    return [top, bottom, left, right]


def _window_pads(
    ctx: NodeContext,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """ONNX-order pads [begins..., ends...], computing `auto_pad`."""
    count = len(kernel)
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    if auto_pad == "NOTSET":
        return ctx.per_axis("pads", count, 0)
    if auto_pad == "VALID":
        return [0] * 2 * count
    if auto_pad not in SAME_PADDING:
        raise ValueError(f"unknown auto_pad '{auto_pad}'")
    sizes = ctx.shape(0)[2:]
    if -1 in sizes:
        raise Unsupported(f"with auto_pad {auto_pad} on dynamic spatial dims")
    begins, ends = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
        begin, end = same_padding(size, k, s, d, upper=auto_pad == "SAME_UPPER")
        begins.append(begin)
        ends.append(end)
    return begins + ends


def _kernel_shape(ctx: NodeContext, weight: Value) -> list[int]:
    """The spatial dims of a convolution's weight; a `kernel_shape`
    attribute must agree with them."""
    spatial = list(shape_of(weight)[2:])
    kernel = ctx.attr("kernel_shape")
    if kernel is None:
        return spatial
    if len(kernel) != len(spatial) or any(
        -1 not in (k, w) and k != w for k, w in zip(kernel, spatial, strict=False)
    ):
        raise ValueError(
            f"kernel_shape {list(kernel)} contradicts the weight's spatial dims "
            f"{spatial}"
        )
    return [w if w != -1 else k for k, w in zip(kernel, spatial, strict=True)]


def _conv_3d(
    ctx: NodeContext,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> Value:
    """A 3-D convolution: `ge.conv3d` (NCDHW; ONNX's pads [d, h, w begins,
    d, h, w ends] become GE's [front, back, top, bottom, left, right])."""
    return ctx.op(
        "conv3d",
        ctx.input(0),
        ctx.input(1),
        ctx.optional_input(2),
        strides=[1, 1, *strides],
        pads=[pads[0], pads[3], pads[1], pads[4], pads[2], pads[5]],
        dilations=[1, 1, *dilations],
        groups=ctx.attr("group", 1),
        data_format="NCDHW",
    )


@converts("Conv")
def convert_conv(ctx: NodeContext) -> list[Value]:
    """Conv with 1 (lifted to 2), 2 or 3 spatial axes (`ge.conv3d`)."""
    weight = ctx.input(1)
    count = ctx.rank(0) - 2
    kernel = _kernel_shape(ctx, weight)
    strides = ctx.per_axis("strides", count, 1)
    dilations = ctx.per_axis("dilations", count, 1)
    pads = _window_pads(ctx, kernel, strides, dilations)
    if count == 3:
        return [_conv_3d(ctx, int_list(strides), int_list(dilations), pads)]
    x, lifted = _window_input(ctx)
    if lifted:
        weight = ctx.op("unsqueeze", weight, axes=[2], suffix="filter_to_2d")
    y = ctx.op(
        "conv2d",
        x,
        weight,
        ctx.optional_input(2),
        strides=[1, 1, *_hw(strides, lifted, 1)],
        pads=_ge_pads(pads, lifted),
        dilations=[1, 1, *_hw(dilations, lifted, 1)],
        groups=ctx.attr("group", 1),
        data_format="NCHW",
    )
    return [_finish_window(ctx, y, lifted)]


def _conv_transpose_geometry(
    ctx: NodeContext,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> tuple[list[int], list[int]]:
    """ONNX-order pads and output padding of ConvTranspose.

    With `output_shape` or SAME padding the pads follow from the wanted output
    size as the ONNX spec says. Beyond the full output size, as onnxruntime
    does: an explicit `output_shape` adds output padding at the end (less
    than one stride), SAME padding keeps the full size.
    """
    count = len(kernel)
    output_padding = ctx.per_axis("output_padding", count, 0)
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    output_shape = ctx.attr("output_shape")
    if output_shape is None and auto_pad not in SAME_PADDING:
        return _window_pads(ctx, kernel, strides, dilations), output_padding
    sizes = ctx.shape(0)[2:]
    if -1 in sizes:
        raise Unsupported("with output_shape or SAME padding on dynamic spatial dims")
    wanted = (
        int_list(output_shape[-count:])
        if output_shape is not None
        else [size * s for size, s in zip(sizes, strides, strict=True)]
    )
    begins, ends, extras = [], [], []
    for size, k, s, d, extra, out in zip(
        sizes, kernel, strides, dilations, output_padding, wanted, strict=True
    ):
        total = full_transposed_size(size, k, s, d) + extra - out
        if output_shape is not None and total < 0:
            if extra - total >= s:
                raise ValueError(f"output_shape {int_list(output_shape)} is too large")
            extra -= total
        begin, end = split_padding(max(total, 0), upper=auto_pad == "SAME_UPPER")
        begins.append(begin)
        ends.append(end)
        extras.append(extra)
    return begins + ends, extras


def _conv_transpose_3d(
    ctx: NodeContext,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
) -> Value:
    """A 3-D transposed convolution: `ge.conv3d_transpose` (NCDHW; ONNX's
    pads [d, h, w begins, d, h, w ends] become GE's [front, back, top,
    bottom, left, right])."""
    return ctx.op(
        "conv3d_transpose",
        ctx.input(0),
        ctx.input(1),
        ctx.optional_input(2),
        strides=[1, 1, *strides],
        pads=[pads[0], pads[3], pads[1], pads[4], pads[2], pads[5]],
        dilations=[1, 1, *dilations],
        groups=ctx.attr("group", 1),
        output_padding=list(output_padding),
        data_format="NCDHW",
    )


@converts("ConvTranspose")
def convert_conv_transpose(ctx: NodeContext) -> list[Value]:
    """ConvTranspose with 1 (lifted to 2), 2 or 3 spatial axes
    (`ge.conv3d_transpose`)."""
    weight = ctx.input(1)
    count = ctx.rank(0) - 2
    kernel = _kernel_shape(ctx, weight)
    strides = ctx.per_axis("strides", count, 1)
    dilations = ctx.per_axis("dilations", count, 1)
    pads, output_padding = _conv_transpose_geometry(ctx, kernel, strides, dilations)
    if count == 3:
        return [
            _conv_transpose_3d(
                ctx,
                int_list(strides),
                int_list(dilations),
                pads,
                output_padding,
            )
        ]
    x, lifted = _window_input(ctx)
    if lifted:
        weight = ctx.op("unsqueeze", weight, axes=[2], suffix="filter_to_2d")
    y = ctx.op(
        "conv2d_transpose",
        x,
        weight,
        ctx.optional_input(2),
        strides=[1, 1, *_hw(strides, lifted, 1)],
        pads=_ge_pads(pads, lifted),
        dilations=[1, 1, *_hw(dilations, lifted, 1)],
        groups=ctx.attr("group", 1),
        output_padding=_hw(output_padding, lifted, 0),
        data_format="NCHW",
    )
    return [_finish_window(ctx, y, lifted)]


@converts("Col2Im")
def convert_col2im(ctx: NodeContext) -> list[Value]:
    """Blocks [N, C * prod(block), L] summed back into an image [N, C,
    *image_shape] (`ge.col2im`); `image_shape` and `block_shape` known at
    import or at run time."""
    return [
        ctx.parameterized_op(
            "col2im",
            [ctx.input(0)],
            {"image_shape": 1, "block_shape": 2},
            strides=ctx.attr("strides"),
            dilations=ctx.attr("dilations"),
            pads=ctx.attr("pads"),
        )
    ]


POOLS = {"MaxPool": "max_pool", "AveragePool": "avg_pool", "LpPool": "lp_pool"}

PoolWindow = tuple[int, int, int, int, int]
"""One pooled axis: (kernel, stride, dilation, pad begin, pad end)."""

UNPOOLED: PoolWindow = (1, 1, 1, 0, 0)

POOLS_3D = {"MaxPool": "max_pool3d", "AveragePool": "avg_pool3d"}
"""The pools GE has a 3-D op for (MaxPool3D, AvgPool3D); LpPool has none."""


def _pool_2d(
    ctx: NodeContext,
    op_name: str,
    x: Value,
    h: PoolWindow,
    w: PoolWindow,
    attrs: dict[str, object],
    suffix: str | None = None,
) -> Value:
    """`ge.<op_name>` over H and W of the NCHW value `x`."""
    return ctx.op(
        op_name,
        x,
        ksize=[1, 1, h[0], w[0]],
        strides=[1, 1, h[1], w[1]],
        dilations=[1, 1, h[2], w[2]],
        pads=[h[3], h[4], w[3], w[4]],
        suffix=suffix,
        **attrs,
    )


def _pool_3d(
    ctx: NodeContext, op_name: str, axes: Sequence[PoolWindow], attrs: dict
) -> Value:
    """`ge.<op_name>` (NCDHW; ONNX's per-axis windows become GE's 5-value
    ksize, strides and dilations and 6 pads [front, back, top, bottom,
    left, right])."""
    return ctx.op(
        op_name,
        ctx.input(0),
        ksize=[1, 1, *(axis[0] for axis in axes)],
        strides=[1, 1, *(axis[1] for axis in axes)],
        dilations=[1, 1, *(axis[2] for axis in axes)],
        pads=[pad for axis in axes for pad in axis[3:]],
        **{**attrs, "data_format": "NCDHW"},
    )


def _separable_pool(
    ctx: NodeContext, op_name: str, axes: Sequence[PoolWindow], attrs: dict
) -> Value:
    """An N-D pool (N >= 3) as 2-D ones: max, average and Lp pooling are
    separable (a window is a product of per-axis windows; an average's
    divisor is a product of per-axis counts), so the last two axes pool on
    [N, C * D1 * ..., H, W] and each leading axis i then pools alone as H of
    [N, C * D1 * ... * D(i-1), Di, (rest)]."""
    _, channels, *sizes = ctx.shape(0)
    if -1 in (channels, *sizes):
        raise Unsupported(f"with {len(sizes)}-D spatial input of dynamic size")
    folded = [0, channels * math.prod(sizes[:-2]), *sizes[-2:]]
    x = ctx.op("reshape", ctx.input(0), shape=folded, suffix="fold_leading_axes")
    x = _pool_2d(ctx, op_name, x, axes[-2], axes[-1], attrs, suffix="pool_hw")
    sizes[-2:] = shape_of(x)[2:]
    for axis in reversed(range(len(sizes) - 2)):
        view = [
            0,
            channels * math.prod(sizes[:axis]),
            sizes[axis],
            math.prod(sizes[axis + 1 :]),
        ]
        x = ctx.op("reshape", x, shape=view, suffix=f"fold_axis_{axis}")
        x = _pool_2d(ctx, op_name, x, axes[axis], UNPOOLED, attrs, f"pool_{axis}")
        sizes[axis] = shape_of(x)[2]
    return ctx.op("reshape", x, shape=[0, channels, *sizes])


@converts(*POOLS)
def convert_pool(ctx: NodeContext) -> list[Value]:
    """MaxPool, AveragePool and LpPool with any number of spatial axes: 1-D
    lifted to 2-D, 3-D max and average pools as GE's 3-D ones, other N-D
    (N >= 3) pools as separable 2-D pools."""
    op_type = ctx.node.op_type
    with_indices = op_type == "MaxPool" and ctx.num_outputs > 1 and ctx.outputs_used[1]
    kernel = ctx.attr("kernel_shape")
    if kernel is None:
        raise ValueError("attribute 'kernel_shape' is missing")
    kernel = int_list(kernel)
    count = len(kernel)
    if count < 1 or ctx.rank(0) != count + 2:
        raise ValueError(
            f"kernel_shape {kernel} does not fit an input of rank {ctx.rank(0)}"
        )
    strides = ctx.per_axis("strides", count, 1)
    dilations = ctx.per_axis("dilations", count, 1)
    pads = _window_pads(ctx, kernel, strides, dilations)
    axes = list(
        zip(kernel, strides, dilations, pads[:count], pads[count:], strict=True)
    )
    attrs: dict[str, object] = {
        "ceil_mode": bool(ctx.attr("ceil_mode", 0)),
        "data_format": "NCHW",
    }
    if op_type == "AveragePool":
        attrs["count_include_pad"] = bool(ctx.attr("count_include_pad", 0))
    if op_type == "LpPool":
        attrs["p"] = float(ctx.attr("p", 2))
    if with_indices:
        if count > 2:
            raise Unsupported(f"with its Indices output on {count}-D spatial input")
        attrs["storage_order"] = int(ctx.attr("storage_order", 0))
    elif count == 3 and op_type in POOLS_3D:
        return [_pool_3d(ctx, POOLS_3D[op_type], axes, attrs)]
    elif count > 2:
        return [_separable_pool(ctx, POOLS[op_type], axes, attrs)]
    x, lifted = _window_input(ctx)
    h, w = (UNPOOLED, axes[0]) if lifted else axes
    if not with_indices:
        return [
            _finish_window(ctx, _pool_2d(ctx, POOLS[op_type], x, h, w, attrs), lifted)
        ]
    y, indices = _pool_2d(ctx, "max_pool_with_argmax", x, h, w, attrs)
    return [_finish_window(ctx, y, lifted), _finish_window(ctx, indices, lifted)]


@converts("MaxUnpool")
def convert_max_unpool(ctx: NodeContext) -> list[Value]:
    """The output shape is the `output_shape` input when given, else each
    spatial size `(n - 1) * stride - pads + kernel`."""
    kernel = ctx.attr("kernel_shape")
    if kernel is None:
        raise ValueError("attribute 'kernel_shape' is missing")
    count = len(kernel)
    given = ctx.constant(2, "output_shape")
    if given is not None:
        shape = int_list(given)
    else:
        n, c, *sizes = ctx.static_shape(0)
        strides = ctx.per_axis("strides", count, 1)
        pads = ctx.per_axis("pads", count, 0)
        shape = [n, c] + [
            (size - 1) * s - pads[i] - pads[count + i] + k
            for i, (size, s, k) in enumerate(zip(sizes, strides, kernel, strict=True))
        ]
    return [ctx.op("max_unpool", ctx.input(0), ctx.input(1), output_shape=shape)]


# ---------------------------------------------------------------------------
# Per-channel ops (any rank >= 2 through a [N, C, -1, 1] view)
# ---------------------------------------------------------------------------


def _as_nchw(ctx: NodeContext) -> Value:
    """Input 0 as 4-D: itself, or reshaped to [N, C, rest, 1]."""
    rank = ctx.rank(0)
    if rank == 4:
        return ctx.input(0)
    if rank < 2:
        raise ValueError(f"needs an input of rank >= 2, got rank {rank}")
    return ctx.op("reshape", ctx.input(0), shape=[0, 0, -1, 1], suffix="to_4d")


def _from_nchw(ctx: NodeContext, result: Value, shape: Sequence[int]) -> Value:
    """Undo `_as_nchw` on a result of the given shape."""
    if len(shape) == 4:
        return result
    target = [0, 0, *shape[2:]]
    if target.count(-1) > 1:
        raise Unsupported("with several dynamic spatial dims")
    return ctx.op("reshape", result, shape=target, suffix="from_4d")


@converts("BatchNormalization")
def convert_batch_norm(ctx: NodeContext) -> list[Value]:
    """Inference: `ge.batch_norm` with the given mean and variance. Training
    mode (opset 14's `training_mode`): the batch's statistics normalise
    (`_batch_statistics`) and the running mean and variance are updated."""
    if ctx.opset < 9 and ctx.attr("spatial", 1) == 0:
        raise Unsupported("with spatial=0")
    training = ctx.opset >= 14 and bool(ctx.attr("training_mode", 0))
    if not training and any(ctx.outputs_used[1:]):
        raise Unsupported("in training mode before opset 14")
    x = _as_nchw(ctx)
    mean, var = ctx.input(3), ctx.input(4)
    if training:
        mean, var = _batch_statistics(ctx, x)
    y = ctx.op(
        "batch_norm",
        x,
        ctx.input(1),
        ctx.input(2),
        mean,
        var,
        epsilon=float(ctx.attr("epsilon", 1e-5)),
        data_format="NCHW",
    )
    outputs = [_from_nchw(ctx, y, ctx.shape(0))]
    if training:
        momentum = ctx.array(float(ctx.attr("momentum", 0.9)))
        keep = ctx.array(1 - float(ctx.attr("momentum", 0.9)))
        for running, batch in ((ctx.input(3), mean), (ctx.input(4), var)):
            outputs.append(
                ctx.op(
                    "add",
                    ctx.op("mul", running, momentum),
                    ctx.op("mul", batch, keep),
                )
            )
    return outputs


def _batch_statistics(ctx: NodeContext, x: Value) -> tuple[Value, Value]:
    """Per channel of an NCHW `x`: the mean and the (biased) variance over
    N, H and W, the mean of the squared deviations (NumPy's `var`)."""
    axes = {"axes": [0, 2, 3]}
    mean = ctx.op("reduce_mean", x, keep_dims=True, suffix="batch_mean", **axes)
    deviation = ctx.op("sub", x, mean, suffix="deviation")
    squares = ctx.op("mul", deviation, deviation, suffix="squares")
    var = ctx.op("reduce_mean", squares, keep_dims=False, suffix="batch_var", **axes)
    flat = ctx.op("reshape", mean, shape=[-1], suffix="batch_mean_flat")
    return flat, var


@converts("InstanceNormalization")
def convert_instance_norm(ctx: NodeContext) -> list[Value]:
    y = ctx.op(
        "instance_norm",
        _as_nchw(ctx),
        ctx.input(1),
        ctx.input(2),
        epsilon=float(ctx.attr("epsilon", 1e-5)),
        data_format="NCHW",
    )
    return [_from_nchw(ctx, y, ctx.shape(0))]


@converts("LRN")
def convert_lrn(ctx: NodeContext) -> list[Value]:
    y = ctx.op(
        "lrn",
        _as_nchw(ctx),
        size=ctx.attr("size"),
        alpha=float(ctx.attr("alpha", 1e-4)),
        beta=float(ctx.attr("beta", 0.75)),
        bias=float(ctx.attr("bias", 1.0)),
        data_format="NCHW",
    )
    return [_from_nchw(ctx, y, ctx.shape(0))]


GLOBAL_POOLS = {
    "GlobalAveragePool": "global_avg_pool",
    "GlobalMaxPool": "global_max_pool",
    "GlobalLpPool": "global_lp_pool",
}


@converts(*GLOBAL_POOLS)
def convert_global_pool(ctx: NodeContext) -> list[Value]:
    attrs = {"p": float(ctx.attr("p", 2))} if ctx.node.op_type == "GlobalLpPool" else {}
    y = ctx.op(
        GLOBAL_POOLS[ctx.node.op_type], _as_nchw(ctx), data_format="NCHW", **attrs
    )
    return [_from_nchw(ctx, y, [1] * ctx.rank(0))]


@converts("MelWeightMatrix")
def convert_mel_weight_matrix(ctx: NodeContext) -> list[Value]:
    """`ge.mel_weight_matrix` of the five scalars; its shape is known from
    their values (at import when they are constants: it folds)."""
    dtype = onnx.helper.tensor_dtype_to_np_dtype(ctx.attr("output_datatype", 1))
    inputs = [ctx.input(k) for k in range(5)]
    return [ctx.op("mel_weight_matrix", *inputs, dst_type=np.dtype(dtype).name)]


@converts("STFT")
def convert_stft(ctx: NodeContext) -> list[Value]:
    """`ge.stft` of the signal (and window, when given); `frame_step` and
    `frame_length` known at import or at run time."""
    window = ctx.optional_input(2)
    inputs = [ctx.input(0)] if window is None else [ctx.input(0), window]
    return [
        ctx.parameterized_op(
            "stft",
            inputs,
            {"frame_step": 1, "frame_length": 3},
            onesided=bool(ctx.attr("onesided", 1)),
        )
    ]


@converts("DFT")
def convert_dft(ctx: NodeContext) -> list[Value]:
    """The axis is an attribute before opset 20 (default 1), then an
    optional input; it and `dft_length` may be known only at run time
    (`DFTOp.bind_parameters` gives the defaults)."""
    options = {
        "inverse": bool(ctx.attr("inverse", 0)),
        "onesided": bool(ctx.attr("onesided", 0)),
    }
    parameters = {"dft_length": 1}
    if ctx.opset >= 20:
        parameters["axis"] = 2
    else:
        options["axis"] = int(ctx.attr("axis", 1))
    return [ctx.parameterized_op("dft", [ctx.input(0)], parameters, **options)]


@converts("RoiAlign")
def convert_roi_align(ctx: NodeContext) -> list[Value]:
    """Before opset 16 RoiAlign had no coordinate_transformation_mode and
    behaved as `output_half_pixel` does."""
    default = "half_pixel" if ctx.opset >= 16 else "output_half_pixel"
    attrs = {
        "mode": ctx.attr("mode", "avg"),
        "output_height": ctx.attr("output_height", 1),
        "output_width": ctx.attr("output_width", 1),
        "sampling_ratio": ctx.attr("sampling_ratio", 0),
        "spatial_scale": float(ctx.attr("spatial_scale", 1.0)),
        "coordinate_transformation_mode": ctx.attr(
            "coordinate_transformation_mode", default
        ),
    }
    inputs = (ctx.input(i) for i in range(3))
    return [ctx.op("roi_align", *inputs, **attrs)]


@converts("LpNormalization")
def convert_lp_normalization(ctx: NodeContext) -> list[Value]:
    axis = normalize_axis(ctx.attr("axis", -1), ctx.rank(0))
    return [ctx.op("lp_norm", ctx.input(0), axis=axis, p=ctx.attr("p", 2))]


GRID_SAMPLE_MODES = {"bilinear": "linear", "bicubic": "cubic"}
"""GridSample's opset-16 mode names -> the opset-20 ones `ge.grid_sample` uses."""


@converts("GridSample")
def convert_grid_sample(ctx: NodeContext) -> list[Value]:
    default = "bilinear" if ctx.opset < 20 else "linear"
    mode = ctx.attr("mode", default)
    return [
        ctx.op(
            "grid_sample",
            ctx.input(0),
            ctx.input(1),
            mode=GRID_SAMPLE_MODES.get(mode, mode),
            padding_mode=ctx.attr("padding_mode", "zeros"),
            align_corners=bool(ctx.attr("align_corners", 0)),
        )
    ]


# ---------------------------------------------------------------------------
# Matrix products and softmax
# ---------------------------------------------------------------------------


@converts("Gemm")
def convert_gemm(ctx: NodeContext) -> list[Value]:
    return [
        ctx.op(
            "gemm",
            ctx.input(0),
            ctx.input(1),
            ctx.optional_input(2),
            alpha=float(ctx.attr("alpha", 1.0)),
            beta=float(ctx.attr("beta", 1.0)),
            trans_a=bool(ctx.attr("transA", 0)),
            trans_b=bool(ctx.attr("transB", 0)),
        )
    ]


@converts("MatMul")
def convert_matmul(ctx: NodeContext) -> list[Value]:
    """2-D x 2-D is `ge.matmul`, the rest `ge.batch_matmul`; 1-D sides are lifted."""
    a, b = ctx.input(0), ctx.input(1)
    a_rank, b_rank = ctx.rank(0), ctx.rank(1)
    if a_rank == 1:
        a = ctx.op("unsqueeze", a, axes=[0], suffix="lhs_to_2d")
    if b_rank == 1:
        b = ctx.op("unsqueeze", b, axes=[1], suffix="rhs_to_2d")
    rank = max(a_rank, b_rank, 2)
    squeeze = [rank - 2] * (a_rank == 1) + [rank - 1] * (b_rank == 1)
    product = "matmul" if rank == 2 and a_rank <= 2 and b_rank <= 2 else "batch_matmul"
    y = ctx.op(product, a, b, suffix="product" if squeeze else None)
    return [ctx.op("squeeze", y, axes=squeeze) if squeeze else y]


@converts("Einsum")
def convert_einsum(ctx: NodeContext) -> list[Value]:
    """Einstein summation over the inputs (`equation` as ONNX writes it)."""
    operands = [ctx.input(i) for i in range(len(ctx.inputs))]
    return [ctx.op("einsum", operands, equation=str(ctx.attr("equation")))]


@converts("Softmax", "LogSoftmax")
def convert_softmax(ctx: NodeContext) -> list[Value]:
    """Opset >= 13: along `axis`; before: over the 2-D coercion at `axis`."""
    op_name = "softmax" if ctx.node.op_type == "Softmax" else "log_softmax"
    rank = ctx.rank(0)
    axis = normalize_axis(ctx.attr("axis", -1 if ctx.opset >= 13 else 1), rank)
    if ctx.opset >= 13 or axis == rank - 1:
        return [ctx.op(op_name, ctx.input(0), axis=axis)]
    shape = ctx.shape(0)
    if list(shape).count(-1) > 1:
        raise Unsupported("(opset < 13) on several dynamic dims")
    flat = ctx.op("flatten", ctx.input(0), axis=axis, suffix="to_2d")
    y = ctx.op(op_name, flat, axis=1, suffix="2d")
    return [ctx.op("reshape", y, shape=list(shape))]


@converts("Hardmax")
def convert_hardmax(ctx: NodeContext) -> list[Value]:
    """1 at the first maximum along `axis`, 0 elsewhere: `ge.arg_max`
    compared with the positions along the axis, cast to x's dtype (opset
    < 13: over the 2-D coercion at `axis`)."""
    rank = ctx.rank(0)
    axis = normalize_axis(ctx.attr("axis", -1 if ctx.opset >= 13 else 1), rank)
    if ctx.opset >= 13 or axis == rank - 1:
        return [_first_maximum(ctx, ctx.input(0), axis)]
    shape = ctx.static_shape(0)
    flat = ctx.op("flatten", ctx.input(0), axis=axis, suffix="to_2d")
    y = _first_maximum(ctx, flat, 1)
    return [ctx.op("reshape", y, shape=list(shape))]


def _first_maximum(ctx: NodeContext, x: Value, axis: int) -> Value:
    """The one-hot of the first maximum of `x` along `axis`, in x's dtype."""
    shape = shape_of(x)
    if shape[axis] == -1:
        raise Unsupported("on a dynamic axis")
    positions = np.arange(shape[axis], dtype=np.int64).reshape(
        [-1 if k == axis else 1 for k in range(len(shape))]
    )
    found = ctx.op("arg_max", x, axis=axis, keep_dims=True, suffix="arg_max")
    hit = ctx.op("equal", found, positions, suffix="hit")
    return ctx.op("cast", hit, dst_type=dtype_name_of(x), suffix="one_hot")


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


@converts("Concat")
def convert_concat(ctx: NodeContext) -> list[Value]:
    values = _present_inputs(ctx)
    axis = ctx.attr("axis", 1 if ctx.opset < 4 else None)
    if axis is None:
        raise ValueError("attribute 'axis' is missing")
    axis = normalize_axis(axis, ctx.rank(0))
    return [ctx.op("concat", values, axis=axis)]


@converts("Split")
def convert_split(ctx: NodeContext) -> list[Value]:
    """`split` sizes from the attribute (before opset 13) or the input (known
    at import or at run time), else `num_outputs` equal parts."""
    options = {
        "axis": ctx.attr("axis", 0),
        "num_outputs": ctx.attr("num_outputs", ctx.num_outputs),
    }
    parameters = {}
    if ctx.opset < 13 and ctx.has_attr("split"):
        options["split"] = ctx.attr("split")
    else:  # an input from opset 13 on (and optionally before)
        parameters["split"] = 1
    results = ctx.parameterized_op("split", [ctx.input(0)], parameters, **options)
    return results if isinstance(results, list) else [results]


@converts("Slice")
def convert_slice(ctx: NodeContext) -> list[Value]:
    """Bounds from attributes (before opset 10) or inputs, known at import
    or at run time."""
    if ctx.opset < 10:
        options = {name: ctx.attr(name) for name in ("starts", "ends", "axes")}
        return [ctx.parameterized_op("slice", [ctx.input(0)], {}, **options)]
    parameters = {"starts": 1, "ends": 2, "axes": 3, "steps": 4}
    return [ctx.parameterized_op("slice", [ctx.input(0)], parameters)]


@converts("Gather")
def convert_gather(ctx: NodeContext) -> list[Value]:
    axis = normalize_axis(ctx.attr("axis", 0), ctx.rank(0))
    check_indices(ctx.input(1), ctx.shape(0)[axis], axis)
    return [ctx.op("gather", ctx.input(0), ctx.input(1), axis=axis)]


@converts("GatherElements")
def convert_gather_elements(ctx: NodeContext) -> list[Value]:
    axis = normalize_axis(ctx.attr("axis", 0), ctx.rank(0))
    return [ctx.op("gather_elements", ctx.input(0), ctx.input(1), axis=axis)]


@converts("Det")
def convert_det(ctx: NodeContext) -> list[Value]:
    """The determinant of each [n, n] matrix of [..., n, n] (n known at
    import): Gaussian elimination with partial pivoting (LAPACK's LU),
    unrolled over the n columns (`_eliminate_column`); the determinant is
    the product of the pivots, negated once per row swap."""
    shape = ctx.static_shape(0)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Det needs square matrices [..., n, n], got {list(shape)}")
    a, determinant = ctx.input(0), np.ones(shape[:-2], ctx.dtype(0))
    for k in range(shape[-1]):
        a, determinant = _eliminate_column(ctx, a, determinant, k)
    return [determinant]


def _eliminate_column(
    ctx: NodeContext, a: Value, determinant: Value, k: int
) -> tuple[Value, Value]:
    """Column k's step of the elimination: its largest |entry| at or below
    the diagonal (`ge.arg_max`) swaps into row k (a `ge.gather_elements` of
    the rows; the determinant changes sign when it moves), the determinant
    takes the pivot as a factor and the rows below subtract their multiple
    of row k (a zero pivot, a singular matrix, divides as 1: the
    determinant is 0 already)."""
    *batch, n, _ = ctx.static_shape(0)
    row_axis, name = len(batch), f"column{k}"

    def op(op_name: str, *operands: Any, suffix: str, **attrs: Any) -> Value:
        return ctx.op(op_name, *operands, suffix=f"{name}/{suffix}", **attrs)

    def rows_of(x: Value, begin: int, end: int, suffix: str) -> Value:
        return op(
            "slice", x, begins=[begin], ends=[end], axes=[row_axis], suffix=suffix
        )

    column = op("slice", a, begins=[k], ends=[k + 1], axes=[row_axis + 1], suffix="c")
    below = op("abs", rows_of(column, k, n, "below"), suffix="magnitude")
    offset = op("arg_max", below, axis=row_axis, keep_dims=True, suffix="offset")
    pivot_row = op("add", offset, np.array(k, np.int64), suffix="pivot_row")
    rows = np.arange(n, dtype=np.int64).reshape(n, 1)
    at_pivot = op("equal", rows, pivot_row, suffix="at_pivot")
    order = op("select", at_pivot, np.array(k, np.int64), rows, suffix="swapped")
    order = op("select", rows == k, pivot_row, order, suffix="order")
    order = op("tile", order, multiples=[1] * row_axis + [1, n], suffix="order_rows")
    a = op("gather_elements", a, order, axis=row_axis, suffix="swap")
    moved = op("not_equal", pivot_row, np.array(k, np.int64), suffix="moved")
    sign = op("select", moved, ctx.array(-1), ctx.array(1), suffix="sign")
    pivot = op(
        "slice",
        rows_of(a, k, k + 1, "row"),
        begins=[k],
        ends=[k + 1],
        axes=[row_axis + 1],
        suffix="pivot",
    )
    factor = op("mul", sign, pivot, suffix="factor")
    factor = op("reshape", factor, shape=list(batch), suffix="factor_of")
    determinant = op("mul", determinant, factor, suffix="determinant")
    if k == n - 1:
        return a, determinant
    singular = op("equal", pivot, ctx.array(0), suffix="singular")
    divisor = op("select", singular, ctx.array(1), pivot, suffix="divisor")
    lower = rows_of(a, k + 1, n, "lower")
    entries = op(
        "slice", lower, begins=[k], ends=[k + 1], axes=[row_axis + 1], suffix="entries"
    )
    factors = op("div", entries, divisor, suffix="factors")
    scaled = op("mul", factors, rows_of(a, k, k + 1, "pivot_row"), suffix="scaled")
    lower = op("sub", lower, scaled, suffix="eliminated")
    upper = rows_of(a, 0, k + 1, "upper")
    return op("concat", [upper, lower], axis=row_axis, suffix="next"), determinant


@converts("ReverseSequence")
def convert_reverse_sequence(ctx: NodeContext) -> list[Value]:
    """Reverse the first `sequence_lens[b]` steps along `time_axis` of each
    batch entry b: `ge.gather_elements` along the time axis at
    `t < L[b] ? L[b] - 1 - t : t` (folded when the lengths are constants)."""
    shape = ctx.static_shape(0)
    rank = len(shape)
    batch_axis, time_axis = ctx.attr("batch_axis", 1), ctx.attr("time_axis", 0)
    if rank < 2 or {batch_axis, time_axis} != {0, 1}:
        raise ValueError(
            f"batch_axis {batch_axis} and time_axis {time_axis} must be 0 and 1 "
            f"of an input of rank >= 2"
        )
    steps_shape = [1] * rank
    steps_shape[time_axis] = shape[time_axis]
    steps = np.arange(shape[time_axis], dtype=np.int64).reshape(steps_shape)
    lengths_shape = [1] * rank
    lengths_shape[batch_axis] = shape[batch_axis]
    lengths = ctx.op("cast", ctx.input(1), dst_type="int64", suffix="lengths/int64")
    lengths = ctx.op("reshape", lengths, shape=lengths_shape, suffix="lengths")
    inside = ctx.op("less", steps, lengths, suffix="inside")
    last = ctx.op("sub", lengths, np.array(1, np.int64), suffix="last")
    reversed_steps = ctx.op("sub", last, steps, suffix="reversed")
    index = ctx.op("select", inside, reversed_steps, steps, suffix="index")
    multiples = [
        1 if axis in (batch_axis, time_axis) else size
        for axis, size in enumerate(shape)
    ]
    if any(m != 1 for m in multiples):
        index = ctx.op("tile", index, multiples=multiples, suffix="index/full")
    return [ctx.op("gather_elements", ctx.input(0), index, axis=time_axis)]


@converts("EyeLike")
def convert_eye_like(ctx: NodeContext) -> list[Value]:
    """Ones on diagonal `k` of input 0's 2-D shape, zeros elsewhere, of
    `dtype` (default: input 0's): a constant (only the shape is read)."""
    rows, columns = ctx.static_shape(0) if ctx.rank(0) == 2 else (None, None)
    if rows is None:
        raise ValueError(f"the input must be 2-D, got rank {ctx.rank(0)}")
    dtype = ctx.attr("dtype", 0)
    numpy = onnx.helper.tensor_dtype_to_np_dtype(dtype) if dtype else ctx.dtype(0)
    return [np.eye(rows, columns, k=ctx.attr("k", 0), dtype=numpy)]


@converts("GatherND")
def convert_gather_nd(ctx: NodeContext) -> list[Value]:
    batch_dims = ctx.attr("batch_dims", 0)
    return [ctx.op("gather_nd", ctx.input(0), ctx.input(1), batch_dims=batch_dims)]


@converts("TensorScatter")
def convert_tensor_scatter(ctx: NodeContext) -> list[Value]:
    """A KV-cache write: `update` (the cache's shape but `sequence_length`
    along `axis`) written into `past_cache` from `write_indices[b]` on
    (0 when absent; modulo the cache length in `circular` mode), as
    `ge.scatter_elements` at `write_indices[b] + i` along `axis`."""
    mode = ctx.attr("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ValueError(f"mode must be linear or circular, got '{mode}'")
    cache, update = ctx.static_shape(0), ctx.static_shape(1)
    rank = len(cache)
    axis = normalize_axis(ctx.attr("axis", -2), rank)
    if axis == 0:
        raise ValueError("axis must not be the batch axis 0")
    steps_shape = [1] * rank
    steps_shape[axis] = update[axis]
    index: Value = np.arange(update[axis], dtype=np.int64).reshape(steps_shape)
    if ctx.optional_input(2) is not None:
        starts = ctx.op("cast", ctx.input(2), dst_type="int64", suffix="starts/int64")
        batch = [cache[0]] + [1] * (rank - 1)
        starts = ctx.op("reshape", starts, shape=batch, suffix="starts")
        index = ctx.op("add", starts, index, suffix="positions")
    if mode == "circular":
        length = np.array(cache[axis], np.int64)
        index = ctx.op("mod", index, length, suffix="positions/circular")
    multiples = [
        size // index_size
        for size, index_size in zip(update, shape_of(index), strict=True)
    ]
    if any(m != 1 for m in multiples):
        index = ctx.op("tile", index, multiples=multiples, suffix="positions/full")
    return [ctx.op("scatter_elements", ctx.input(0), index, ctx.input(1), axis=axis)]


@converts("ScatterElements", "Scatter")
def convert_scatter_elements(ctx: NodeContext) -> list[Value]:
    """`updates` written at `indices` along `axis`; `reduction` since
    opset 16 (add, mul) and 18 (max, min). Scatter (opset 9-10) is the
    same without a reduction."""
    axis = normalize_axis(ctx.attr("axis", 0), ctx.rank(0))
    return [
        ctx.op(
            "scatter_elements",
            ctx.input(0),
            ctx.input(1),
            ctx.input(2),
            axis=axis,
            reduction=ctx.attr("reduction", "none"),
        )
    ]


@converts("ScatterND")
def convert_scatter_nd(ctx: NodeContext) -> list[Value]:
    """`updates` written at the index tuples of `indices`' last dim."""
    return [
        ctx.op(
            "scatter_nd",
            ctx.input(0),
            ctx.input(1),
            ctx.input(2),
            reduction=ctx.attr("reduction", "none"),
        )
    ]


@converts("OneHot")
def convert_one_hot(ctx: NodeContext) -> list[Value]:
    """`values = [off, on]` written by `indices` into a new dim of `depth`
    (a scalar or 1-element input of any numeric type, known at import or at
    run time) at `axis`."""
    if ctx.optional_input(1) is None:
        raise ValueError("input 'depth' is missing")
    axis = normalize_axis(ctx.attr("axis", -1), ctx.rank(0) + 1)
    return [
        ctx.parameterized_op(
            "one_hot", [ctx.input(0), ctx.input(2)], {"depth": 1}, axis=axis
        )
    ]


@converts("Trilu")
def convert_trilu(ctx: NodeContext) -> list[Value]:
    """The upper or lower triangle; `k` (optional) may be a run-time value."""
    operands = [ctx.input(0)]
    if (k := ctx.optional_input(1)) is not None:
        operands.append(k)
    return [ctx.op("trilu", *operands, upper=bool(ctx.attr("upper", 1)))]


@converts("Tile")
def convert_tile(ctx: NodeContext) -> list[Value]:
    return [ctx.parameterized_op("tile", [ctx.input(0)], {"repeats": 1})]


@converts("Expand")
def convert_expand(ctx: NodeContext) -> list[Value]:
    """Bidirectional broadcast to `shape`, as unsqueeze + tile."""
    if not isinstance(ctx.input(1), np.ndarray):  # known only at run time
        return [_broadcast_to(ctx)]
    target = ctx.constant(1, "shape")
    if target is None:
        raise ValueError("input 'shape' is missing")
    x, shape = ctx.input(0), ctx.shape(0)
    out = broadcast_shapes(shape, int_list(target))
    if out is None:
        raise ValueError(f"cannot expand {list(shape)} to {int_list(target)}")
    if isinstance(x, np.ndarray):
        return [np.broadcast_to(x, out)]
    extra = len(out) - len(shape)
    if extra:
        x = ctx.op("unsqueeze", x, axes=list(range(extra)), suffix="align")
    multiples = [
        o if d == 1 else 1 for d, o in zip((1,) * extra + shape, out, strict=True)
    ]
    if -1 in multiples or any(
        d == -1 and o != -1 for d, o in zip(shape, out[extra:], strict=True)
    ):
        raise Unsupported("with dynamic dims")
    return [ctx.op("tile", x, multiples=multiples)]


PAD_MODES = ("constant", "reflect", "edge", "wrap")


@converts("Pad")
def convert_pad(ctx: NodeContext) -> list[Value]:
    """`pads` (of `axes`, opset 18 on) and the fill value from attributes
    (before opset 11) or inputs, known at import or at run time."""
    mode = ctx.attr("mode", "constant")
    if mode not in PAD_MODES:
        raise Unsupported(f"with mode '{mode}'")
    if ctx.opset < 11:
        options = {
            "mode": mode,
            "pads": ctx.attr("pads", ctx.attr("paddings")),
            "constant_value": ctx.attr("value", 0.0),
        }
        return [ctx.parameterized_op("pad", [ctx.input(0)], {}, **options)]
    parameters = {"pads": 1, "constant_value": 2}
    if ctx.opset >= 18:
        parameters["axes"] = 3
    return [ctx.parameterized_op("pad", [ctx.input(0)], parameters, mode=mode)]


@converts("Reshape")
def convert_reshape(ctx: NodeContext) -> list[Value]:
    if ctx.opset >= 5 and not isinstance(ctx.input(1), np.ndarray):
        return [_dynamic_reshape(ctx, bool(ctx.attr("allowzero", 0)))]
    shape = ctx.attr("shape") if ctx.opset < 5 else ctx.constant(1, "shape")
    if shape is None:
        raise ValueError("the target shape is missing")
    shape = int_list(shape)
    if ctx.attr("allowzero", 0) and 0 in shape:
        raise Unsupported("with allowzero=1 and a 0 in the shape")
    return [ctx.op("reshape", ctx.input(0), shape=shape)]


def _dims_of(entries: Sequence[int | None]) -> list[int]:
    """Result dims from shape entries (-1: unknown)."""
    return [-1 if e is None else e for e in entries]


def _typed_op(
    ctx: NodeContext,
    op_name: str,
    operands: Sequence[Value],
    dims: Sequence[int],
    **attributes: Any,
) -> Value:
    """`ge.<op_name>` of a value-shaped op, its result typed with the dims
    known at import (the shape function alone only knows the rank)."""
    emitter = ctx.emitter
    values = [emitter.tensor(v, f"{ctx.name}/const") for v in operands]
    dtype = dtype_name_of(operands[0] if op_name != "fill" else operands[1])
    result = tensor_type(list(dims), dtype)
    return emitter.builder.op(
        op_name, *values, result_types=[result], name=ctx.name, **attributes
    )


def _dynamic_reshape(ctx: NodeContext, allowzero: bool) -> Value:
    """A Reshape to a run-time target: an ordinary `ge.reshape` when one
    entry is unknown (it becomes the -1), else `ge.dynamic_reshape` typed
    with the known entries (0 copies the input dim). With `allowzero` (the
    dynamo exporter's `view`) a 0 entry is an empty dim: refused when known,
    an error at run time otherwise, so an unknown entry is never inferred."""
    x, entries = ctx.input(0), entries_of(ctx, 1)
    options = {"allowzero": True} if allowzero else {}
    if entries is None:
        dims = [-1] * ctx.shape(1)[0]
        return _typed_op(ctx, "dynamic_reshape", [x, ctx.input(1)], dims, **options)
    if allowzero and 0 in entries:
        raise Unsupported("with allowzero=1 and a 0 in the shape")
    unknown = [i for i, e in enumerate(entries) if e is None]
    if len(unknown) == 1 and -1 not in entries and not allowzero:
        return ctx.op("reshape", x, shape=_dims_of(entries))
    shape = ctx.shape(0)
    dims = [
        shape[i] if e == 0 and i < len(shape) else -1 if e is None else e
        for i, e in enumerate(entries)
    ]
    return _typed_op(ctx, "dynamic_reshape", [x, ctx.input(1)], dims, **options)


def _broadcast_to(ctx: NodeContext) -> Value:
    """Expand to a run-time shape: `ge.broadcast_to`, typed with the dims
    that the known entries and x's static dims fix."""
    x, target = ctx.shape(0), entries_of(ctx, 1)
    rank = max(len(x), ctx.shape(1)[0])
    target = (None,) * rank if target is None else target
    aligned_x = (1,) * (rank - len(x)) + tuple(x)
    aligned_target = (1,) * (rank - len(target)) + tuple(target)
    dims = []
    for a, e in zip(aligned_x, aligned_target, strict=True):
        if a not in (1, -1):
            if e not in (None, 1, a):
                raise ValueError(f"cannot expand {list(x)} to {list(target)}")
            dims.append(a)
        elif e is None or (a == -1 and e == 1):
            dims.append(-1)
        else:
            dims.append(e)
    return _typed_op(ctx, "broadcast_to", [ctx.input(0), ctx.input(1)], dims)


@converts("Flatten")
def convert_flatten(ctx: NodeContext) -> list[Value]:
    rank, axis = ctx.rank(0), ctx.attr("axis", 1)
    if not -rank <= axis <= rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return [ctx.op("flatten", ctx.input(0), axis=axis + rank if axis < 0 else axis)]


def _axes_op(ctx: NodeContext, op_name: str, since: int) -> Value:
    """`ge.<op_name>` on `axes`: an attribute before opset `since`, an input
    (known at import or at run time) from it on."""
    if ctx.opset < since:
        axes = ctx.attr("axes")
        options = {} if axes is None else {"axes": axes}
        return ctx.parameterized_op(op_name, [ctx.input(0)], {}, **options)
    return ctx.parameterized_op(op_name, [ctx.input(0)], {"axes": 1})


@converts("Squeeze")
def convert_squeeze(ctx: NodeContext) -> list[Value]:
    return [_axes_op(ctx, "squeeze", 13)]


@converts("Unsqueeze")
def convert_unsqueeze(ctx: NodeContext) -> list[Value]:
    return [_axes_op(ctx, "unsqueeze", 13)]


@converts("Transpose")
def convert_transpose(ctx: NodeContext) -> list[Value]:
    perm = ctx.attr("perm", list(reversed(range(ctx.rank(0)))))
    return [ctx.op("transpose", ctx.input(0), perm=int_list(perm))]


@converts("Upsample")
def convert_upsample(ctx: NodeContext) -> list[Value]:
    """`ge.resize` with asymmetric coordinates (nearest: floor), the scales
    an attribute (before opset 9) or an input known at import or at run time."""
    options = {
        "mode": ctx.attr("mode", "nearest"),
        "coordinate_transformation_mode": "asymmetric",
        "nearest_mode": "floor",
    }
    if ctx.opset < 9:
        options["scales"] = ctx.attr("scales")
        return [ctx.parameterized_op("resize", [ctx.input(0)], {}, **options)]
    return [ctx.parameterized_op("resize", [ctx.input(0)], {"scales": 1}, **options)]


@converts("Resize")
def convert_resize(ctx: NodeContext) -> list[Value]:
    """`ge.resize`, its output sizes and per-axis scales bound from ONNX's
    scales or sizes (`ResizeOp.bind_parameters`; known at import or at run
    time). Opset 10: `(X, scales)`, asymmetric coordinates, opset 10's
    nearest rule; 11+: `(X, roi, scales, sizes)`; 18+: `axes`, `antialias`,
    `keep_aspect_ratio_policy`."""
    options = {
        "mode": ctx.attr("mode", "nearest"),
        "cubic_coeff_a": float(ctx.attr("cubic_coeff_a", -0.75)),
        "exclude_outside": bool(ctx.attr("exclude_outside", 0)),
        "antialias": bool(ctx.attr("antialias", 0)),
        "extrapolation_value": float(ctx.attr("extrapolation_value", 0.0)),
        "keep_aspect_ratio_policy": ctx.attr("keep_aspect_ratio_policy", "stretch"),
        "axes": ctx.attr("axes"),
    }
    if ctx.opset < 11:
        options["coordinate_transformation_mode"] = "asymmetric"
        options["nearest_mode"] = "simple"
        parameters = {"scales": 1}
    else:
        options["coordinate_transformation_mode"] = ctx.attr(
            "coordinate_transformation_mode", "half_pixel"
        )
        options["nearest_mode"] = ctx.attr("nearest_mode", "round_prefer_floor")
        parameters = {"roi": 1, "scales": 2, "sizes": 3}
    return [ctx.parameterized_op("resize", [ctx.input(0)], parameters, **options)]


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

REDUCTIONS = {
    "ReduceSum": ("reduce_sum", 13),
    "ReduceMean": ("reduce_mean", 18),
    "ReduceMax": ("reduce_max", 18),
    "ReduceMin": ("reduce_min", 18),
    "ReduceProd": ("reduce_prod", 18),
}
"""ONNX op -> (ge op, first opset where `axes` is an input)."""


@converts(*REDUCTIONS)
def convert_reduce(ctx: NodeContext) -> list[Value]:
    """Axes from the attribute (before the opset where they became an
    input) or the input, known at import or at run time."""
    op_name, axes_input_since = REDUCTIONS[ctx.node.op_type]
    options = {
        "keep_dims": bool(ctx.attr("keepdims", 1)),
        "noop_with_empty_axes": bool(ctx.attr("noop_with_empty_axes", 0)),
    }
    if ctx.opset < axes_input_since:
        options["axes"] = ctx.attr("axes", [])
        return [ctx.parameterized_op(op_name, [ctx.input(0)], {}, **options)]
    return [ctx.parameterized_op(op_name, [ctx.input(0)], {"axes": 1}, **options)]


@converts("ArgMax", "ArgMin")
def convert_arg_reduce(ctx: NodeContext) -> list[Value]:
    """The int64 index of the extreme along `axis` (`select_last_index`
    since opset 12)."""
    op_name = "arg_max" if ctx.node.op_type == "ArgMax" else "arg_min"
    return [
        ctx.op(
            op_name,
            ctx.input(0),
            axis=normalize_axis(ctx.attr("axis", 0), ctx.rank(0)),
            keep_dims=bool(ctx.attr("keepdims", 1)),
            select_last_index=bool(ctx.attr("select_last_index", 0)),
        )
    ]


@converts("TopK")
def convert_top_k(ctx: NodeContext) -> list[Value]:
    """The `k` largest or smallest along `axis` and their int64 positions:
    `k` an attribute before opset 10, then a 1-element integer input known
    at import or at run time; `largest` and `sorted` since opset 11."""
    options = {
        "axis": normalize_axis(ctx.attr("axis", -1), ctx.rank(0)),
        "largest": bool(ctx.attr("largest", 1)),
        "sorted": bool(ctx.attr("sorted", 1)),
    }
    if ctx.opset < 10:
        return list(ctx.op("top_k", ctx.input(0), k=ctx.attr("k"), **options))
    if ctx.optional_input(1) is None:
        raise ValueError("input 'K' is missing")
    return list(ctx.parameterized_op("top_k", [ctx.input(0)], {"k": 1}, **options))


@converts("Compress")
def convert_compress(ctx: NodeContext) -> list[Value]:
    """The slices along `axis` where `condition` is true; without `axis`,
    the elements of the flattened input. How many is known at run time."""
    x, condition = ctx.input(0), ctx.input(1)
    if ctx.dtype(1) != "bool":
        raise ValueError(f"condition must be bool, got {ctx.dtype(1)}")
    if not ctx.has_attr("axis"):
        return [
            ctx.op(
                "compress",
                ctx.op("reshape", x, shape=[-1], suffix="flat"),
                condition,
                axis=0,
            )
        ]
    axis = normalize_axis(ctx.attr("axis"), ctx.rank(0))
    return [ctx.op("compress", x, condition, axis=axis)]


@converts("NonZero")
def convert_non_zero(ctx: NodeContext) -> list[Value]:
    """The coordinates of the non-zero elements, [rank, count]; how many is
    known at run time."""
    if ctx.rank(0) == 0:
        raise Unsupported("of a scalar")
    return [ctx.op("non_zero", ctx.input(0))]


@converts("Unique")
def convert_unique(ctx: NodeContext) -> list[Value]:
    """The distinct elements (or slices along `axis`), their first
    positions, each one's position among them, and counts; how many is
    known at run time."""
    x = ctx.input(0)
    if ctx.has_attr("axis"):
        axis = normalize_axis(ctx.attr("axis"), ctx.rank(0))
    else:
        x, axis = ctx.op("reshape", x, shape=[-1], suffix="flat"), 0
    results = ctx.op("unique", x, axis=axis, sorted=bool(ctx.attr("sorted", 1)))
    return list(results)[: ctx.num_outputs]


@converts("CumSum", "CumProd")
def convert_cumulative(ctx: NodeContext) -> list[Value]:
    """The running sum or product along `axis` (an input, a 0-d or 1-element
    integer tensor known at import or at run time)."""
    op_name = "cum_sum" if ctx.node.op_type == "CumSum" else "cum_prod"
    options = {
        "exclusive": bool(ctx.attr("exclusive", 0)),
        "reverse": bool(ctx.attr("reverse", 0)),
    }
    return [ctx.parameterized_op(op_name, [ctx.input(0)], {"axis": 1}, **options)]


# ---------------------------------------------------------------------------
# Constants and shapes (folded at import time)
# ---------------------------------------------------------------------------

CONSTANT_ATTRIBUTES = {
    "value": lambda v: v,
    "value_float": lambda v: np.array(v, np.float32),
    "value_floats": lambda v: np.array(v, np.float32),
    "value_int": lambda v: np.array(v, np.int64),
    "value_ints": lambda v: np.array(v, np.int64),
}


@converts("Constant")
def convert_constant(ctx: NodeContext) -> list[Value]:
    for name, make in CONSTANT_ATTRIBUTES.items():
        if ctx.has_attr(name):
            return [make(ctx.attr(name))]
    kinds = ", ".join(a.name for a in ctx.node.attribute) or "no value"
    raise Unsupported(f"with {kinds}")


@converts("ConstantOfShape")
def convert_constant_of_shape(ctx: NodeContext) -> list[Value]:
    """Known when the shape is (checked against the memory budget); else
    `ge.fill`, run on the host."""
    value = ctx.attr("value", np.zeros(1, np.float32))
    if not isinstance(ctx.input(0), np.ndarray):
        entries = entries_of(ctx, 0)
        dims = [-1] * ctx.shape(0)[0] if entries is None else _dims_of(entries)
        return [_typed_op(ctx, "fill", [ctx.input(0), value.reshape(())], dims)]
    shape = ctx.constant(0, "shape")
    if shape is None:
        raise ValueError("input 'shape' is missing")
    dims = int_list(shape)
    reason = over_budget(tensor_bytes(dims, value.itemsize), "the result")
    if reason is not None:
        raise ValueError(reason)
    return [np.broadcast_to(value.reshape(()), tuple(dims))]


@converts("Range")
def convert_range(ctx: NodeContext) -> list[Value]:
    """`ge.range` (folded when its operands are known)."""
    return [ctx.op("range", ctx.input(0), ctx.input(1), ctx.input(2))]


@converts("Shape")
def convert_shape(ctx: NodeContext) -> list[Value]:
    """Known when the selected dims are static; else `ge.shape`."""
    shape = ctx.shape(0)
    start, end = ctx.attr("start", 0), ctx.attr("end", len(shape))
    selected = shape[start:end]
    if -1 not in selected:
        return [np.array(selected, np.int64)]
    return [ctx.op("shape", ctx.input(0), start=start, end=end)]


@converts("Size")
def convert_size(ctx: NodeContext) -> list[Value]:
    """Known when every dim is static; else `ge.size`."""
    shape = ctx.shape(0)
    if -1 not in shape:
        return [np.array(math.prod(shape), np.int64)]
    return [ctx.op("size", ctx.input(0))]


# ---------------------------------------------------------------------------
# Recurrent ops (a decomposition: `onnx_recurrent`)
# ---------------------------------------------------------------------------

CONVERTERS.update(RECURRENT_CONVERTERS)


# ---------------------------------------------------------------------------
# Quantization (a decomposition: `onnx_quantize`)
# ---------------------------------------------------------------------------

CONVERTERS.update(QUANTIZE_CONVERTERS)


# ---------------------------------------------------------------------------
# Detection post-processing (`onnx_detection`)
# ---------------------------------------------------------------------------

CONVERTERS.update(DETECTION_CONVERTERS)


# ---------------------------------------------------------------------------
# Deformable convolution (a decomposition: `onnx_deform_conv`)
# ---------------------------------------------------------------------------

CONVERTERS.update(DEFORM_CONV_CONVERTERS)


# ---------------------------------------------------------------------------
# Control flow (subgraphs become regions: `onnx_control_flow`)
# ---------------------------------------------------------------------------

CONVERTERS.update(CONTROL_FLOW_CONVERTERS)


# ---------------------------------------------------------------------------
# Sequences and optionals (resolved into tensors at import: `onnx_sequences`)
# ---------------------------------------------------------------------------

CONVERTERS.update(SEQUENCE_CONVERTERS)


# ---------------------------------------------------------------------------
# Text (TfIdfVectorizer as comparisons and sums: `onnx_text`)
# ---------------------------------------------------------------------------

CONVERTERS.update(TEXT_CONVERTERS)


# ---------------------------------------------------------------------------
# Other domains: ONNX-ML (`onnx_ml`), the training optimizers (decompositions:
# `onnx_training`), onnxruntime's com.microsoft ops (`onnx_microsoft`)
# ---------------------------------------------------------------------------

DOMAIN_CONVERTERS: dict[str, dict[str, Converter]] = {
    ML_DOMAIN: ML_CONVERTERS,
    TRAINING_DOMAIN: TRAINING_CONVERTERS,
    "com.microsoft": MICROSOFT_CONVERTERS,
}
"""Op domain (other than ONNX's own) -> op type -> converter."""
