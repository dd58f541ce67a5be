"""Lowering of `ge.col2im`: a gather-sum, one reduction nest.

Each image pixel `o` sums, over the block places `k`, the value whose block
position `g` puts it there: per axis `p = o + pad - k * dilation` must be a
non-negative multiple of the stride with `g = p / stride` inside the grid.
The value is `x[n, c * prod(block) + flat(k), flat(g)]`, loaded with
`memref.load` (a place that lands outside the image adds 0, its load
clamped to position 0):

```mlir
affine.for %n, %c, %o0, %o1, %k0, %k1 {
  %p0 = (%o0 + pad0 - %k0 * dil0)  ...  %valid = p >= 0, p % s == 0, p / s < grid
  %v = memref.load %x[%n, (%c * K + %k0 * B1 + %k1), select(%valid, flat(g), 0)]
  %a = affine.load %acc[%n, %c, %o0, %o1]
  affine.store (%a + select(%valid, %v, 0)), %acc[...]
}
```

The places add in block order, as the NumPy kernel adds them; floats
accumulate in float32 (float64 in float64), integers in their own type.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation

from ge_dialect.ops.blocks import ATTRIBUTES, Col2ImOp, Folding
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, compute_type, is_float
from passes.lowering.index import Ix
from passes.lowering.movement import is_row_major, row_major_copy
from passes.lowering.nn import accumulate, finish, initialise
from passes.lowering.registry import lowers


def row_major_strides(shape: tuple[int, ...]) -> list[int]:
    return [math.prod(shape[a + 1 :]) for a in range(len(shape))]


@lowers(Col2ImOp)
def lower_col2im(ctx: LoweringContext, op: Operation) -> None:
    """The gather-sum over block places (module docstring)."""
    (x,) = ctx.operands()
    if not is_row_major(x.layout):
        x = row_major_copy(ctx, x)
    y = ctx.result()
    folding = Folding.of({name: ctx.attr(name) for name in ATTRIBUTES})
    count = len(folding.block)
    n, channels = y.layout.origin_shape[:2]
    element = x.layout.element_type
    floating = is_float(element)
    if not floating and not isinstance(element, IntegerType):
        raise ctx.error(f"has no loop lowering for {element}")
    compute = compute_type(element)
    zero = 0.0 if floating else 0
    acc = (
        y
        if y.layout.element_type == compute
        else ctx.temporary(y.layout.retyped(compute))
    )
    initialise(ctx, acc, lambda nest, _: nest.const(zero, compute))
    place_strides = row_major_strides(folding.block)
    grid_strides = row_major_strides(folding.grid)
    index_type = IndexType()

    def term(nest: Nest, index: list[Ix]) -> Value:
        b, c = index[:2]
        pixel, place = index[2 : 2 + count], index[2 + count :]
        column = c * math.prod(folding.block)
        valid = nest.const(1, IntegerType(1))
        position = nest.const(0, index_type)
        for a in range(count):
            column = column + place[a] * place_strides[a]
            p = nest.index_value(
                pixel[a] + folding.pads[a] + place[a] * -folding.dilations[a]
            )
            stride = nest.const(folding.strides[a], index_type)
            g = p if folding.strides[a] == 1 else nest.op(arith.DivSIOp, p, stride)
            checks = [
                nest.op(arith.CmpiOp, p, nest.const(0, index_type), "sge"),
                nest.op(
                    arith.CmpiOp, g, nest.const(folding.grid[a], index_type), "slt"
                ),
            ]
            if folding.strides[a] != 1:
                remainder = nest.op(arith.RemSIOp, p, stride)
                checks.append(
                    nest.op(arith.CmpiOp, remainder, nest.const(0, index_type), "eq")
                )
            for check in checks:
                valid = nest.op(arith.AndIOp, valid, check)
            scaled = nest.op(arith.MuliOp, g, nest.const(grid_strides[a], index_type))
            position = nest.op(arith.AddiOp, position, scaled)
        at = nest.op(arith.SelectOp, valid, position, nest.const(0, index_type))
        raw = nest.load_at(x, [nest.index_value(b), nest.index_value(column), at])
        value = nest.convert(raw, compute)
        return nest.op(arith.SelectOp, valid, value, nest.const(zero, compute))

    add_op = arith.AddfOp if floating else arith.AddiOp
    accumulate(
        ctx,
        acc,
        (n, channels, *folding.image, *folding.block),
        lambda index: index[: 2 + count],
        term,
        lambda nest, a, b: nest.op(add_op, a, b),
    )
    finish(ctx, y, None, acc)
