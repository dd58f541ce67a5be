"""Lowering of `ge.top_k` by ranks, without a sort: three reduction nests.

1. `rank[i]` counts the positions `j` along the axis that come before `i`
   in TopK's order (`x[j]` larger, or equal with `j < i`; NaN is larger
   than every number and equal to NaN), a nest over x's shape and `j`.
   The ranks along an axis are a permutation of `0..n-1`.
2. `values[p] = max_i select(rank[i] == p, x[i], lowest)`: exactly one `i`
   has rank `p`, so the maximum is that element, bit for bit.
3. `indices[p] = max_i select(rank[i] == p, i, -1)`.

```mlir
affine.for %i, %j {                       // 1-D, largest
  %a = affine.load %x[%j]
  %b = affine.load %x[%i]
  %before = (a > b) or (a == b and j < i)  // with NaN as the largest
  %r = affine.load %rank[%i]
  affine.store (%r + select(%before, 1, 0)), %rank[%i]
}
```

Each nest costs `n` times its domain, `O(n^2)` per row; every nest is a
plain reduction the JIT vectorises.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, Signedness, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.ops.sorting import TopKOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.nn import accumulate, extreme_of, finish, initialise
from passes.lowering.registry import lowers


def comes_before(
    nest: Nest, element: Attribute, a: Value, b: Value, largest: bool
) -> tuple[Value, Value]:
    """Whether `a` sorts strictly before `b` (larger when `largest`, NaN the
    largest), and whether they are equal (NaN equal to NaN)."""
    if is_float(element):
        a_nan = nest.op(arith.CmpfOp, a, a, "uno")
        b_nan = nest.op(arith.CmpfOp, b, b, "uno")
        if largest:
            strictly = nest.op(arith.CmpfOp, a, b, "ogt")
            nan_first = nest.op(arith.AndIOp, a_nan, nest.op(arith.CmpfOp, b, b, "ord"))
        else:
            strictly = nest.op(arith.CmpfOp, a, b, "olt")
            nan_first = nest.op(arith.AndIOp, nest.op(arith.CmpfOp, a, a, "ord"), b_nan)
        before = nest.op(arith.OrIOp, strictly, nan_first)
        equal = nest.op(
            arith.OrIOp,
            nest.op(arith.CmpfOp, a, b, "oeq"),
            nest.op(arith.AndIOp, a_nan, b_nan),
        )
        return before, equal
    assert isinstance(element, IntegerType)
    unsigned = element.width.data == 1 or element.signedness.data == Signedness.UNSIGNED
    predicate = ("u" if unsigned else "s") + ("gt" if largest else "lt")
    return nest.op(arith.CmpiOp, a, b, predicate), nest.op(arith.CmpiOp, a, b, "eq")


@lowers(TopKOp)
def lower_top_k(ctx: LoweringContext, op: Operation) -> None:
    """Ranks, then the elements and positions of ranks `0..k-1` (module doc)."""
    (x,) = ctx.operands()
    values, indices = ctx.result(0), ctx.result(1)
    shape = x.layout.origin_shape
    rank = len(shape)
    axis = int(ctx.attr("axis")) % rank
    largest = bool(ctx.attr("largest"))
    element = x.layout.element_type
    if not is_float(element) and not isinstance(element, IntegerType):
        raise ctx.error(f"has no loop lowering for {element}")
    order = ctx.temporary(plain_layout(shape, i64))
    initialise(ctx, order, lambda nest, _: nest.const(0, i64))

    def earlier(nest: Nest, index: list[Ix]) -> Value:
        mine, other = index[axis], index[rank]
        at_other = list(index[:rank])
        at_other[axis] = other
        before, equal = comes_before(
            nest, element, nest.load(x, at_other), nest.load(x, index[:rank]), largest
        )
        lower = nest.op(
            arith.CmpiOp, nest.index_value(other), nest.index_value(mine), "slt"
        )
        counts = nest.op(arith.OrIOp, before, nest.op(arith.AndIOp, equal, lower))
        return nest.op(arith.SelectOp, counts, nest.const(1, i64), nest.const(0, i64))

    add = lambda nest, a, b: nest.op(arith.AddiOp, a, b)  # noqa: E731
    accumulate(ctx, order, (*shape, shape[axis]), lambda i: i[:rank], earlier, add)

    def ranked(index: list[Ix]) -> tuple[list[Ix], Ix, Ix]:
        """The source index (position `i` along the axis), `i`, and `p`."""
        source = list(index[:rank])
        source[axis] = index[rank]
        return source, index[rank], index[axis]

    def holds(nest: Nest, index: list[Ix]) -> Value:
        source, _, p = ranked(index)
        position = nest.op(arith.IndexCastOp, nest.index_value(p), i64)
        return nest.op(arith.CmpiOp, nest.load(order, source), position, "eq")

    out_shape = (*values.layout.origin_shape, shape[axis])
    maximum = extreme_of(ctx, x, largest=True)
    best = ctx.temporary(plain_layout(values.layout.origin_shape, maximum.element_type))
    initialise(
        ctx, best, lambda nest, _: nest.const(maximum.identity, maximum.element_type)
    )

    def value_term(nest: Nest, index: list[Ix]) -> Value:
        source, _, _ = ranked(index)
        return nest.op(
            arith.SelectOp,
            holds(nest, index),
            nest.load(x, source),
            nest.const(maximum.identity, maximum.element_type),
        )

    accumulate(ctx, best, out_shape, lambda i: i[:rank], value_term, maximum.combine)
    finish(ctx, values, None, best)

    def index_term(nest: Nest, index: list[Ix]) -> Value:
        _, i, _ = ranked(index)
        at = nest.op(arith.IndexCastOp, nest.index_value(i), i64)
        return nest.op(arith.SelectOp, holds(nest, index), at, nest.const(-1, i64))

    found = (
        indices
        if indices.layout.element_type == i64
        else ctx.temporary(indices.layout.retyped(i64))
    )
    initialise(ctx, found, lambda nest, _: nest.const(-1, i64))
    accumulate(
        ctx,
        found,
        out_shape,
        lambda i: i[:rank],
        index_term,
        lambda nest, a, b: nest.op(arith.MaxSIOp, a, b),
    )
    finish(ctx, indices, None, found)
