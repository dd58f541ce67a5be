"""Lowering of `ge.range`, whose length is an operand's value.

Its result shape is known once start, limit and delta are (the host
schedules it then, see `RangeOp.value_shapes`): one nest computes ONNX's
`start + i * delta` per element, in the compute type (float32 for the 16-bit
floats, the integer type for integers), not by repeated addition.

```mlir
affine.for %i = 0 to 4 {
  %first = affine.load %start[]
  %step = affine.load %delta[]
  %k = arith.sitofp (arith.index_cast %i)
  affine.store (%first + %k * %step), %y[%i]
}
```
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation

from ge_dialect.ops.value_shaped import RangeOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.registry import lowers


def _scalar(nest: Nest, buffer: Buffer) -> Value:
    """The one element of a scalar (or one-element) operand."""
    return nest.load(buffer, [Ix.of(0)] * len(buffer.layout.origin_shape))


@lowers(RangeOp)
def lower_range(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = start + i * delta` (module docstring)."""
    start, _, delta = ctx.operands()
    y = ctx.result()

    def element(nest: Nest, index: list[Ix]) -> None:
        first, step = _scalar(nest, start), _scalar(nest, delta)
        count = nest.op(arith.IndexCastOp, nest.index_value(index[0]), i64)
        k = nest.convert(count, first.type)
        if is_float(first.type):
            value = nest.op(arith.AddfOp, first, nest.op(arith.MulfOp, k, step))
        else:
            value = nest.op(arith.AddiOp, first, nest.op(arith.MuliOp, k, step))
        nest.store(value, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, element)
