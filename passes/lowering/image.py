"""Lowerings of `ge.resize` (one gather-and-weigh pass per resampled axis),
`ge.grid_sample` and `ge.roi_align` (per-axis tap tables computed from the
data at run time, then one gather nest over the result).

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
Nearest taps have weight 1: no multiply. Floats compute in float32;
integers gather exactly (nearest) or compute in float64 and are rounded
half to even and clamped into their type at the end, as ONNX's reference
(`resize_array`) does.

`ge.grid_sample` reads its coordinates from data, so its taps are computed
in the loops: per spatial axis, a nest over [N, O1..Or] turns the grid's
coordinate into pixel indices (i64, clamped into the input; -1 where
`zeros` padding reads outside, a tap that reads 0) and weights (f32, 0
there too) in two scratch tables
[N, O1..Or, taps], exactly as `ge_dialect.ops.image.grid_axis_taps` does;
then a nest over the result sums, for every combination of one tap per
axis, the product of the weights times the gathered pixel:

```mlir
%i0 = affine.load %rows[%n, %oh, %ow, 0] : memref<1x4x6x2xi64>
%w0 = affine.load %rows_w[%n, %oh, %ow, 0] : memref<1x4x6x2xf32>
...
%v = memref.load %x[%n, %c, %h0, %w0i] : memref<1x3x5x5xf32>
```
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, f32, f64, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.ops import ResizeOp
from ge_dialect.ops.image import (
    GRID_CUBIC_A,
    GridSampleOp,
    RoiAlignOp,
    grid_bounds,
    integer_fill,
    interpolation_taps,
)
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.movement import copy, is_row_major, row_major_copy
from passes.lowering.registry import lowers


def _resample(
    ctx: LoweringContext,
    source: Buffer,
    target: Buffer,
    axis: int,
    indices: np.ndarray,
    weights: np.ndarray,
    compute: Attribute | None,
) -> None:
    """`target[.., i, ..] = sum_t W[i, t] * source[.., I[i, t], ..]` along
    `axis`, in float type `compute` (None: a gather of unit taps in the
    element type itself, exact for integers)."""
    index_table = ctx.table(indices.astype(np.int64))
    unit = bool(np.all(weights == 1))
    weight_dtype = np.float64 if compute == f64 else np.float32
    weight_table = None if unit else ctx.table(weights.astype(weight_dtype))

    def body(nest: Nest, index: list[Ix]) -> None:
        total: Value | None = None
        for tap in range(indices.shape[1]):
            raw = nest.load(index_table, [index[axis], Ix.of(tap)], raw=True)
            position = nest.op(arith.IndexCastOp, raw, IndexType())
            at = [
                position if k == axis else nest.index_value(ix)
                for k, ix in enumerate(index)
            ]
            value = nest.load_at(source, at)
            if compute is not None:
                value = nest.convert(value, compute)
            if weight_table is not None:
                weight = nest.load(weight_table, [index[axis], Ix.of(tap)])
                value = nest.op(arith.MulfOp, value, weight)
            total = value if total is None else nest.op(arith.AddfOp, total, value)
        assert total is not None
        nest.store(total, target, index)

    ctx.emitter.for_each(target.layout.origin_shape, body)


def _round_back(ctx: LoweringContext, source: Buffer, target: Buffer) -> None:
    """`target = clip(rint(source), min, max)` in its integer type (the
    float64 result of an integer resize, as ONNX's reference rounds it)."""
    info = np.iinfo(numpy_dtype(dtype_name(target.layout.element_type)))

    def body(nest: Nest, index: list[Ix]) -> None:
        value = nest.op(math.RoundEvenOp, nest.load(source, index))
        value = nest.op(arith.MaximumfOp, value, nest.const(float(info.min), f64))
        value = nest.op(arith.MinimumfOp, value, nest.const(float(info.max), f64))
        nest.store(nest.convert(value, target.layout.element_type), target, index)

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
    element = x.layout.element_type
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
        zero = 0.0 if is_float(element) else 0
        ctx.emitter.for_each(
            out_shape,
            lambda nest, index: nest.store(nest.const(zero, element), y, index),
        )
        return
    # floats: in float32; integers: nearest gathers exactly, other modes in
    # float64 (as the kernel), rounded back at the end (`_round_back`)
    exact = not is_float(element) and interpolation["mode"] == "nearest"
    compute = f32 if is_float(element) else None if exact else f64
    scratch = element if exact else compute
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
        source = row_major_copy(ctx, x)
    rounded = compute == f64  # the result is float64 until `_round_back`
    shape = list(in_shape)
    for number, (axis, indices, weights) in enumerate(axes):
        shape[axis] = out_shape[axis]
        last = number == len(axes) - 1 and not outside and not rounded
        target = y if last else ctx.temporary(plain_layout(shape, scratch))
        _resample(ctx, source, target, axis, indices, weights, compute)
        source = target
    fill = float(ctx.attr("extrapolation_value"))
    if outside:
        target = ctx.temporary(plain_layout(out_shape, scratch)) if rounded else y
        if exact:  # an integer result takes the fill as the kernel rounds it
            fill = integer_fill(fill, numpy_dtype(dtype_name(element)))
        _extrapolate(ctx, source, target, outside, fill)
        source = target
    if rounded and axes:
        _round_back(ctx, source, y)
    elif not axes and not outside:
        copy(ctx, x, y, out_shape)


# ---------------------------------------------------------------------------
# Grid sampling
# ---------------------------------------------------------------------------

TAPS = {"nearest": 1, "linear": 2, "cubic": 4}


class Scalars:
    """f32 arithmetic at one point of a nest, named as it reads."""

    def __init__(self, nest: Nest):
        self.nest = nest

    def c(self, value: float) -> Value:
        return self.nest.const(float(value))

    def add(self, a: Value, b: Value) -> Value:
        return self.nest.op(arith.AddfOp, a, b)

    def sub(self, a: Value, b: Value) -> Value:
        return self.nest.op(arith.SubfOp, a, b)

    def mul(self, a: Value, b: Value) -> Value:
        return self.nest.op(arith.MulfOp, a, b)

    def floor(self, a: Value) -> Value:
        return self.nest.op(math.FloorOp, a)

    def less(self, a: Value, b: Value) -> Value:
        return self.nest.op(arith.CmpfOp, a, b, "olt")

    def select(self, condition: Value, a: Value, b: Value) -> Value:
        return self.nest.op(arith.SelectOp, condition, a, b)

    def either(self, a: Value, b: Value) -> Value:
        return self.nest.op(arith.OrIOp, a, b)

    def reflect(self, x: Value, lo: float, hi: float) -> Value:
        """`reflect_coordinates`: x folded into [lo, hi] at its ends."""
        span = hi - lo
        if span <= 0:
            return self.c(lo)
        below, above = self.less(x, self.c(lo)), self.less(self.c(hi), x)
        dx = self.select(below, self.sub(self.c(lo), x), self.sub(x, self.c(hi)))
        folds = self.floor(self.nest.op(arith.DivfOp, dx, self.c(span)))
        rest = self.sub(dx, self.mul(folds, self.c(span)))
        halved = self.mul(folds, self.c(0.5))
        odd = self.nest.op(arith.CmpfOp, self.floor(halved), halved, "une")
        from_lo, from_hi = self.add(self.c(lo), rest), self.sub(self.c(hi), rest)
        inside = self.select(
            below,
            self.select(odd, from_hi, from_lo),
            self.select(odd, from_lo, from_hi),
        )
        return self.select(self.either(below, above), inside, x)

    def cubic_weights(self, t: Value) -> list[Value]:
        """`grid_cubic_weights`: Keys' weights of taps -1, 0, 1, 2."""
        a = GRID_CUBIC_A

        def near(u: Value) -> Value:
            inner = self.sub(self.mul(self.c(a + 2), u), self.c(a + 3))
            return self.add(self.mul(self.mul(inner, u), u), self.c(1))

        def far(u: Value) -> Value:
            inner = self.sub(self.mul(self.c(a), u), self.c(5 * a))
            inner = self.add(self.mul(inner, u), self.c(8 * a))
            return self.sub(self.mul(inner, u), self.c(4 * a))

        return [
            far(self.add(t, self.c(1))),
            near(t),
            near(self.sub(self.c(1), t)),
            far(self.sub(self.c(2), t)),
        ]


def _grid_axis_tables(
    ctx: LoweringContext,
    grid: Buffer,
    component: int,
    length: int,
    attrs: tuple[str, str, bool],
) -> tuple[Buffer, Buffer]:
    """Index (i64) and weight (f32) tables [N, O1..Or, taps] of one axis
    whose normalised coordinates are `grid[..., component]`."""
    mode, padding_mode, align_corners = attrs
    points = grid.layout.origin_shape[:-1]
    count = TAPS[mode]
    indices = ctx.temporary(plain_layout((*points, count), i64))
    weights = ctx.temporary(plain_layout((*points, count), f32))
    lo, hi = grid_bounds(length, align_corners)

    def body(nest: Nest, index: list[Ix]) -> None:
        f = Scalars(nest)
        n = f.add(nest.load(grid, [*index, Ix.of(component)]), f.c(1))
        if align_corners:
            x = f.mul(f.mul(n, f.c(0.5)), f.c(length - 1))
        else:
            x = f.mul(f.sub(f.mul(n, f.c(length)), f.c(1)), f.c(0.5))
        if mode == "nearest":
            x = nest.op(math.RoundEvenOp, x)
        if padding_mode == "border":
            outside = f.either(f.less(x, f.c(lo)), f.less(f.c(hi), x))
            x = f.select(outside, clamped(nest, x, length), x)
        elif padding_mode == "reflection":
            x = f.reflect(x, lo, hi)
        if mode == "nearest":
            positions, taps = [x], [f.c(1)]
        else:
            start = f.floor(x)
            t = f.sub(x, start)
            if mode == "linear":
                positions = [start, f.add(start, f.c(1))]
                taps = [f.sub(f.c(1), t), t]
            else:
                positions = [f.add(start, f.c(k)) for k in (-1, 0, 1, 2)]
                taps = f.cubic_weights(t)
        for k, (position, weight) in enumerate(zip(positions, taps, strict=True)):
            if padding_mode == "zeros":
                valid = nest.op(
                    arith.AndIOp,
                    nest.op(arith.CmpfOp, position, f.c(0), "oge"),
                    f.less(position, f.c(length)),
                )
                weight = f.select(valid, weight, f.c(0))
            elif padding_mode == "reflection":
                position = nest.op(math.TruncOp, f.reflect(position, lo, hi))
            at = [*index, Ix.of(k)]
            found = nest.convert(clamped(nest, position, length), i64)
            if padding_mode == "zeros":  # -1: outside, reads 0
                found = nest.op(arith.SelectOp, valid, found, nest.const(-1, i64))
            nest.store(found, indices, at)
            nest.store(weight, weights, at)

    ctx.emitter.for_each(points, body)
    return indices, weights


def clamped(nest: Nest, position: Value, length: int) -> Value:
    """`clamp_index`: a position in [0, length - 1] (NaN: 0)."""
    f = Scalars(nest)
    upper = nest.op(arith.MinimumfOp, position, f.c(length - 1))
    return f.select(nest.op(arith.CmpfOp, position, f.c(0), "oge"), upper, f.c(0))


@lowers(GridSampleOp)
def lower_grid_sample(ctx: LoweringContext, op: Operation) -> None:
    """Tap tables per axis, then a weighted gather over the result (module
    docstring)."""
    x, grid = ctx.operands()
    y = ctx.result()
    if not (is_float(x.layout.element_type) and is_float(grid.layout.element_type)):
        raise ctx.error("has no loop lowering for integer element types")
    _, _, *sizes = x.layout.origin_shape
    rank = len(sizes)
    if 0 in y.layout.origin_shape:
        return
    if 0 in sizes:  # nothing to read: zeros, as the reference gives
        ctx.emitter.for_each(
            y.layout.origin_shape,
            lambda nest, index: nest.store(nest.const(0.0), y, index),
        )
        return
    attrs = (
        str(ctx.attr("mode")),
        str(ctx.attr("padding_mode")),
        bool(ctx.attr("align_corners")),
    )
    source = x if is_row_major(x.layout) else row_major_copy(ctx, x)
    tables = [
        _grid_axis_tables(ctx, grid, rank - 1 - axis, sizes[axis], attrs)
        for axis in range(rank)
    ]
    unit = attrs[0] == "nearest" and attrs[1] != "zeros"

    def body(nest: Nest, index: list[Ix]) -> None:
        batch, channel, *point = index
        taps = []  # per axis, per tap: (index value, weight or None)
        for indices, weights in tables:
            loaded = []
            for k in range(TAPS[attrs[0]]):
                where = [batch, *point, Ix.of(k)]
                raw = nest.load(indices, where, raw=True)
                inside = nest.op(arith.CmpiOp, raw, nest.const(0, i64), "sge")
                raw = nest.op(arith.MaxSIOp, raw, nest.const(0, i64))
                position = nest.op(arith.IndexCastOp, raw, IndexType())
                weight = None if unit else nest.load(weights, where)
                loaded.append((position, weight, inside))
            taps.append(loaded)
        leading = [nest.index_value(batch), nest.index_value(channel)]
        total: Value | None = None
        for combination in itertools.product(*taps):
            weight: Value | None = None
            for _, w, _ in combination:
                if w is not None:
                    weight = w if weight is None else nest.op(arith.MulfOp, weight, w)
            at = [*leading, *(position for position, _, _ in combination)]
            value = nest.convert(nest.load_at(source, at), f32)
            if attrs[1] == "zeros":  # a pixel outside reads 0 (not 0 * its clamp)
                inside = combination[0][2]
                for _, _, more in combination[1:]:
                    inside = nest.op(arith.AndIOp, inside, more)
                value = nest.op(arith.SelectOp, inside, value, nest.const(0.0))
            if weight is not None:
                value = nest.op(arith.MulfOp, weight, value)
            total = value if total is None else nest.op(arith.AddfOp, total, value)
        assert total is not None
        nest.store(total, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


# ---------------------------------------------------------------------------
# Region of interest alignment
# ---------------------------------------------------------------------------


def _as_float(nest: Nest, ix: Ix) -> Value:
    """A loop index as f32."""
    raw = nest.op(arith.IndexCastOp, nest.index_value(ix), i64)
    return nest.convert(raw, f32)


def _roi_axis_tables(
    ctx: LoweringContext,
    rois: Buffer,
    columns: tuple[int, int],
    geometry: tuple[int, int, int],
    attrs: tuple[float, bool],
) -> tuple[Buffer, Buffer]:
    """`roi_axis_taps` in loops: index (i64) and weight (f32) tables
    [R, bins, grid, 2] of the axis whose roi bounds are `rois[:, columns]`
    (`geometry`: bins, grid, input length; `attrs`: scale, half_pixel)."""
    bins, grid, length = geometry
    scale, half_pixel = attrs
    points = (rois.layout.origin_shape[0], bins, grid)
    indices = ctx.temporary(plain_layout((*points, 2), i64))
    weights = ctx.temporary(plain_layout((*points, 2), f32))
    offset = 0.5 if half_pixel else 0.0

    def body(nest: Nest, index: list[Ix]) -> None:
        f = Scalars(nest)
        roi, bin_index, sample = index
        start, end = (
            f.sub(f.mul(nest.load(rois, [roi, Ix.of(k)]), f.c(scale)), f.c(offset))
            for k in columns
        )
        size = f.sub(end, start)
        if not half_pixel:
            size = nest.op(arith.MaximumfOp, size, f.c(1))
        step = nest.op(arith.DivfOp, size, f.c(bins))
        within = f.mul(f.add(_as_float(nest, sample), f.c(0.5)), step)
        x = f.add(
            f.add(start, f.mul(_as_float(nest, bin_index), step)),
            nest.op(arith.DivfOp, within, f.c(grid)),
        )
        valid = nest.op(
            arith.AndIOp,
            nest.op(arith.CmpfOp, x, f.c(-1), "oge"),
            nest.op(arith.CmpfOp, x, f.c(length), "ole"),
        )
        x = nest.op(arith.MaximumfOp, x, f.c(0))
        low = f.floor(x)
        edge = nest.op(arith.CmpfOp, low, f.c(length - 1), "oge")
        low = f.select(edge, f.c(length - 1), low)
        high = f.select(edge, low, f.add(low, f.c(1)))
        fraction = f.select(edge, f.c(0), f.sub(x, low))
        taps = ((low, f.sub(f.c(1), fraction)), (high, fraction))
        for k, (position, weight) in enumerate(taps):
            at = [*index, Ix.of(k)]
            nest.store(nest.convert(position, i64), indices, at)
            nest.store(f.select(valid, weight, f.c(0)), weights, at)

    ctx.emitter.for_each(points, body)
    return indices, weights


@lowers(RoiAlignOp)
def lower_roi_align(ctx: LoweringContext, op: Operation) -> None:
    """Tap tables for H and W per roi, then per output element the average
    (or the largest weighted corner) over the bin's sample points."""
    x, rois, batch_indices = ctx.operands()
    y = ctx.result()
    if not (is_float(x.layout.element_type) and is_float(rois.layout.element_type)):
        raise ctx.error("has no loop lowering for integer element types")
    sampling_ratio = int(ctx.attr("sampling_ratio"))
    if sampling_ratio == 0:
        raise ctx.error(
            "has no loop lowering for sampling_ratio 0 (the sample count "
            "depends on the rois' sizes)"
        )
    if 0 in y.layout.origin_shape:
        return
    _, _, height, width = x.layout.origin_shape
    attrs = (
        float(ctx.attr("spatial_scale")),
        ctx.attr("coordinate_transformation_mode") == "half_pixel",
    )
    bins = (int(ctx.attr("output_height")), int(ctx.attr("output_width")))
    rows = _roi_axis_tables(ctx, rois, (1, 3), (bins[0], sampling_ratio, height), attrs)
    columns = _roi_axis_tables(
        ctx, rois, (0, 2), (bins[1], sampling_ratio, width), attrs
    )
    source = x if is_row_major(x.layout) else row_major_copy(ctx, x)
    average = ctx.attr("mode") == "avg"
    grid = range(sampling_ratio)

    def taps(nest: Nest, table: tuple[Buffer, Buffer], at: list[Ix]) -> list:
        indices, weights = table
        loaded = []
        for sample in grid:
            corners = []
            for k in range(2):
                where = [*at, Ix.of(sample), Ix.of(k)]
                raw = nest.load(indices, where, raw=True)
                position = nest.op(arith.IndexCastOp, raw, IndexType())
                corners.append((position, nest.load(weights, where)))
            loaded.append(corners)
        return loaded

    def body(nest: Nest, index: list[Ix]) -> None:
        roi, channel, out_h, out_w = index
        raw = nest.load(batch_indices, [roi], raw=True)
        image = nest.op(arith.IndexCastOp, raw, IndexType())
        leading = [image, nest.index_value(channel)]
        row_taps = taps(nest, rows, [roi, out_h])
        column_taps = taps(nest, columns, [roi, out_w])
        result: Value | None = None
        for row_corners in row_taps:
            for column_corners in column_taps:
                sample: Value | None = None
                for (r, wr), (c, wc) in itertools.product(row_corners, column_corners):
                    pixel = nest.convert(nest.load_at(source, [*leading, r, c]), f32)
                    term = nest.op(arith.MulfOp, nest.op(arith.MulfOp, wr, wc), pixel)
                    if sample is None:
                        sample = term
                    elif average:
                        sample = nest.op(arith.AddfOp, sample, term)
                    else:
                        sample = nest.op(arith.MaximumfOp, sample, term)
                assert sample is not None
                if result is None:
                    result = sample
                else:
                    combine = arith.AddfOp if average else arith.MaximumfOp
                    result = nest.op(combine, result, sample)
        assert result is not None
        if average:
            result = nest.op(arith.DivfOp, result, nest.const(float(sampling_ratio**2)))
        nest.store(result, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)
