"""Lowerings of `ge.dft`, `ge.stft` (matrix products with twiddle tables) and
`ge.mel_weight_matrix`.

`ge_dialect.ops.signal.dft_matrix` depends only on static shapes and
attributes, so it becomes a constant table W [out part, bin, in part,
sample] and the transform is one reduction (`passes.lowering.nn.Reduction`):

```mlir
// y[b, k, c, o] += W[o, k, q, j] * x[b, j, c, q]
%w = affine.load %W[%o, %k, %q, %j] : memref<2x6x1x10xf32>
%v = affine.load %x[%b, %j, %c, %q] : memref<1x10x10x1xf32>
%t = arith.mulf %w, %v : f32
```
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import f64 as f64_type
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation

from ge_dialect.ops.signal import (
    DFTOp,
    MelWeightMatrixOp,
    STFTOp,
    dft_matrix,
    dft_samples,
)
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.nn import Reduction, accumulator, reduce_to_result
from passes.lowering.registry import lowers


@lowers(DFTOp)
def lower_dft(ctx: LoweringContext, op: Operation) -> None:
    """`y[.., k, .., o] = sum_{q, j} W[o, k, q, j] x[.., j, .., q]` (module
    docstring); zeros when no input sample is read."""
    (x,) = ctx.operands()
    if not is_float(x.layout.element_type):
        raise ctx.error("has no loop lowering for integer element types")
    y = ctx.result()
    axis, length = int(ctx.attr("axis")), int(ctx.attr("length"))
    inverse, onesided = bool(ctx.attr("inverse")), bool(ctx.attr("onesided"))
    shape = x.layout.origin_shape
    samples = dft_samples(shape[axis], length, inverse, onesided)
    out = y.layout.origin_shape
    if 0 in out:
        return
    if samples == 0:
        ctx.emitter.for_each(out, lambda nest, i: nest.store(nest.const(0.0), y, i))
        return
    matrix = dft_matrix(samples, shape[-1], length, inverse, onesided)
    w = ctx.table(matrix.astype(np.float32))
    rank = len(out)

    def term(nest: Nest, index: list[Ix]) -> Value:
        at, (part, sample) = list(index[:rank]), index[rank:]
        weight = nest.load(w, [at[-1], at[axis], part, sample])
        at[axis], at[-1] = sample, part
        return nest.op(arith.MulfOp, weight, nest.load(x, at))

    def result_index(index: list[Ix]) -> list[Ix]:
        return index[:rank]

    reduction = Reduction(
        (*out, shape[-1], samples), frozenset({rank, rank + 1}), result_index, term
    )
    reduce_to_result(ctx, reduction, y, accumulator(ctx, y))


@lowers(STFTOp)
def lower_stft(ctx: LoweringContext, op: Operation) -> None:
    """`y[b, f, k, o] = sum_{q, j} W[o, k, q, j] x[b, f * step + j, q] w[j]`:
    the DFT's reduction over each frame, the window a factor of the term."""
    signal, *window = ctx.operands()
    if not is_float(signal.layout.element_type):
        raise ctx.error("has no loop lowering for integer element types")
    y = ctx.result()
    step, length = int(ctx.attr("frame_step")), int(ctx.attr("frame_length"))
    parts = signal.layout.origin_shape[2]
    matrix = dft_matrix(length, parts, length, False, bool(ctx.attr("onesided")))
    w = ctx.table(matrix.astype(np.float32))

    def term(nest: Nest, index: list[Ix]) -> Value:
        b, f, k, o, part, sample = index
        weight = nest.load(w, [o, k, part, sample])
        value = nest.load(signal, [b, f * step + sample, part])
        if window:
            value = nest.op(arith.MulfOp, value, nest.load(window[0], [sample]))
        return nest.op(arith.MulfOp, weight, value)

    reduction = Reduction(
        (*y.layout.origin_shape, parts, length),
        frozenset({4, 5}),
        lambda index: index[:4],
        term,
    )
    reduce_to_result(ctx, reduction, y, accumulator(ctx, y))


