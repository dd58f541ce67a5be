"""ONNX's quantization ops as a decomposition into `ge` ops.

`ge` has no quantize op: each node becomes the arithmetic ONNX's reference
defines, in casts and elementwise ops the JIT runs (exact: the same float32
operations in the same order):

    QuantizeLinear    y = cast(clip(cast(round(x / scale), f32) + zp, lo, hi), T)
                      float8 T: y = cast(x / scale, T, saturate)   (no zero point)
                      float4 T: y = cast(x / scale + zp, T)
    DequantizeLinear  y = cast((cast(x, f32) - cast(zp, f32)) * scale, out)
                      float8/float4 x: no zero point is subtracted

    MatMulInteger     (A - a_zp) @ (B - b_zp) in int32          (ConvInteger: conv)
    ConvInteger, symmetric int8 filter: conv(x, w) - x_zp * conv(1, w), the
                      8-bit x and w convolved as stored (GE's int8 Conv2D)
    QLinearMatMul     cast(clip(round(C * (s_a * s_b / s_y)) + y_zp, lo, hi), T)
                      C the int32 product above, the rest in float64
                      (QLinearConv: conv, plus the int32 bias, per channel)

The integer products are int32 matmuls/convolutions of the centred values,
accumulated in int32 by the kernels and the loops (exact at any length, as
onnxruntime's are).
`round` halves to even; `lo, hi` is T's range (int2 ... uint16). The scale
and zero point are a scalar (per tensor), a vector along `axis` (per axis)
or, with `block_size`, a tensor of x's rank whose `axis` dim counts blocks
(each element repeated `block_size` times along `axis`, the last block
possibly short). T is the zero point's dtype, else `output_dtype`, else
uint8; DequantizeLinear's result has the scale's dtype unless `output_dtype`
says otherwise. Where ONNX's reference overflows int32 (|x / scale| >= 2^31)
the decomposition saturates to T's range, as onnxruntime does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np
import onnx

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import NARROW_FLOAT_DTYPES, SATURATING_DTYPES
from ge_frontend.importing import (
    Unsupported,
    Value,
    dtype_name_of,
    registrar,
    shape_of,
)
from ge_frontend.onnx_context import NodeContext

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""The quantization ops -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)

QUANTIZED_INTEGERS = frozenset(
    {"uint8", "int8", "uint16", "int16", "uint4", "int4", "uint2", "int2"}
)
"""The integer dtypes ONNX quantizes to."""


def integer_range(dtype: str) -> tuple[float, float]:
    """The range quantized values of `dtype` are clipped to."""
    info = ml_dtypes.iinfo(numpy_dtype(dtype))
    return float(info.min), float(info.max)


def onnx_dtype(ctx: NodeContext, attribute: str) -> str | None:
    """The dtype name an ONNX element-type attribute names (None if unset)."""
    kind = ctx.attr(attribute, 0)
    if not kind:
        return None
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(kind)).name


def as_float(ctx: NodeContext, value: Value, dtype: str, what: str) -> Value:
    """`value` cast to `dtype` unless it already has it."""
    if dtype_name_of(value) == dtype:
        return value
    return ctx.op("cast", value, dst_type=dtype, suffix=what)


def broadcast_parameter(ctx: NodeContext, index: int, what: str, dtype: str) -> Value:
    """Input `index` (a scale or zero point) as `dtype`, shaped to broadcast
    onto x: as is (a scalar), one element, along `axis`, or repeated
    `block_size` times along `axis`."""
    value = as_float(ctx, ctx.input(index), dtype, f"{what}/wide")
    shape, x_shape = ctx.shape(index), ctx.shape(0)
    rank = len(x_shape)
    axis = ctx.attr("axis", 1)
    block = ctx.attr("block_size", 0)
    if len(shape) == 0:
        return value
    if -1 in shape:
        raise Unsupported(f"with a {what} of dynamic shape")
    if int(np.prod(shape)) == 1:
        return ctx.op("reshape", value, shape=[], suffix=f"{what}/scalar")
    if not -rank <= axis < rank:
        raise Unsupported(f"with axis {axis} out of range for rank {rank}")
    axis %= rank
    if not block:
        if len(shape) != 1:
            raise Unsupported(f"with a {what} of rank {len(shape)} and no block_size")
        dims = [1] * rank
        dims[axis] = shape[0]
        return ctx.op("reshape", value, shape=dims, suffix=f"{what}/axis")
    if block < 0 or len(shape) != rank or x_shape[axis] == -1:
        raise Unsupported(
            f"with block_size {block} and a {what} of shape {list(shape)}"
        )
    spread = ctx.op("unsqueeze", value, axes=[axis + 1], suffix=f"{what}/spread")
    multiples = [1] * (rank + 1)
    multiples[axis + 1] = block
    tiled = ctx.op("tile", spread, multiples=multiples, suffix=f"{what}/blocks")
    dims = list(shape)
    dims[axis] *= block
    flat = ctx.op("reshape", tiled, shape=dims, suffix=f"{what}/repeated")
    if dims[axis] == x_shape[axis]:
        return flat
    return ctx.op(
        "slice",
        flat,
        begins=[0],
        ends=[x_shape[axis]],
        axes=[axis],
        suffix=f"{what}/trimmed",
    )


@converts("QuantizeLinear")
def convert_quantize_linear(ctx: NodeContext) -> list[Value]:
    has_zero_point = ctx.optional_input(2) is not None
    target = ctx.dtype(2) if has_zero_point else onnx_dtype(ctx, "output_dtype")
    target = target or "uint8"
    if target not in QUANTIZED_INTEGERS and target not in NARROW_FLOAT_DTYPES:
        raise Unsupported(f"to {target}")
    x_dtype, scale_dtype = ctx.dtype(0), ctx.dtype(1)
    compute = onnx_dtype(ctx, "precision") or (
        x_dtype if x_dtype == scale_dtype else "float32"
    )
    x = as_float(ctx, ctx.input(0), compute, "x")
    scale = broadcast_parameter(ctx, 1, "scale", compute)
    scaled = ctx.op("div", x, scale, suffix="scaled")
    if target in SATURATING_DTYPES:
        saturate = bool(ctx.attr("saturate", 1))
        return [ctx.op("cast", scaled, dst_type=target, saturate=saturate)]
    zero_point = (
        broadcast_parameter(ctx, 2, "zero_point", "float32") if has_zero_point else None
    )
    if target in NARROW_FLOAT_DTYPES:
        scaled = as_float(ctx, scaled, "float32", "scaled/wide")
        if zero_point is not None:
            scaled = ctx.op("add", scaled, zero_point, suffix="shifted")
        return [ctx.op("cast", scaled, dst_type=target)]
    rounded = ctx.op("round", scaled, suffix="rounded")
    rounded = as_float(ctx, rounded, "float32", "rounded/wide")
    if zero_point is not None:
        rounded = ctx.op("add", rounded, zero_point, suffix="shifted")
    low, high = integer_range(target)
    clipped = ctx.op("clip", rounded, min=low, max=high, suffix="clipped")
    return [ctx.op("cast", clipped, dst_type=target)]


@converts("DequantizeLinear")
def convert_dequantize_linear(ctx: NodeContext) -> list[Value]:
    x_dtype, scale_dtype = ctx.dtype(0), ctx.dtype(1)
    compute = "float64" if scale_dtype == "float64" else "float32"
    x = as_float(ctx, ctx.input(0), compute, "x")
    if ctx.optional_input(2) is not None and x_dtype not in NARROW_FLOAT_DTYPES:
        zero_point = broadcast_parameter(ctx, 2, "zero_point", compute)
        x = ctx.op("sub", x, zero_point, suffix="centred")
    scale = broadcast_parameter(ctx, 1, "scale", compute)
    out = onnx_dtype(ctx, "output_dtype") or scale_dtype
    if out == compute:
        return [ctx.op("mul", x, scale)]
    return [ctx.op("cast", ctx.op("mul", x, scale, suffix="scaled"), dst_type=out)]


# ---------------------------------------------------------------------------
# Integer products: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv
# ---------------------------------------------------------------------------


def centred(ctx: NodeContext, index: int, zero_index: int, axis: int | None) -> Value:
    """Input `index` minus its zero point (input `zero_index`) in int32.
    A per-channel zero point (1-D with more than one element) applies along
    `axis`, a scalar or one element everywhere."""
    value = as_float(ctx, ctx.input(index), "int32", f"in{index}/wide")
    zero_point = ctx.optional_input(zero_index)
    if zero_point is None:
        return value
    zero_point = as_float(ctx, zero_point, "int32", f"in{zero_index}/wide")
    shape = ctx.shape(zero_index)
    if len(shape) == 1 and shape[0] != 1 and axis is not None:
        dims = [1] * ctx.rank(index)
        dims[axis] = shape[0]
        zero_point = ctx.op(
            "reshape", zero_point, shape=dims, suffix=f"in{zero_index}/axis"
        )
    return ctx.op("sub", value, zero_point, suffix=f"in{index}/centred")


def integer_product(
    ctx: NodeContext, op_type: str, operands: list[Value | None]
) -> Value:
    """The op `op_type` (MatMul, Conv) of this node's attributes on int32
    `operands`, by that op's converter."""
    from ge_frontend.onnx_ops import CONVERTERS as ONNX_CONVERTERS

    product = dataclasses.replace(ctx, inputs=operands, outputs_used=[True])
    (value,) = ONNX_CONVERTERS[op_type](product)
    return value


