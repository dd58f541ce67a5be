"""Lowering of `ge.resize`: one gather-and-weigh pass per resampled axis.

An axis resamples as taps (`ge_dialect.ops.image.interpolation_taps`, the
op's own definition): output index `i` reads input indices `I[i, t]` with
weights `W[i, t]`. Both depend only on the static shapes and attributes, so
they are computed at compile time into constant tables (`memref.global`)
and each pass is a loop nest over the pass's output:

```mlir
// one axis of a linear resize 5 -> 8 (two taps)
%i0 = affine.load %I[%i, 0] : memref<8x2xi64>
%k0 = arith.index_cast %i0 : i64 to index
%v0 = memref.load %x[%a, %k0] : memref<3x5xf32>
%w0 = affine.load %W[%i, 0] : memref<8x2xf32>
%t0 = arith.mulf %v0, %w0 : f32
...                                  // tap 1, summed
affine.store %sum, %y[%a, %i] : memref<3x8xf32>
```

Passes run axis after axis through row-major float32 scratch buffers (an
input in another layout is first copied into one); the last writes the
result in its layout. `tf_crop_and_resize` outputs whose coordinate falls
outside the input take `extrapolation_value` (per-axis tables of i1).
Nearest taps have weight 1: no multiply. Float element types only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Operation

from ge_dialect.ops import ResizeOp
from ge_dialect.ops.image import interpolation_taps
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.movement import copy, is_row_major
from passes.lowering.registry import lowers


def _resample(
    ctx: LoweringContext,
    source: Buffer,
    target: Buffer,
    axis: int,
    indices: np.ndarray,
    weights: np.ndarray,
) -> None:
    """`target[.., i, ..] = sum_t W[i, t] * source[.., I[i, t], ..]` along `axis`."""
    index_table = ctx.table(indices.astype(np.int64))
    unit = bool(np.all(weights == 1))
    weight_table = None if unit else ctx.table(weights.astype(np.float32))

    def body(nest: Nest, index: list[Ix]) -> None:
        total: Value | None = None
        for tap in range(indices.shape[1]):
            raw = nest.load(index_table, [index[axis], Ix.of(tap)], raw=True)
            position = nest.op(arith.IndexCastOp, raw, IndexType())
            at = [
                position if k == axis else nest.index_value(ix)
                for k, ix in enumerate(index)
            ]
            value = nest.convert(nest.load_at(source, at), f32)
            if weight_table is not None:
                weight = nest.load(weight_table, [index[axis], Ix.of(tap)])
                value = nest.op(arith.MulfOp, value, weight)
            total = value if total is None else nest.op(arith.AddfOp, total, value)
        assert total is not None
        nest.store(total, target, index)

    ctx.emitter.for_each(target.layout.origin_shape, body)


def _extrapolate(
    ctx: LoweringContext,
    source: Buffer,
    target: Buffer,
    outside: Sequence[tuple[int, np.ndarray]],
    value: float,
) -> None:
    """`target = source`, except `value` where some axis's output is outside."""
    masks = [(axis, ctx.table(mask.astype(np.bool_))) for axis, mask in outside]

    def body(nest: Nest, index: list[Ix]) -> None:
        result = nest.load(source, index)
        fill = nest.const(value, result.type)
        for axis, mask in masks:
            flag = nest.load(mask, [index[axis]], raw=True)
            result = nest.op(arith.SelectOp, flag, fill, result)
        nest.store(result, target, index)

    ctx.emitter.for_each(target.layout.origin_shape, body)


@lowers(ResizeOp)
def lower_resize(ctx: LoweringContext, op: Operation) -> None:
    """Axis-by-axis taps through constant index and weight tables (module
    docstring)."""
    (x,) = ctx.operands()
    y = ctx.result()
    if not is_float(x.layout.element_type):
        raise ctx.error("has no loop lowering for integer element types")
    in_shape, out_shape = x.layout.origin_shape, y.layout.origin_shape
    rank = len(in_shape)
    scales = ctx.attr("scales")
    roi = list(ctx.attr("roi")) if "roi" in op.attributes else []
    interpolation = {
        name: ctx.attr(name)
        for name in (
            "mode",
            "coordinate_transformation_mode",
            "nearest_mode",
            "cubic_coeff_a",
        )
    }
    interpolation["exclude_outside"] = bool(ctx.attr("exclude_outside"))
    interpolation["antialias"] = bool(ctx.attr("antialias"))
    if 0 in out_shape:
        return
    if 0 in in_shape:  # nothing to read: the reference gives zeros
        ctx.emitter.for_each(
            out_shape, lambda nest, index: nest.store(nest.const(0.0), y, index)
        )
        return
    axes = []
    outside = []
    for axis in range(rank):
        span = (roi[axis], roi[rank + axis]) if roi else (0.0, 1.0)
        indices, weights, mask = interpolation_taps(
            in_shape[axis],
            out_shape[axis],
            scales[axis],
            roi=span,
            **interpolation,  # type: ignore[arg-type]
        )
        if mask is not None and mask.any():
            outside.append((axis, mask))
        identity = indices.shape[1] == 1 and np.array_equal(
            indices[:, 0], np.arange(in_shape[axis])
        )
        if not (identity and np.all(weights == 1)):
            axes.append((axis, indices, weights))
    source = x
    if not is_row_major(x.layout) and axes:
        source = ctx.temporary(plain_layout(in_shape, x.layout.element_type))
        copy(ctx, x, source, in_shape)
    shape = list(in_shape)
    for number, (axis, indices, weights) in enumerate(axes):
        shape[axis] = out_shape[axis]
        last = number == len(axes) - 1 and not outside
        target = y if last else ctx.temporary(plain_layout(shape, f32))
        _resample(ctx, source, target, axis, indices, weights)
        source = target
    if outside:
        _extrapolate(ctx, source, y, outside, float(ctx.attr("extrapolation_value")))
    elif not axes:
        copy(ctx, x, y, out_shape)