@lowers(MelWeightMatrixOp)
def lower_mel_weight_matrix(ctx: LoweringContext, op: Operation) -> None:
    """The filters' bins (`mel_points`, the same operations and dtypes),
    checked against the spectrogram, then each weight from its column's
    three bins."""
    count, length, rate, lower, upper = ctx.operands()
    y = ctx.result()
    spectrum, bins = y.layout.origin_shape
    points = ctx.temporary(plain_layout((bins + 2,), i64))

    def scalar(nest: Nest, buffer: Buffer) -> Value:
        return nest.load(buffer, [Ix.of(0)] * len(buffer.layout.origin_shape), raw=True)

    def point(nest: Nest, index: list[Ix]) -> None:
        def f64(value: Value) -> Value:
            return nest.convert(value, f64_type)

        def mel(edge: Buffer) -> Value:  # 2595 log1p(edge / 700) / log(10)
            value = scalar(nest, edge)
            ratio = nest.op(arith.DivfOp, value, nest.const(700.0, value.type))
            logged = nest.op(math.Log1pOp, ratio)
            scaled = nest.op(arith.MulfOp, nest.const(2595.0, value.type), logged)
            return nest.op(arith.DivfOp, f64(scaled), nest.const(np.log(10), f64_type))

        low, high = mel(lower), mel(upper)
        step = nest.op(
            arith.DivfOp,
            nest.op(arith.SubfOp, high, low),
            nest.const(float(bins + 2), f64_type),
        )
        m = f64(nest.op(arith.IndexCastOp, nest.index_value(index[0]), i64))
        mels = nest.op(arith.AddfOp, nest.op(arith.MulfOp, m, step), low)
        exponent = nest.op(
            arith.MulfOp,
            nest.op(arith.DivfOp, mels, nest.const(2595.0, f64_type)),
            nest.const(np.log(10), f64_type),
        )
        hertz = nest.op(
            arith.MulfOp, nest.const(700.0, f64_type), nest.op(math.ExpM1Op, exponent)
        )
        samples = scalar(nest, length)
        after = nest.op(arith.AddiOp, samples, nest.const(1, samples.type))
        total = nest.op(arith.MulfOp, f64(after), hertz)
        quotient = nest.op(arith.DivfOp, total, f64(scalar(nest, rate)))
        found = nest.convert(nest.op(math.FloorOp, quotient), i64)
        last = nest.op(  # the last point only bounds a range: it may be `spectrum`
            arith.CmpiOp,
            nest.index_value(index[0]),
            nest.index_value(Ix.of(bins + 1)),
            "eq",
        )
        bound = nest.op(
            arith.SelectOp,
            last,
            nest.const(spectrum + 1, i64),
            nest.const(spectrum, i64),
        )
        inside = nest.op(
            arith.AndIOp,
            nest.op(arith.CmpiOp, found, nest.const(0, i64), "sge"),
            nest.op(arith.CmpiOp, found, bound, "slt"),
        )
        message = f"the filters' bins fall outside the {spectrum} spectrogram bins"
        nest.check(inside, str(ctx.error(message)))
        nest.store(found, points, index)

    ctx.emitter.for_each((bins + 2,), point)

    def weight(nest: Nest, index: list[Ix]) -> None:
        j, i = index
        low, center, high = (nest.load(points, [i + k]) for k in range(3))
        at = nest.op(arith.IndexCastOp, nest.index_value(j), i64)

        def cmp(a: Value, b: Value, predicate: str) -> Value:
            return nest.op(arith.CmpiOp, a, b, predicate)

        def ratio(numerator: Value, denominator: Value) -> Value:
            return nest.op(
                arith.DivfOp,
                nest.convert(numerator, f64_type),
                nest.convert(denominator, f64_type),
            )

        def both(a: Value, b: Value) -> Value:
            return nest.op(arith.AndIOp, a, b)

        one, zero = nest.const(1.0, f64_type), nest.const(0.0, f64_type)
        coincide = cmp(center, low, "eq")
        rising = nest.op(
            arith.SelectOp,
            coincide,
            nest.op(arith.SelectOp, cmp(at, center, "eq"), one, zero),
            ratio(nest.op(arith.SubiOp, at, low), nest.op(arith.SubiOp, center, low)),
        )
        falling = ratio(
            nest.op(arith.SubiOp, high, at), nest.op(arith.SubiOp, high, center)
        )
        up = both(cmp(low, at, "sle"), cmp(at, center, "sle"))
        down = both(
            cmp(high, center, "sgt"), both(cmp(center, at, "sle"), cmp(at, high, "slt"))
        )
        value = nest.op(
            arith.SelectOp, down, falling, nest.op(arith.SelectOp, up, rising, zero)
        )
        nest.store(value, y, index)

    ctx.emitter.for_each((spectrum, bins), weight)
