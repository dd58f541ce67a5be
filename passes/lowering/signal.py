"""Lowerings of `ge.dft` and `ge.stft`: matrix products with twiddle tables.

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
from xdsl.dialects import arith
from xdsl.ir import Operation

from ge_dialect.ops.signal import DFTOp, STFTOp, dft_matrix, dft_samples
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, is_float
from passes.lowering.index import Ix
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
