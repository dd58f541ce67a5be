"""ONNX QuantizeLinear and DequantizeLinear as a decomposition into `ge` ops.

`ge` has no quantize op: each node becomes the arithmetic ONNX's reference
defines, in casts and elementwise ops the JIT runs (exact: the same float32
operations in the same order):

    QuantizeLinear    y = cast(clip(cast(round(x / scale), f32) + zp, lo, hi), T)
                      float8 T: y = cast(x / scale, T, saturate)   (no zero point)
                      float4 T: y = cast(x / scale + zp, T)
    DequantizeLinear  y = cast((cast(x, f32) - cast(zp, f32)) * scale, out)
                      float8/float4 x: no zero point is subtracted

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

from collections.abc import Callable, Sequence

import numpy as np
import onnx

from ge_dialect.dtypes import FLOAT8_DTYPES, SATURATING_DTYPES
from ge_frontend.importing import Unsupported, Value, dtype_name_of, registrar
from ge_frontend.onnx_context import NodeContext

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""QuantizeLinear, DequantizeLinear -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)

INTEGER_RANGES = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "uint16": (0, 65535),
    "int16": (-32768, 32767),
    "uint4": (0, 15),
    "int4": (-8, 7),
    "uint2": (0, 3),
    "int2": (-2, 1),
}
"""Quantized integer dtype -> the range values are clipped to."""

NARROW_FLOATS = FLOAT8_DTYPES | {"float4_e2m1fn"}


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
    if target not in INTEGER_RANGES and target not in NARROW_FLOATS:
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
    if target in NARROW_FLOATS:
        scaled = as_float(ctx, scaled, "float32", "scaled/wide")
        if zero_point is not None:
            scaled = ctx.op("add", scaled, zero_point, suffix="shifted")
        return [ctx.op("cast", scaled, dst_type=target)]
    rounded = ctx.op("round", scaled, suffix="rounded")
    rounded = as_float(ctx, rounded, "float32", "rounded/wide")
    if zero_point is not None:
        rounded = ctx.op("add", rounded, zero_point, suffix="shifted")
    low, high = INTEGER_RANGES[target]
    clipped = ctx.op("clip", rounded, min=float(low), max=float(high), suffix="clipped")
    return [ctx.op("cast", clipped, dst_type=target)]


@converts("DequantizeLinear")
def convert_dequantize_linear(ctx: NodeContext) -> list[Value]:
    x_dtype, scale_dtype = ctx.dtype(0), ctx.dtype(1)
    compute = "float64" if scale_dtype == "float64" else "float32"
    x = as_float(ctx, ctx.input(0), compute, "x")
    if ctx.optional_input(2) is not None and x_dtype not in NARROW_FLOATS:
        zero_point = broadcast_parameter(ctx, 2, "zero_point", compute)
        x = ctx.op("sub", x, zero_point, suffix="centred")
    scale = broadcast_parameter(ctx, 1, "scale", compute)
    out = onnx_dtype(ctx, "output_dtype") or scale_dtype
    if out == compute:
        return [ctx.op("mul", x, scale)]
    return [ctx.op("cast", ctx.op("mul", x, scale, suffix="scaled"), dst_type=out)]
