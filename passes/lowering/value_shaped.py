"""Lowerings of the ops whose result shape is an operand's value: `ge.fill`,
`ge.broadcast_to`, `ge.range` (`ge_dialect.ops.value_shaped`).

A loop function has static shapes only (`convert-ge-to-loops` refuses a
dynamic dim), so these lower where their result type is concrete: a
single-op kernel that host scheduling compiles for the
shape the operands' values gave at run time (`value_shapes`). The shape
operand is then not read; what stays data is read by the loops: the fill
value, the broadcast tensor, a range's start and delta (a kernel serves
every start and delta of its length).

```mlir
// ge.range %start, %limit, %delta -> tensor<5xf32>, compiled for length 5
affine.for %i = 0 to 5 {
  %s = affine.load %start[] ; %d = affine.load %delta[]
  %f = arith.sitofp (arith.index_cast %i) : f32
  affine.store (%s + %f * %d), %y[%i]
}
```
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i64
from xdsl.ir import Operation

from ge_dialect.ops import BroadcastToOp, FillOp, RangeOp
from passes.lowering.context import LoweringContext, broadcast_index
from passes.lowering.emitter import Buffer, Nest, Value, compute_type, is_float
from passes.lowering.index import Ix
from passes.lowering.movement import copy
from passes.lowering.registry import lowers


def _scalar_index(buffer: Buffer) -> list[Ix]:
    """The index of the one element of a scalar-like buffer."""
    return [Ix.of(0)] * len(buffer.layout.origin_shape)


@lowers(FillOp)
def lower_fill(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = value` (the dims operand gave y's shape)."""
    _, value = ctx.operands()
    y = ctx.result()

    def body(nest: Nest, index: list[Ix]) -> None:
        nest.store(nest.load(value, _scalar_index(value), raw=True), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


@lowers(BroadcastToOp)
def lower_broadcast_to(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = x[i broadcast to x's shape]` (NumPy broadcasting)."""
    x, _ = ctx.operands()
    y = ctx.result()
    shape = x.layout.origin_shape
    copy(
        ctx,
        x,
        y,
        y.layout.origin_shape,
        lambda index: broadcast_index(index, shape),
    )


@lowers(RangeOp)
def lower_range(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = start + i * delta` (ONNX Range: the limit gave y's length),
    in the compute type of the element type (f32 for 16-bit floats)."""
    start, _, delta = ctx.operands()
    y = ctx.result()
    element = y.layout.element_type
    if not is_float(element) and not (
        isinstance(element, IntegerType) and element.width.data > 1
    ):
        raise ctx.error(f"has no loop lowering for {element}")
    compute = compute_type(element)
    multiply, add = (
        (arith.MulfOp, arith.AddfOp)
        if is_float(compute)
        else (arith.MuliOp, arith.AddiOp)
    )

    def body(nest: Nest, index: list[Ix]) -> None:
        first = nest.load(start, _scalar_index(start))
        step = nest.load(delta, _scalar_index(delta))
        position = nest.op(arith.IndexCastOp, nest.index_value(index[0]), i64)
        offset: Value = nest.op(multiply, nest.convert(position, compute), step)
        nest.store(nest.op(add, first, offset), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)
