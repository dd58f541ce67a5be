"""Lowering of `ge.dropout`: a check on the scalars, then a copy.

```mlir
%t = affine.load %training[]
%r = affine.load %ratio[]
cf.assert (not %t or %r == 0), "...: Dropout in training mode ... random mask ..."
affine.for %i ... { y[i] = x[i]; mask[i] = true }
```
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i1
from xdsl.ir import Operation

from ge_dialect.ops.stochastic import RANDOM_MASK, DropoutOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest
from passes.lowering.index import Ix
from passes.lowering.registry import lowers


@lowers(DropoutOp)
def lower_dropout(ctx: LoweringContext, op: Operation) -> None:
    """Fail the run where the mask would be random; else copy x, mask true."""
    x, ratio, training = ctx.operands()
    y, mask = ctx.result(0), ctx.result(1)

    def check(nest: Nest, _: list[Ix]) -> None:
        def scalar(buffer):
            return nest.load(buffer, [Ix.of(0)] * len(buffer.layout.origin_shape))

        training_on = nest.convert(scalar(training), i1)
        value = scalar(ratio)
        zero = nest.op(arith.CmpfOp, value, nest.const(0.0, value.type), "oeq")
        fine = nest.op(
            arith.OrIOp, nest.op(arith.XOrIOp, training_on, nest.const(1, i1)), zero
        )
        nest.check(fine, str(ctx.error(RANDOM_MASK)))

    ctx.emitter.for_each((1,), check)

    def copy(nest: Nest, index: list[Ix]) -> None:
        nest.store(nest.load(x, index, raw=True), y, index)
        nest.store(nest.const(1, i1), mask, index)

    ctx.emitter.for_each(x.layout.origin_shape, copy)
