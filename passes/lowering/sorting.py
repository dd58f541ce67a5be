"""Lowerings of `ge.top_k` and `ge.compress`.

`ge.top_k` goes by ranks, without a sort: three reduction nests.

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

`ge.compress` (its result shape known: the host schedules it once the
condition's values are, see `CompressOp.value_shapes`) numbers the true
entries of the condition (`count[i]`, the trues before `i`), finds the
position of the k-th (`source[k] = min_i select(cond[i] and count[i] == k,
i, n)`: `n`, out of bounds, if there is none) and gathers those slices.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.ops.sorting import CompressOp, TopKOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.movement import is_row_major, row_major_copy
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


@lowers(CompressOp)
def lower_compress(ctx: LoweringContext, op: Operation) -> None:
    """Number the trues, find the k-th, gather (module docstring)."""
    x, condition = ctx.operands()
    if not is_row_major(x.layout):
        x = row_major_copy(ctx, x)
    y = ctx.result()
    axis = int(ctx.attr("axis")) % len(x.layout.origin_shape)
    size = x.layout.origin_shape[axis]
    (entries,) = condition.layout.origin_shape
    kept = y.layout.origin_shape[axis]
    count = ctx.temporary(plain_layout((entries,), i64))
    initialise(ctx, count, lambda nest, _: nest.const(0, i64))

    def true_before(nest: Nest, index: list[Ix]) -> Value:
        i, j = index
        earlier = nest.op(arith.CmpiOp, nest.index_value(j), nest.index_value(i), "slt")
        counts = nest.op(arith.AndIOp, earlier, nest.load(condition, [j], raw=True))
        return nest.op(arith.SelectOp, counts, nest.const(1, i64), nest.const(0, i64))

    add = lambda nest, a, b: nest.op(arith.AddiOp, a, b)  # noqa: E731
    accumulate(ctx, count, (entries, entries), lambda i: i[:1], true_before, add)
    source = ctx.temporary(plain_layout((kept,), i64))
    initialise(ctx, source, lambda nest, _: nest.const(size, i64))

    def position(nest: Nest, index: list[Ix]) -> Value:
        k, i = index
        wanted = nest.op(arith.IndexCastOp, nest.index_value(k), i64)
        is_kth = nest.op(arith.CmpiOp, nest.load(count, [i]), wanted, "eq")
        hit = nest.op(arith.AndIOp, is_kth, nest.load(condition, [i], raw=True))
        at = nest.op(arith.IndexCastOp, nest.index_value(i), i64)
        return nest.op(arith.SelectOp, hit, at, nest.const(size, i64))

    minimum = lambda nest, a, b: nest.op(arith.MinSIOp, a, b)  # noqa: E731
    accumulate(ctx, source, (kept, entries), lambda i: i[:1], position, minimum)

    def gather(nest: Nest, index: list[Ix]) -> None:
        at = [nest.index_value(ix) for ix in index]
        raw = nest.load(source, [index[axis]])
        at[axis] = nest.op(arith.IndexCastOp, raw, IndexType())
        nest.store(nest.load_at(x, at), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, gather)
