"""Lowerings of `ge.top_k`, `ge.compress`, `ge.unique` and `ge.non_zero`.

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

`ge.unique` (its result shapes known in the same way) compares every pair
of slices `j`, `i` in one reduction: `code[j, i]` is the smallest
`2 * t + (x_j[t] < x_i[t] ? 0 : 1)` over the positions `t` where they
differ (a sentinel if none: equal), so it says equality and the
lexicographic order at once. From it: which slices occur first, the rank
of each first occurrence among them (by order when `sorted`, else by
position; ties of incomparable NaNs by position), the first occurrence of
each unique rank (`indices`, and the gather of `y`), each slice's rank
through its first occurrence (`inverse`) and `counts`: reductions over
pairs, `O(n^2)` comparisons of slices.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, i1, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.ops.sorting import CompressOp, NonZeroOp, TopKOp, UniqueOp
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


@lowers(UniqueOp)
def lower_unique(ctx: LoweringContext, op: Operation) -> None:
    """Pairwise slice comparison codes, then first occurrences, ranks and
    gathers (module docstring)."""
    (x,) = ctx.operands()
    if not is_row_major(x.layout):
        x = row_major_copy(ctx, x)
    y, positions, inverse, counts = (ctx.result(i) for i in range(4))
    shape = x.layout.origin_shape
    axis = int(ctx.attr("axis")) % len(shape)
    n, kept = shape[axis], y.layout.origin_shape[axis]
    others = [d for d in range(len(shape)) if d != axis]
    strides = [
        int(np.prod([shape[e] for e in others[k + 1 :]])) for k in range(len(others))
    ]
    element = x.layout.element_type
    if not is_float(element) and not isinstance(element, IntegerType):
        raise ctx.error(f"has no loop lowering for {element}")
    same = 2 * int(np.prod([shape[d] for d in others])) + 2

    def at(slice_index: Ix, rest: list[Ix]) -> list[Ix]:
        index = list(rest)
        index.insert(axis, slice_index)
        return index

    def i64_of(nest: Nest, ix: Ix) -> Value:
        return nest.op(arith.IndexCastOp, nest.index_value(ix), i64)

    code = ctx.temporary(plain_layout((n, n), i64))
    initialise(ctx, code, lambda nest, _: nest.const(same, i64))

    def difference(nest: Nest, index: list[Ix]) -> Value:
        j, i, rest = index[0], index[1], index[2:]
        a, b = nest.load(x, at(j, rest)), nest.load(x, at(i, rest))
        smaller, equal = comes_before(nest, element, a, b, largest=False)
        flat = Ix.of(0)
        for t, stride in zip(rest, strides, strict=True):
            flat = flat + t * stride
        bit = nest.op(arith.SelectOp, smaller, nest.const(0, i64), nest.const(1, i64))
        value = nest.op(
            arith.AddiOp,
            nest.op(arith.MuliOp, i64_of(nest, flat), nest.const(2, i64)),
            bit,
        )
        return nest.op(arith.SelectOp, equal, nest.const(same, i64), value)

    minimum = lambda nest, a, b: nest.op(arith.MinSIOp, a, b)  # noqa: E731
    add = lambda nest, a, b: nest.op(arith.AddiOp, a, b)  # noqa: E731
    pairs = (n, n, *(shape[d] for d in others))
    accumulate(ctx, code, pairs, lambda index: index[:2], difference, minimum)

    def equal(nest: Nest, j: Ix, i: Ix) -> Value:
        return nest.op(
            arith.CmpiOp, nest.load(code, [j, i]), nest.const(same, i64), "eq"
        )

    def smaller(nest: Nest, j: Ix, i: Ix) -> Value:
        """x_j before x_i: they differ and the first difference is `<`."""
        c = nest.load(code, [j, i])
        low = nest.op(arith.AndIOp, c, nest.const(1, i64))
        differ = nest.op(arith.CmpiOp, c, nest.const(same, i64), "ne")
        return nest.op(
            arith.AndIOp, differ, nest.op(arith.CmpiOp, low, nest.const(0, i64), "eq")
        )

    def earlier(nest: Nest, j: Ix, i: Ix) -> Value:
        return nest.op(arith.CmpiOp, nest.index_value(j), nest.index_value(i), "slt")

    def one_if(nest: Nest, condition: Value) -> Value:
        return nest.op(
            arith.SelectOp, condition, nest.const(1, i64), nest.const(0, i64)
        )

    def counter(shape_: tuple[int, ...]):
        buffer = ctx.temporary(plain_layout(shape_, i64))
        initialise(ctx, buffer, lambda nest, _: nest.const(0, i64))
        return buffer

    repeats = counter((n,))  # equal slices before i: 0 for a first occurrence

    def repeat(nest: Nest, index: list[Ix]) -> Value:
        i, j = index
        return one_if(
            nest, nest.op(arith.AndIOp, earlier(nest, j, i), equal(nest, j, i))
        )

    accumulate(ctx, repeats, (n, n), lambda index: index[:1], repeat, add)

    def first(nest: Nest, i: Ix) -> Value:
        return nest.op(arith.CmpiOp, nest.load(repeats, [i]), nest.const(0, i64), "eq")

    rank = counter((n,))
    ordered = bool(ctx.attr("sorted"))

    def ahead(nest: Nest, index: list[Ix]) -> Value:
        i, j = index
        if ordered:  # smaller, or incomparable (NaNs) and earlier
            neither = nest.op(arith.OrIOp, smaller(nest, i, j), equal(nest, j, i))
            tie = nest.op(
                arith.AndIOp,
                nest.op(arith.XOrIOp, neither, nest.const(1, i1)),
                earlier(nest, j, i),
            )
            before = nest.op(arith.OrIOp, smaller(nest, j, i), tie)
        else:
            before = earlier(nest, j, i)
        return one_if(nest, nest.op(arith.AndIOp, first(nest, j), before))

    accumulate(ctx, rank, (n, n), lambda index: index[:1], ahead, add)
    initialise(ctx, positions, lambda nest, _: nest.const(n, i64))

    def occurrence(nest: Nest, index: list[Ix]) -> Value:
        k, i = index
        hit = nest.op(
            arith.AndIOp,
            first(nest, i),
            nest.op(arith.CmpiOp, nest.load(rank, [i]), i64_of(nest, k), "eq"),
        )
        return nest.op(arith.SelectOp, hit, i64_of(nest, i), nest.const(n, i64))

    accumulate(ctx, positions, (kept, n), lambda index: index[:1], occurrence, minimum)
    representative = ctx.temporary(plain_layout((n,), i64))
    initialise(ctx, representative, lambda nest, _: nest.const(n, i64))

    def earliest_equal(nest: Nest, index: list[Ix]) -> Value:
        i, j = index
        itself = nest.op(arith.CmpiOp, nest.index_value(j), nest.index_value(i), "eq")
        hit = nest.op(arith.OrIOp, equal(nest, j, i), itself)
        return nest.op(arith.SelectOp, hit, i64_of(nest, j), nest.const(n, i64))

    accumulate(
        ctx, representative, (n, n), lambda index: index[:1], earliest_equal, minimum
    )

    def slot(nest: Nest, index: list[Ix]) -> None:
        where = nest.op(
            arith.IndexCastOp, nest.load(representative, index), IndexType()
        )
        nest.store(nest.load_at(rank, [where]), inverse, index)

    ctx.emitter.for_each((n,), slot)
    initialise(ctx, counts, lambda nest, _: nest.const(0, i64))

    def member(nest: Nest, index: list[Ix]) -> Value:
        k, i = index
        return one_if(
            nest, nest.op(arith.CmpiOp, nest.load(inverse, [i]), i64_of(nest, k), "eq")
        )

    accumulate(ctx, counts, (kept, n), lambda index: index[:1], member, add)

    def gather(nest: Nest, index: list[Ix]) -> None:
        where = [nest.index_value(ix) for ix in index]
        raw = nest.load(positions, [index[axis]])
        where[axis] = nest.op(arith.IndexCastOp, raw, IndexType())
        nest.store(nest.load_at(x, where), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, gather)


@lowers(NonZeroOp)
def lower_non_zero(ctx: LoweringContext, op: Operation) -> None:
    """Number the non-zero elements in row-major order, find the k-th, write
    its coordinates (`ge.compress`'s numbering over the flattened input)."""
    (x,) = ctx.operands()
    y = ctx.result()
    shape = x.layout.origin_shape
    rank, size = len(shape), int(np.prod(shape))
    kept = y.layout.origin_shape[1]
    strides = [int(np.prod(shape[d + 1 :])) for d in range(rank)]

    def flat(index: list[Ix]) -> Ix:
        position = Ix.of(0)
        for ix, stride in zip(index, strides, strict=True):
            position = position + ix * stride
        return position

    def non_zero(nest: Nest, index: list[Ix]) -> Value:
        return nest.convert(nest.load(x, index, raw=True), i1)

    count = ctx.temporary(plain_layout(shape, i64))
    initialise(ctx, count, lambda nest, _: nest.const(0, i64))

    def before(nest: Nest, index: list[Ix]) -> Value:
        mine, other = flat(index[:rank]), flat(index[rank:])
        earlier = nest.op(
            arith.CmpiOp, nest.index_value(other), nest.index_value(mine), "slt"
        )
        counts = nest.op(arith.AndIOp, earlier, non_zero(nest, index[rank:]))
        return nest.op(arith.SelectOp, counts, nest.const(1, i64), nest.const(0, i64))

    add = lambda nest, a, b: nest.op(arith.AddiOp, a, b)  # noqa: E731
    accumulate(ctx, count, (*shape, *shape), lambda i: i[:rank], before, add)
    source = ctx.temporary(plain_layout((kept,), i64))
    initialise(ctx, source, lambda nest, _: nest.const(size, i64))

    iota = ctx.table(np.arange(size, dtype=np.int64))  # no index_cast: C runs it

    def position(nest: Nest, index: list[Ix]) -> Value:
        k, at = index[0], index[1:]
        is_kth = nest.op(arith.CmpiOp, nest.load(count, at), nest.load(iota, [k]), "eq")
        hit = nest.op(arith.AndIOp, is_kth, non_zero(nest, at))
        here = nest.load(iota, [flat(at)])
        return nest.op(arith.SelectOp, hit, here, nest.const(size, i64))

    minimum = lambda nest, a, b: nest.op(arith.MinSIOp, a, b)  # noqa: E731
    accumulate(ctx, source, (kept, *shape), lambda i: i[:1], position, minimum)

    def coordinate(nest: Nest, index: list[Ix]) -> None:
        """y[d, k]: the d-th coordinate of the k-th non-zero element."""
        d, k = index
        value = nest.load(source, [k])
        axis_of_row = nest.index_value(d)
        result = None
        for axis in range(rank):
            along = nest.op(
                arith.RemSIOp,
                nest.op(arith.DivSIOp, value, nest.const(strides[axis], i64)),
                nest.const(shape[axis], i64),
            )
            if result is None:
                result = along
                continue
            is_axis = nest.op(
                arith.CmpiOp, axis_of_row, nest.const(axis, IndexType()), "eq"
            )
            result = nest.op(arith.SelectOp, is_axis, along, result)
        nest.store(result, y, index)

    ctx.emitter.for_each((rank, kept), coordinate)
