"""TensorFlow op -> `ge` op conversion rules (the policy; `tf_import` is the driver).

Each converter takes a `TFNodeContext` and returns the node's output values
in order. It raises `Unsupported` for a configuration the `ge` dialect cannot
express (the driver reports all of them at once) and `ValueError` for an
invalid node.

Layout conventions are TensorFlow's, which the dialect shares: windowed and
per-channel ops keep the node's `data_format` (NHWC unless it says NCHW),
and their `strides`, `dilations` and `ksize` stay 4-value lists in that
format's axis order. Padding `SAME` is computed from the static input size
(the odd pixel at the end), `VALID` is none, `EXPLICIT` reads
`explicit_paddings` (pairs per axis in data-format order); `ge` pads are
`[top, bottom, left, right]`. A `Conv2D` filter is HWIO, i.e. a constant
labelled `#ge.layout<HWCN>`; a `DepthwiseConv2dNative` filter
`[kh, kw, C, M]` becomes the grouped filter `[kh, kw, 1, C*M]` with
`groups = C` (TensorFlow's output channel `c*M + m` is the group order).

Ops `ge` has no single op for are written with the ones it has: `Square`
is `x * x`. Shape computations (`Shape`,
`StridedSlice`, `Pack`, `Fill`, ...) on import-time values are evaluated
at import time.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence

import numpy as np

from ge_dialect.formats import Format
from ge_frontend.importing import (
    Unsupported,
    Value,
    check_fold_budget,
    check_indices,
    int_list,
    normalize_axis,
    registrar,
    same_padding,
    shape_of,
)
from ge_frontend.tf_context import TFNodeContext, tensor_array

Converter = Callable[[TFNodeContext], Sequence[Value]]

CONVERTERS: dict[str, Converter] = {}
"""TensorFlow op -> converter."""


converts = registrar(CONVERTERS)
"""`@converts("OpType", ...)` registers a converter."""


def _required_constant(ctx: TFNodeContext, index: int, what: str) -> np.ndarray:
    value = ctx.constant(index, what)
    if value is None:
        raise ValueError(f"input '{what}' is missing")
    return value


# ---------------------------------------------------------------------------
# Graph structure
# ---------------------------------------------------------------------------


@converts("Const")
def convert_const(ctx: TFNodeContext) -> list[Value]:
    value = ctx.node.attr["value"].tensor
    if not ctx.node.attr["value"].HasField("tensor"):
        raise ValueError("attribute 'value' is missing")
    return [tensor_array(value)]


@converts("Identity", "StopGradient", "Snapshot", "PreventGradient")
def convert_identity(ctx: TFNodeContext) -> list[Value]:
    """Passes its input on (no op: the value is the same tensor)."""
    return [ctx.input(0)]


@converts("IdentityN")
def convert_identity_n(ctx: TFNodeContext) -> list[Value]:
    return [ctx.input(i) for i in range(len(ctx.inputs))]


@converts("PlaceholderWithDefault")
def convert_placeholder_with_default(ctx: TFNodeContext) -> list[Value]:
    """An inference graph feeds nothing into it: its default is its value."""
    return [ctx.input(0)]


@converts("NoOp")
def convert_no_op(ctx: TFNodeContext) -> list[Value]:
    """Orders side effects through control edges, which import drops: nothing."""
    return []


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
    "Inv": "reciprocal",
    "Elu": "elu",
    "Selu": "selu",
    "Relu6": "relu6",
    "Rsqrt": "rsqrt",
    "Erf": "erf",
}

BINARY = {
    "Add": "add",
    "AddV2": "add",
    "Sub": "sub",
    "Mul": "mul",
    "RealDiv": "div",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Pow": "pow",
    "SquaredDifference": "squared_difference",
}


@converts(*UNARY)
def convert_unary(ctx: TFNodeContext) -> list[Value]:
    return [ctx.op(UNARY[ctx.op_type], ctx.input(0))]


@converts("LeakyRelu")
def convert_leaky_relu(ctx: TFNodeContext) -> list[Value]:
    return [ctx.op("leaky_relu", ctx.input(0), alpha=float(ctx.attr("alpha", 0.2)))]


@converts("Square")
def convert_square(ctx: TFNodeContext) -> list[Value]:
    return [ctx.op("mul", ctx.input(0), ctx.input(0))]


@converts(*BINARY)
def convert_binary(ctx: TFNodeContext) -> list[Value]:
    return [ctx.op(BINARY[ctx.op_type], ctx.input(0), ctx.input(1))]


@converts("Div")
def convert_div(ctx: TFNodeContext) -> list[Value]:
    """Float division (TensorFlow's `Div` floors on integers)."""
    if not ctx.dtype(0).startswith(("float", "bfloat")):
        raise Unsupported(f"on {ctx.dtype(0)}")
    return [ctx.op("div", ctx.input(0), ctx.input(1))]


@converts("AddN")
def convert_add_n(ctx: TFNodeContext) -> list[Value]:
    if len(ctx.inputs) == 1:
        return [ctx.input(0)]
    return [ctx.op("add_n", list(ctx.inputs))]


@converts("Cast")
def convert_cast(ctx: TFNodeContext) -> list[Value]:
    dst = ctx.dtype_attr("DstT")
    if dst == ctx.dtype(0):
        return [ctx.input(0)]
    return [ctx.op("cast", ctx.input(0), dst_type=dst)]


# ---------------------------------------------------------------------------
# Convolution, pooling, per-channel ops
# ---------------------------------------------------------------------------


def _spatial_values(
    ctx: TFNodeContext, name: str, data_format: str, default: int = 1
) -> list[int]:
    """A 4-value attribute (`strides`, `dilations`, `ksize`) in data-format order.

    TensorFlow requires 1 on N and C.
    """
    values = int_list(ctx.attr(name, [default] * 4))
    if len(values) != 4:
        raise ValueError(f"'{name}' must have 4 values, got {values}")
    if values[data_format.index("N")] != 1 or values[data_format.index("C")] != 1:
        raise Unsupported(f"with {name} {values} on the batch or channel axis")
    if min(values) < 1:
        raise ValueError(f"'{name}' must be positive, got {values}")
    return values


def _window_pads(
    ctx: TFNodeContext,
    data_format: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """`ge` pads `[top, bottom, left, right]` for the node's `padding`.

    `kernel`, `strides` and `dilations` are [h, w].
    """
    padding = ctx.attr("padding", "VALID")
    if padding == "VALID":
        return [0, 0, 0, 0]
    h_axis, w_axis = data_format.index("H"), data_format.index("W")
    if padding == "EXPLICIT":
        pairs = int_list(ctx.attr("explicit_paddings", []))
        if len(pairs) != 8:
            raise ValueError(f"'explicit_paddings' must have 8 values, got {pairs}")
        for axis in (data_format.index("N"), data_format.index("C")):
            if pairs[2 * axis] or pairs[2 * axis + 1]:
                raise Unsupported("with padding on the batch or channel axis")
        top, bottom = pairs[2 * h_axis : 2 * h_axis + 2]
        left, right = pairs[2 * w_axis : 2 * w_axis + 2]
        return [top, bottom, left, right]
    if padding != "SAME":
        raise ValueError(f"unknown padding '{padding}'")
    shape = ctx.shape(0)
    sizes = shape[h_axis], shape[w_axis]
    if -1 in sizes:
        raise Unsupported("with padding SAME on dynamic spatial dims")
    pads = [
        same_padding(size, k, s, d)
        for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True)
    ]
    return [*pads[0], *pads[1]]


def _hw(values: Sequence[int], data_format: str) -> list[int]:
    return [values[data_format.index("H")], values[data_format.index("W")]]


HWIO_TO_OIHW = [3, 2, 0, 1]


def _filter_operand(ctx: TFNodeContext, hwio: Value, name: str) -> Value:
    """An HWIO filter as the conv's operand.

    An import-time filter becomes a constant labelled HWCN (TensorFlow's
    layout, which format inference and storage selection read); with an
    import-time input too the conv is folded, so the filter is handed over
    as OIHW (what an unlabelled filter means). A run-time filter is
    transposed to OIHW.
    """
    if isinstance(hwio, np.ndarray):
        if isinstance(ctx.input(0), np.ndarray):
            return np.transpose(hwio, HWIO_TO_OIHW)
        return ctx.emitter.tensor(hwio, name, Format.HWCN)
    return ctx.op("transpose", hwio, perm=HWIO_TO_OIHW, suffix="filter_to_oihw")


def _conv(ctx: TFNodeContext, hwio: Value, groups: int) -> Value:
    data_format = ctx.data_format()
    if ctx.rank(0) != 4:
        raise Unsupported(f"on a rank-{ctx.rank(0)} input")
    strides = _spatial_values(ctx, "strides", data_format)
    dilations = _spatial_values(ctx, "dilations", data_format)
    kernel = list(shape_of(hwio)[:2])
    pads = _window_pads(
        ctx, data_format, kernel, _hw(strides, data_format), _hw(dilations, data_format)
    )
    return ctx.op(
        "conv2d",
        ctx.input(0),
        _filter_operand(ctx, hwio, f"{ctx.name}/filter"),
        None,
        strides=strides,
        pads=pads,
        dilations=dilations,
        groups=groups,
        data_format=data_format,
    )


@converts("Conv2D")
def convert_conv2d(ctx: TFNodeContext) -> list[Value]:
    if ctx.rank(1) != 4:
        raise ValueError(f"filter must have rank 4, got {ctx.rank(1)}")
    channels = ctx.shape(0)[ctx.data_format().index("C")] if ctx.rank(0) == 4 else -1
    filter_channels = ctx.shape(1)[2]
    groups = 1
    if channels > 0 and filter_channels > 0 and channels != filter_channels:
        if channels % filter_channels:
            raise ValueError(
                f"input has {channels} channels, the filter {filter_channels}"
            )
        groups = channels // filter_channels
    return [_conv(ctx, ctx.input(1), groups)]


@converts("DepthwiseConv2dNative")
def convert_depthwise_conv2d(ctx: TFNodeContext) -> list[Value]:
    """A grouped conv: filter [kh, kw, C, M] -> [kh, kw, 1, C*M], groups = C."""
    kh, kw, channels, multiplier = (
        ctx.static_shape(1) if ctx.rank(1) == 4 else (0, 0, 0, 0)
    )
    if not channels:
        raise ValueError("filter must have rank 4 and known dims")
    grouped = ctx.op(
        "reshape",
        ctx.input(1),
        shape=[kh, kw, 1, channels * multiplier],
        suffix="grouped_filter",
    )
    return [_conv(ctx, grouped, channels)]


@converts("BiasAdd", "BiasAddV1")
def convert_bias_add(ctx: TFNodeContext) -> list[Value]:
    """`BiasAddV1` has no data_format (channels last)."""
    data_format = ctx.data_format() if ctx.op_type == "BiasAdd" else "NHWC"
    return [ctx.op("bias_add", ctx.input(0), ctx.input(1), data_format=data_format)]


@converts("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def convert_fused_batch_norm(ctx: TFNodeContext) -> list[Value]:
    """Inference batch norm; the batch statistics outputs are not."""
    if ctx.attr("is_training", True):
        raise Unsupported("in training mode")
    if any(ctx.output_used(i) for i in range(1, 6)):
        raise Unsupported("with its batch statistics used")
    if ctx.rank(0) != 4:
        raise Unsupported(f"on a rank-{ctx.rank(0)} input")
    y = ctx.op(
        "batch_norm",
        *(ctx.input(i) for i in range(5)),
        epsilon=float(ctx.attr("epsilon", 1e-4)),
        data_format=ctx.data_format(),
    )
    return [y]


POOLS = {"MaxPool": "max_pool", "AvgPool": "avg_pool"}


@converts(*POOLS)
def convert_pool(ctx: TFNodeContext) -> list[Value]:
    """TensorFlow's average pool divides by the window's unpadded size."""
    data_format = ctx.data_format()
    if ctx.rank(0) != 4:
        raise Unsupported(f"on a rank-{ctx.rank(0)} input")
    ksize = _spatial_values(ctx, "ksize", data_format)
    strides = _spatial_values(ctx, "strides", data_format)
    pads = _window_pads(
        ctx, data_format, _hw(ksize, data_format), _hw(strides, data_format), [1, 1]
    )
    attrs = {"ksize": ksize, "strides": strides, "pads": pads}
    if ctx.op_type == "AvgPool":
        attrs["count_include_pad"] = False
    return [ctx.op(POOLS[ctx.op_type], ctx.input(0), data_format=data_format, **attrs)]


def _volume_format(ctx: TFNodeContext) -> str:
    """The `data_format` of a 3-D op: NDHWC (TensorFlow's default) or NCDHW."""
    data_format = ctx.attr("data_format", "NDHWC")
    if data_format not in ("NDHWC", "NCDHW"):
        raise Unsupported(f"with data_format {data_format}")
    if ctx.rank(0) != 5:
        raise Unsupported(f"on a rank-{ctx.rank(0)} input")
    return data_format


def _volume_values(ctx: TFNodeContext, name: str, data_format: str) -> list[int]:
    """A 5-value attribute (`ksize`, `strides`, `dilations`) in data-format
    order, 1 on N and C."""
    values = int_list(ctx.attr(name, [1] * 5))
    if len(values) != 5 or min(values) < 1:
        raise ValueError(f"'{name}' must have 5 positive values, got {values}")
    if values[data_format.index("N")] != 1 or values[data_format.index("C")] != 1:
        raise Unsupported(f"with {name} {values} on the batch or channel axis")
    return values


def _volume_pads(
    ctx: TFNodeContext,
    data_format: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """`ge` pads [front, back, top, bottom, left, right] for VALID or SAME
    padding (`kernel` per D, H, W; strides and dilations in data-format
    order)."""
    padding = ctx.attr("padding", "VALID")
    if padding == "VALID":
        return [0] * 6
    if padding != "SAME":
        raise Unsupported(f"with padding {padding}")
    axes = [data_format.index(a) for a in "DHW"]
    sizes = [ctx.shape(0)[a] for a in axes]
    if -1 in sizes:
        raise Unsupported("with padding SAME on dynamic spatial dims")
    return [
        pad
        for size, k, a in zip(sizes, kernel, axes, strict=True)
        for pad in same_padding(size, k, strides[a], dilations[a])
    ]


DHWIO_TO_OIDHW = [4, 3, 0, 1, 2]


@converts("Conv3D")
def convert_conv3d(ctx: TFNodeContext) -> list[Value]:
    """GE's Conv3D: the filter [kd, kh, kw, I, O] transposed to OIDHW;
    grouped when the input has a multiple of the filter's channels."""
    data_format = _volume_format(ctx)
    if ctx.rank(1) != 5:
        raise ValueError(f"filter must have rank 5, got {ctx.rank(1)}")
    *kernel, filter_channels, _ = ctx.shape(1)
    channels = ctx.shape(0)[data_format.index("C")]
    if -1 in (channels, filter_channels, *kernel) or channels % filter_channels:
        raise Unsupported(
            f"with {channels} input channels for a filter of {filter_channels}"
        )
    strides = _volume_values(ctx, "strides", data_format)
    dilations = _volume_values(ctx, "dilations", data_format)
    filter_oidhw = ctx.op(
        "transpose", ctx.input(1), perm=DHWIO_TO_OIDHW, suffix="filter_to_oidhw"
    )
    y = ctx.op(
        "conv3d",
        ctx.input(0),
        filter_oidhw,
        None,
        strides=strides,
        pads=_volume_pads(ctx, data_format, kernel, strides, dilations),
        dilations=dilations,
        groups=channels // filter_channels,
        data_format=data_format,
    )
    return [y]


POOLS_3D = {"MaxPool3D": "max_pool3d", "AvgPool3D": "avg_pool3d"}


@converts(*POOLS_3D)
def convert_pool_3d(ctx: TFNodeContext) -> list[Value]:
    """GE's MaxPool3D and AvgPool3D on NDHWC or NCDHW; VALID or SAME
    padding (TensorFlow's average divides by the window's unpadded size)."""
    data_format = _volume_format(ctx)
    ksize = _volume_values(ctx, "ksize", data_format)
    strides = _volume_values(ctx, "strides", data_format)
    kernel = [ksize[data_format.index(a)] for a in "DHW"]
    pads = _volume_pads(ctx, data_format, kernel, strides, [1] * 5)
    attrs = {"ksize": ksize, "strides": strides, "pads": pads}
    if ctx.op_type == "AvgPool3D":
        attrs["count_include_pad"] = False
    op_name = POOLS_3D[ctx.op_type]
    return [ctx.op(op_name, ctx.input(0), data_format=data_format, **attrs)]


# ---------------------------------------------------------------------------
# Matrix products and softmax
# ---------------------------------------------------------------------------


@converts("MatMul")
def convert_matmul(ctx: TFNodeContext) -> list[Value]:
    return [
        ctx.op(
            "matmul",
            ctx.input(0),
            ctx.input(1),
            None,
            transpose_x1=bool(ctx.attr("transpose_a", False)),
            transpose_x2=bool(ctx.attr("transpose_b", False)),
        )
    ]


@converts("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def convert_batch_matmul(ctx: TFNodeContext) -> list[Value]:
    if ctx.op_type == "BatchMatMulV3" and ctx.has_attr("Tout"):
        if ctx.dtype_attr("Tout") != ctx.dtype(0):
            raise Unsupported("with an output dtype of its own")
    return [
        ctx.op(
            "batch_matmul",
            ctx.input(0),
            ctx.input(1),
            adj_x1=bool(ctx.attr("adj_x", False)),
            adj_x2=bool(ctx.attr("adj_y", False)),
        )
    ]


@converts("Softmax", "LogSoftmax")
def convert_softmax(ctx: TFNodeContext) -> list[Value]:
    """Along the last axis."""
    op_name = "softmax" if ctx.op_type == "Softmax" else "log_softmax"
    return [ctx.op(op_name, ctx.input(0), axis=max(ctx.rank(0) - 1, 0))]


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

REDUCTIONS = {"Sum": "reduce_sum", "Mean": "reduce_mean", "Max": "reduce_max"}


@converts(*REDUCTIONS)
def convert_reduce(ctx: TFNodeContext) -> list[Value]:
    """Over the `reduction_indices`; an empty list reduces nothing."""
    rank = ctx.rank(0)
    indices = int_list(_required_constant(ctx, 1, "axes"))
    axes = sorted({normalize_axis(a, rank) for a in indices})
    if not axes:
        return [ctx.input(0)]
    keep_dims = bool(ctx.attr("keep_dims", False))
    op_name = REDUCTIONS[ctx.op_type]
    return [ctx.op(op_name, ctx.input(0), axes=axes, keep_dims=keep_dims)]


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


@converts("Reshape")
def convert_reshape(ctx: TFNodeContext) -> list[Value]:
    """TensorFlow's 0 is an empty dim (`ge.reshape`'s 0 copies): resolved here."""
    shape = int_list(_required_constant(ctx, 1, "shape"))
    input_shape = ctx.shape(0)
    if -1 not in input_shape:
        shape = list(np.empty(input_shape, dtype=np.bool_).reshape(shape).shape)
    if 0 in shape:
        raise Unsupported("to a shape with an empty dim")
    return [ctx.op("reshape", ctx.input(0), shape=shape)]


@converts("Squeeze")
def convert_squeeze(ctx: TFNodeContext) -> list[Value]:
    rank = ctx.rank(0)
    axes = sorted({normalize_axis(a, rank) for a in ctx.attr("squeeze_dims", [])})
    if not axes:
        shape = ctx.static_shape(0)
        axes = [axis for axis, dim in enumerate(shape) if dim == 1]
    return [ctx.op("squeeze", ctx.input(0), axes=axes)]


@converts("ExpandDims")
def convert_expand_dims(ctx: TFNodeContext) -> list[Value]:
    axis = int_list(_required_constant(ctx, 1, "axis"))
    if len(axis) != 1:
        raise ValueError(f"'axis' must hold one value, got {axis}")
    axes = [normalize_axis(axis[0], ctx.rank(0) + 1)]
    return [ctx.op("unsqueeze", ctx.input(0), axes=axes)]


def _concat(ctx: TFNodeContext, values: list[Value], axis_index: int) -> Value:
    axis = int_list(_required_constant(ctx, axis_index, "axis"))[0]
    axis = normalize_axis(axis, len(shape_of(values[0])))
    if len(values) == 1:
        return values[0]
    return ctx.op("concat", values, axis=axis)


@converts("ConcatV2")
def convert_concat_v2(ctx: TFNodeContext) -> list[Value]:
    """Inputs: the values, then the axis."""
    count = len(ctx.inputs) - 1
    return [_concat(ctx, [ctx.input(i) for i in range(count)], count)]


@converts("Concat")
def convert_concat(ctx: TFNodeContext) -> list[Value]:
    """Inputs: the axis, then the values."""
    values = [ctx.input(i) for i in range(1, len(ctx.inputs))]
    return [_concat(ctx, values, 0)]


@converts("Pack")
def convert_pack(ctx: TFNodeContext) -> list[Value]:
    """Stack along a new `axis`."""
    rank = ctx.rank(0) + 1
    axis = normalize_axis(int(ctx.attr("axis", 0)), rank)
    values = [
        ctx.op("unsqueeze", ctx.input(i), axes=[axis], suffix=f"expand_{i}")
        for i in range(len(ctx.inputs))
    ]
    if len(values) == 1:
        return values
    return [ctx.op("concat", values, axis=axis)]


def _split(ctx: TFNodeContext, value: Value, axis: int, sizes: list[int]) -> list:
    results = ctx.op("split", value, axis=axis, sizes=sizes)
    return results if isinstance(results, list) else [results]


@converts("Split")
def convert_split(ctx: TFNodeContext) -> list[Value]:
    """Inputs (axis, value); `num_split` equal parts."""
    rank = ctx.rank(1)
    axis = normalize_axis(int_list(_required_constant(ctx, 0, "axis"))[0], rank)
    dim = ctx.shape(1)[axis]
    parts = int(ctx.required_attr("num_split"))
    if dim == -1:
        raise Unsupported("into parts of a dynamic dim")
    if parts < 1 or dim % parts:
        raise ValueError(f"cannot split dim {dim} into {parts} equal parts")
    return _split(ctx, ctx.input(1), axis, [dim // parts] * parts)


@converts("SplitV")
def convert_split_v(ctx: TFNodeContext) -> list[Value]:
    """Inputs (value, size_splits, axis); one size may be -1 (the rest)."""
    rank = ctx.rank(0)
    axis = normalize_axis(int_list(_required_constant(ctx, 2, "axis"))[0], rank)
    sizes = int_list(_required_constant(ctx, 1, "size_splits"))
    if -1 in sizes:
        dim = ctx.shape(0)[axis]
        if dim == -1:
            raise Unsupported("with an inferred size on a dynamic dim")
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    return _split(ctx, ctx.input(0), axis, sizes)


@converts("Unpack")
def convert_unpack(ctx: TFNodeContext) -> list[Value]:
    rank = ctx.rank(0)
    axis = normalize_axis(int(ctx.attr("axis", 0)), rank)
    count = ctx.shape(0)[axis]
    if count == -1:
        raise Unsupported("along a dynamic dim")
    parts = [ctx.input(0)]
    if count > 1:
        parts = _split(ctx, ctx.input(0), axis, [1] * count)
    return [
        ctx.op("squeeze", part, axes=[axis], suffix=f"part_{i}")
        for i, part in enumerate(parts)
    ]


PAD_MODES = {"REFLECT": "reflect"}


@converts("Pad", "PadV2", "MirrorPad")
def convert_pad(ctx: TFNodeContext) -> list[Value]:
    """`paddings` is [rank, 2] (before, after); PadV2 adds the fill value."""
    rank = ctx.rank(0)
    pairs = _required_constant(ctx, 1, "paddings").astype(np.int64)
    if pairs.shape != (rank, 2):
        raise ValueError(f"'paddings' must be [{rank}, 2], got {list(pairs.shape)}")
    mode, fill = "constant", 0.0
    if ctx.op_type == "MirrorPad":
        tf_mode = ctx.attr("mode", "REFLECT")
        if tf_mode not in PAD_MODES:
            raise Unsupported(f"with mode {tf_mode}")
        mode = PAD_MODES[tf_mode]
    elif ctx.op_type == "PadV2":
        fill = float(np.asarray(_required_constant(ctx, 2, "constant_values")))
    if not pairs.any():
        return [ctx.input(0)]
    paddings = int_list(pairs[:, 0]) + int_list(pairs[:, 1])
    return [ctx.op("pad", ctx.input(0), paddings=paddings, mode=mode, value=fill)]


@converts("Transpose")
def convert_transpose(ctx: TFNodeContext) -> list[Value]:
    perm = int_list(_required_constant(ctx, 1, "perm"))
    return [ctx.op("transpose", ctx.input(0), perm=perm)]


@converts("Tile")
def convert_tile(ctx: TFNodeContext) -> list[Value]:
    multiples = int_list(_required_constant(ctx, 1, "multiples"))
    return [ctx.op("tile", ctx.input(0), multiples=multiples)]


@converts("GatherV2", "Gather")
def convert_gather(ctx: TFNodeContext) -> list[Value]:
    """`Gather` is axis 0; `GatherV2` reads it (batch_dims must be 0)."""
    if ctx.attr("batch_dims", 0):
        raise Unsupported("with batch_dims")
    axis = 0
    if ctx.op_type == "GatherV2":
        axis = int_list(_required_constant(ctx, 2, "axis"))[0]
    axis = normalize_axis(axis, ctx.rank(0))
    check_indices(ctx.input(1), ctx.shape(0)[axis], axis, negative=False)
    return [ctx.op("gather", ctx.input(0), ctx.input(1), axis=axis)]


@converts("Slice")
def convert_slice(ctx: TFNodeContext) -> list[Value]:
    """Inputs (value, begin, size); a size of -1 runs to the end."""
    begin = int_list(_required_constant(ctx, 1, "begin"))
    size = int_list(_required_constant(ctx, 2, "size"))
    if len(begin) != ctx.rank(0) or len(size) != ctx.rank(0):
        raise ValueError("'begin' and 'size' need one entry per input axis")
    axes, begins, ends = [], [], []
    for axis, (b, s) in enumerate(zip(begin, size, strict=True)):
        if b == 0 and s == -1:
            continue
        axes.append(axis)
        begins.append(b)
        ends.append(np.iinfo(np.int64).max if s == -1 else b + s)
    if not axes:
        return [ctx.input(0)]
    return [
        ctx.op(
            "slice",
            ctx.input(0),
            begins=begins,
            ends=ends,
            axes=axes,
            steps=[1] * len(axes),
        )
    ]


def _mask_bits(mask: int, count: int) -> list[bool]:
    return [bool(mask >> i & 1) for i in range(count)]


def strided_slice_index(ctx: TFNodeContext) -> tuple:
    """StridedSlice's spec (begin, end, strides and the five masks) as a NumPy index."""
    begin = int_list(_required_constant(ctx, 1, "begin"))
    end = int_list(_required_constant(ctx, 2, "end"))
    strides = int_list(_required_constant(ctx, 3, "strides"))
    count = len(begin)
    if not len(end) == len(strides) == count:
        raise ValueError("'begin', 'end' and 'strides' differ in length")
    masks = {
        name: _mask_bits(int(ctx.attr(f"{name}_mask", 0)), count)
        for name in ("begin", "end", "ellipsis", "new_axis", "shrink_axis")
    }
    index: list = []
    for i in range(count):
        if masks["ellipsis"][i]:
            index.append(Ellipsis)
        elif masks["new_axis"][i]:
            index.append(None)
        elif masks["shrink_axis"][i]:
            index.append(begin[i])
        else:
            if strides[i] == 0:
                raise ValueError("'strides' cannot contain 0")
            index.append(
                builtins.slice(
                    None if masks["begin"][i] else begin[i],
                    None if masks["end"][i] else end[i],
                    strides[i],
                )
            )
    return tuple(index)


@converts("StridedSlice")
def convert_strided_slice(ctx: TFNodeContext) -> list[Value]:
    """NumPy indexing: slices, shrunk axes (an index), new axes and an ellipsis.

    An import-time input is indexed at once; otherwise the slices become
    `ge.slice` (static dims), shrunk axes a `ge.squeeze`, new axes a
    `ge.unsqueeze`.
    """
    index = strided_slice_index(ctx)
    x = ctx.input(0)
    if isinstance(x, np.ndarray):
        return [np.asarray(x[index])]
    shape = ctx.shape(0)
    if index.count(Ellipsis) > 1:
        raise ValueError("more than one ellipsis")
    if Ellipsis not in index:
        index = (*index, Ellipsis)
    at = index.index(Ellipsis)
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    if consumed > len(shape):
        raise ValueError(f"the slice has {consumed} axes, the input {len(shape)}")
    full = (
        *index[:at],
        *[builtins.slice(None)] * (len(shape) - consumed),
        *index[at + 1 :],
    )
    axes, begins, ends, steps, shrink, new = [], [], [], [], [], []
    axis = out_axis = 0
    for item in full:
        if item is None:
            new.append(out_axis)
            out_axis += 1
            continue
        dim = shape[axis]
        if isinstance(item, int):
            if dim == -1:
                raise Unsupported("indexing a dynamic dim")
            if not -dim <= item < dim:
                raise ValueError(f"index {item} is out of range for dim {dim}")
            axes.append(axis)
            begins.append(item % dim)
            ends.append(item % dim + 1)
            steps.append(1)
            shrink.append(axis)
        elif item != builtins.slice(None):
            if dim == -1:
                raise Unsupported("slicing a dynamic dim")
            start, stop, step = item.indices(dim)
            axes.append(axis)
            begins.append(start)
            ends.append(stop if stop >= 0 else -dim - 1)
            steps.append(step)
            out_axis += 1
        else:
            out_axis += 1
        axis += 1
    y = x
    if axes:
        suffix = "slice" if shrink or new else None
        y = ctx.op(
            "slice", y, begins=begins, ends=ends, axes=axes, steps=steps, suffix=suffix
        )
    if shrink:
        y = ctx.op("squeeze", y, axes=shrink, suffix="shrink" if new else None)
    if new:
        y = ctx.op("unsqueeze", y, axes=new)
    return [y]


# ---------------------------------------------------------------------------
# Shapes and constants (import-time values)
# ---------------------------------------------------------------------------


@converts("Shape")
def convert_shape(ctx: TFNodeContext) -> list[Value]:
    shape = ctx.static_shape(0)
    return [np.array(shape, dtype=ctx.dtype_attr("out_type"))]


@converts("Size")
def convert_size(ctx: TFNodeContext) -> list[Value]:
    shape = ctx.static_shape(0)
    return [np.array(int(np.prod(shape)), dtype=ctx.dtype_attr("out_type"))]


@converts("Rank")
def convert_rank(ctx: TFNodeContext) -> list[Value]:
    return [np.array(ctx.rank(0), dtype=np.int32)]


@converts("Fill")
def convert_fill(ctx: TFNodeContext) -> list[Value]:
    dims = int_list(_required_constant(ctx, 0, "dims"))
    value = _required_constant(ctx, 1, "value")
    check_fold_budget(dims, value.dtype)
    return [np.full(dims, value, dtype=value.dtype)]


@converts("ZerosLike", "OnesLike")
def convert_zeros_like(ctx: TFNodeContext) -> list[Value]:
    fill = 0 if ctx.op_type == "ZerosLike" else 1
    check_fold_budget(ctx.static_shape(0), ctx.dtype(0))
    return [np.full(ctx.static_shape(0), fill, dtype=ctx.dtype(0))]


@converts("Range")
def convert_range(ctx: TFNodeContext) -> list[Value]:
    start, limit, delta = (
        _required_constant(ctx, i, what)
        for i, what in enumerate(("start", "limit", "delta"))
    )
    if delta == 0:
        raise ValueError("delta must not be 0")
    dtype = np.dtype(ctx.dtype_attr("Tidx"))
    check_fold_budget([max(0, math.ceil((limit - start) / delta))], dtype)
    return [np.arange(start, limit, delta, dtype=dtype)]
