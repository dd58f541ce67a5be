"""Lowering of the running reductions `ge.cum_sum` and `ge.cum_prod`.

A direct loop nest, no recurrence: the domain is x's shape plus one
reduction axis `j` over the scanned axis, and each `y[i]` accumulates the
`x[i with axis = j]` that its window selects (`j <= i[axis]`; `<` when
exclusive, `>=`/`>` when reversed), the others contributing the identity:

```mlir
affine.for %i, %j {                       // axis 0 of a 1-D cum_sum
  %in = arith.cmpi sle, %j, %i : index
  %x = affine.load %x[%j]
  %t = arith.select %in, %x, %zero
  %a = affine.load %acc[%i]
  affine.store (%a + %t), %acc[%i]
}
```

It costs `n` times the elements of `x` (`n` the axis length) but has no
loop-carried dependence, so every nest stays a plain reduction the JIT
vectorises. Floats accumulate in float32 (float64 in float64), integers in
their own type (wrapping, as NumPy and ONNX Runtime do). A sum of only
-0.0s is +0.0 (the vectorised reduction is NumPy's `add.reduce`, which
gives +0.0 there; `np.cumsum` keeps -0.0).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from ge_dialect.ops.cumulative import CumulativeOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, compute_type, is_float
from passes.lowering.index import Ix
from passes.lowering.nn import accumulate, finish, initialise
from passes.lowering.registry import lowers

WINDOW = {
    (False, False): "sle",
    (True, False): "slt",
    (False, True): "sge",
    (True, True): "sgt",
}
"""(exclusive, reverse) -> how the summed position `j` compares with `i`."""


@lowers(CumulativeOp)
def lower_cumulative(ctx: LoweringContext, op: Operation) -> None:
    """cum_sum / cum_prod along `axis` as one reduction nest (module doc)."""
    assert isinstance(op, CumulativeOp)
    (x,) = ctx.operands()
    y = ctx.result()
    shape = x.layout.origin_shape
    rank = len(shape)
    axis = int(ctx.attr("axis")) % rank
    element = x.layout.element_type
    floating = is_float(element)
    if not floating and not (
        isinstance(element, IntegerType) and element.width.data > 1
    ):
        raise ctx.error(f"has no loop lowering for {element}")
    compute = compute_type(element)
    product = op.REDUCTION == "prod"
    combine_op = {
        (False, False): arith.AddiOp,
        (False, True): arith.MuliOp,
        (True, False): arith.AddfOp,
        (True, True): arith.MulfOp,
    }[floating, product]
    identity = (1.0 if floating else 1) if product else (0.0 if floating else 0)
    window = WINDOW[bool(ctx.attr("exclusive")), bool(ctx.attr("reverse"))]
    acc = (
        y
        if y.layout.element_type == compute
        else ctx.temporary(y.layout.retyped(compute))
    )
    initialise(ctx, acc, lambda nest, _: nest.const(identity, compute))

    def term(nest: Nest, index: list[Ix]) -> Value:
        position, summed = index[axis], index[rank]
        source = list(index[:rank])
        source[axis] = summed
        inside = nest.op(
            arith.CmpiOp,
            nest.index_value(summed),
            nest.index_value(position),
            window,
        )
        value = nest.load(x, source)
        return nest.op(arith.SelectOp, inside, value, nest.const(identity, compute))

    accumulate(
        ctx,
        acc,
        (*shape, shape[axis]),
        lambda index: index[:rank],
        term,
        lambda nest, a, b: nest.op(combine_op, a, b),
    )
    finish(ctx, y, None, acc)