def requantized(
    ctx: NodeContext,
    product: Value,
    scales: tuple[int, int, int],
    zero_index: int,
    channel_axis: int | None,
) -> Value:
    """ONNX's requantization of an integer `product`: in float64 (as the
    reference computes it), `round(product * (s_a * s_b / s_y)) + zp`
    clipped to the output dtype's range (the zero point's, else input 0's)."""
    s_a, s_b, s_y = (ctx.input(i) for i in scales)
    multiplier = ctx.op("mul", s_a, s_b, suffix="scale/product")
    if channel_axis is not None and len(ctx.shape(scales[1])) == 1:
        dims = [1] * len(shape_of(product))
        dims[channel_axis] = ctx.shape(scales[1])[0]
        multiplier = ctx.op("reshape", multiplier, shape=dims, suffix="scale/axis")
    multiplier = ctx.op("div", multiplier, s_y, suffix="scale")
    wide = as_float(ctx, product, "float64", "product/wide")
    y = ctx.op(
        "mul",
        wide,
        as_float(ctx, multiplier, "float64", "scale/wide"),
        suffix="requantized",
    )
    y = ctx.op("round", y, suffix="rounded")
    target = (
        ctx.dtype(zero_index)
        if ctx.optional_input(zero_index) is not None
        else ctx.dtype(0)
    )
    if ctx.optional_input(zero_index) is not None:
        zero_point = as_float(ctx, ctx.input(zero_index), "float64", "zero_point/wide")
        y = ctx.op("add", y, zero_point, suffix="shifted")
    if target not in QUANTIZED_INTEGERS:
        raise Unsupported(f"to {target}")
    low, high = integer_range(target)
    y = ctx.op("clip", y, min=low, max=high, suffix="clipped")
    return ctx.op("cast", y, dst_type=target)


@converts("MatMulInteger")
def convert_matmul_integer(ctx: NodeContext) -> list[Value]:
    """(A - a_zp) @ (B - b_zp) in int32. a_zp per row, b_zp per column."""
    a = centred(ctx, 0, 2, ctx.rank(0) - 2 if ctx.rank(0) > 1 else None)
    b = centred(ctx, 1, 3, ctx.rank(1) - 1)
    return [integer_product(ctx, "MatMul", [a, b])]


@converts("QLinearMatMul")
def convert_qlinear_matmul(ctx: NodeContext) -> list[Value]:
    """`MatMulInteger` of a and b, requantized with y's scale and zero point."""
    a = centred(ctx, 0, 2, ctx.rank(0) - 2 if ctx.rank(0) > 1 else None)
    b = centred(ctx, 3, 5, ctx.rank(3) - 1)
    product = integer_product(ctx, "MatMul", [a, b])
    return [requantized(ctx, product, (1, 4, 6), 7, channel_axis=None)]


def zero_free(ctx: NodeContext, index: int) -> bool:
    """Whether optional input `index` (a zero point) is absent or known at
    import time to be all zeros."""
    value = ctx.optional_input(index)
    return value is None or (isinstance(value, np.ndarray) and not value.any())


def eight_bit_conv(
    ctx: NodeContext, x_index: int, x_zero: int, w_index: int, w_zero: int
) -> Value | None:
    """GE's int8 convolution (8-bit x and w stored as they are, NC1HWC0 and
    FRACTAL_Z with C0 = 32, summed in int32) of a symmetric filter (no zero
    point), x's zero point taken out after: conv(x, w) - x_zp * conv(1, w),
    where conv(1, w) (the filter sums over the taps inside the image, a
    constant) keeps the padding zero after centring. None (the centred int32
    convolution) for a filter with a zero point, or not 2-D."""
    dtypes = (ctx.dtype(x_index), ctx.dtype(w_index))
    if (
        not zero_free(ctx, w_zero)
        or ctx.rank(x_index) not in (3, 4)
        or not set(dtypes) <= {"int8", "uint8"}
    ):
        return None
    w = ctx.input(w_index)
    raw = integer_product(ctx, "Conv", [ctx.input(x_index), w])
    if zero_free(ctx, x_zero):
        return raw
    shape = ctx.shape(x_index)
    if -1 in shape[1:]:
        return None
    ones = np.ones((1, *shape[1:]), dtype=dtypes[0])
    coverage = integer_product(ctx, "Conv", [ones, w])
    zero_point = as_float(ctx, ctx.input(x_zero), "int32", f"in{x_zero}/wide")
    if ctx.shape(x_zero):
        zero_point = ctx.op("reshape", zero_point, shape=[], suffix="x_zp/scalar")
    shift = ctx.op("mul", coverage, zero_point, suffix="x_zp/taps")
    return ctx.op("sub", raw, shift, suffix="centred_product")


@converts("ConvInteger")
def convert_conv_integer(ctx: NodeContext) -> list[Value]:
    """Conv of (x - x_zp) and (w - w_zp) (w_zp per output channel) in int32:
    GE's int8 convolution for a symmetric filter (`eight_bit_conv`), else a
    convolution of the centred values. Padding is zero after centring (x's
    zero point before), as ONNX's reference pads."""
    product = eight_bit_conv(ctx, 0, 2, 1, 3)
    if product is not None:
        return [product]
    x = centred(ctx, 0, 2, None)
    w = centred(ctx, 1, 3, 0)
    return [integer_product(ctx, "Conv", [x, w])]


@converts("QLinearConv")
def convert_qlinear_conv(ctx: NodeContext) -> list[Value]:
    """`ConvInteger` of x and w (`eight_bit_conv` when w is symmetric) plus
    the int32 bias B (in float64, exact), requantized per output channel
    with y's scale and zero point."""
    product = eight_bit_conv(ctx, 0, 2, 3, 5)
    if product is None:
        x = centred(ctx, 0, 2, None)
        w = centred(ctx, 3, 5, 0)
        product = integer_product(ctx, "Conv", [x, w])
    product = as_float(ctx, product, "float64", "wide")
    if ctx.optional_input(8) is not None:
        bias = as_float(ctx, ctx.input(8), "float64", "bias/wide")
        dims = [1] * ctx.rank(0)
        dims[1] = ctx.shape(8)[0]
        bias = ctx.op("reshape", bias, shape=dims, suffix="bias/axis")
        product = ctx.op("add", product, bias, suffix="biased")
    return [requantized(ctx, product, (1, 4, 6), 7, channel_axis=1)]
