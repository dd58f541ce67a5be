"""Lowerings of `ge.scatter_elements`, `ge.scatter_nd` and `ge.one_hot`.

The result starts as a copy of `data` (a vectorised nest); then one nest
over the updates loads each update and its index (made non-negative as a
gather's), combines it with the value at that position (a `memref.load`)
and stores it back (a `memref.store`):

```mlir
affine.for %i, %j {                      // scatter_elements, axis 0, "add"
  %raw = affine.load %indices[%i, %j]
  %p = (index cast, + size when negative)
  %u = affine.load %updates[%i, %j]
  %old = memref.load %y[%p, %j]
  memref.store (%old + %u), %y[%p, %j]
}
```

A data-dependent store has no vectorised form, so the JIT runs this nest in
order, element by element: duplicate positions combine one after the other
(the last one wins with "none"), as the NumPy kernel does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.ops.scatter import OneHotOp, ScatterElementsOp, ScatterNdOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value, compute_type, is_float
from passes.lowering.index import Ix
from passes.lowering.movement import (
    AffineTable,
    affine_index,
    affine_table,
    constant_integers,
    copy,
    is_row_major,
    wrapped_index,
)
from passes.lowering.registry import lowers

Combine = Callable[[Nest, Value, Value], Value]


def combine_for(ctx: LoweringContext, reduction: str, element: Attribute) -> Combine:
    """How an update meets the value at its position (`reduction` other
    than "none"), in compute type."""
    if is_float(element):
        op = {
            "add": arith.AddfOp,
            "mul": arith.MulfOp,
            "max": arith.MaximumfOp,
            "min": arith.MinimumfOp,
        }[reduction]
    else:
        if not isinstance(element, IntegerType):
            raise ctx.error(f"has no loop lowering for {element}")
        if element.width.data == 1:  # bool: add/max are or, mul/min are and
            op = arith.OrIOp if reduction in ("add", "max") else arith.AndIOp
        else:
            unsigned = element.signedness.data == Signedness.UNSIGNED
            op = {
                "add": arith.AddiOp,
                "mul": arith.MuliOp,
                "max": arith.MaxUIOp if unsigned else arith.MaxSIOp,
                "min": arith.MinUIOp if unsigned else arith.MinSIOp,
            }[reduction]
    return lambda nest, old, update: nest.op(op, old, update)


def _copied_data(ctx: LoweringContext) -> tuple[Buffer, Buffer, Buffer]:
    """The result (a row-major copy of `data`), `indices` and `updates`."""
    data, indices, updates = ctx.operands()
    if not isinstance(indices.layout.element_type, IntegerType):
        raise ctx.error("indices must be integers")
    y = ctx.result()
    if not is_row_major(y.layout):
        raise ctx.error("scatters into a row-major result only")
    copy(ctx, data, y, y.layout.origin_shape)
    return y, indices, updates


def _update(
    ctx: LoweringContext,
    nest: Nest,
    y: Buffer,
    at: list[Value],
    update: Value,
) -> None:
    """`y[at] = combine(y[at], update)` (`y[at] = update` for "none")."""
    compute = compute_type(y.layout.element_type)

    def old() -> Value:
        return nest.convert(nest.load_at(y, at), compute)

    nest.store_at(_combined(ctx, nest, y, old, update), y, at)


def _update_affine(
    ctx: LoweringContext, nest: Nest, y: Buffer, at: list[Ix], update: Value
) -> None:
    """`_update` at an affine index `at`: `affine` accesses, not `memref`."""
    nest.store(_combined(ctx, nest, y, lambda: nest.load(y, at), update), y, at)


def _combined(
    ctx: LoweringContext,
    nest: Nest,
    y: Buffer,
    old: Callable[[], Value],
    update: Value,
) -> Value:
    """`update` combined with the element's value (`old()`, loaded only
    then, in compute type) by the op's reduction; itself for "none"."""
    reduction = str(ctx.attr("reduction"))
    if reduction == "none":
        return update
    return combine_for(ctx, reduction, y.layout.element_type)(nest, old(), update)


@lowers(ScatterElementsOp)
def lower_scatter_elements(ctx: LoweringContext, op: Operation) -> None:
    """`y[i with axis = indices[i]] (op)= updates[i]` over the indices' shape;
    constant indices that are an affine function of their position are
    affine stores (`_scatter_elements_affine`)."""
    y, indices, updates = _copied_data(ctx)
    axis = int(ctx.attr("axis")) % len(y.layout.origin_shape)
    size = y.layout.origin_shape[axis]
    table = affine_table(constant_integers(op.operands[1]), size)
    if table is not None:
        _scatter_elements_affine(ctx, y, updates, axis, table)
        return

    def body(nest: Nest, index: list[Ix]) -> None:
        raw = nest.load(indices, index, raw=True)
        at = [nest.index_value(ix) for ix in index]
        at[axis] = wrapped_index(ctx, nest, raw, size, axis)
        _update(ctx, nest, y, at, nest.load(updates, index))

    ctx.emitter.for_each(indices.layout.origin_shape, body)


def _scatter_elements_affine(
    ctx: LoweringContext, y: Buffer, updates: Buffer, axis: int, table: AffineTable
) -> None:
    """`y[i with axis = table(i)] (op)= updates[i]`, the positions affine
    (torch's `select_scatter`, `state[:, i] = x`, and slice assignments
    `x[:, 2:9] = v`): affine accesses, which vectorise. When the position
    does not move along `axis` every update there meets one element: with
    "none" only the last writes (the last one wins, as element by element)."""
    shape = list(updates.layout.origin_shape)
    last = shape[axis] - 1
    repeats = table[1][axis] == 0
    reduction = str(ctx.attr("reduction"))
    if reduction == "none" and repeats:
        shape[axis] = 1

    def body(nest: Nest, index: list[Ix]) -> None:
        source = list(index)
        if reduction == "none" and repeats:
            source[axis] = Ix.of(last)
        at = list(index)
        at[axis] = affine_index(table, index)
        _update_affine(ctx, nest, y, at, nest.load(updates, source))

    ctx.emitter.for_each(tuple(shape), body)


@lowers(ScatterNdOp)
def lower_scatter_nd(ctx: LoweringContext, op: Operation) -> None:
    """`y[indices[I, 0..k-1], T] (op)= updates[I, T]` over the updates' shape;
    constant index tuples each entry of which is an affine function of `I`,
    naming distinct elements, are affine stores (a slice assignment
    `x[1:] = v` exported as a `ScatterND`: BART's shifted decoder inputs)."""
    y, indices, updates = _copied_data(ctx)
    leading = len(indices.layout.origin_shape) - 1
    depth = indices.layout.origin_shape[-1]
    sizes = y.layout.origin_shape[:depth]
    tables = _affine_tuples(constant_integers(op.operands[1]), sizes)
    if tables is not None:

        def affine_body(nest: Nest, index: list[Ix]) -> None:
            lead = index[:leading]
            at = [affine_index(table, lead) for table in tables]
            at += index[leading:]
            _update_affine(ctx, nest, y, at, nest.load(updates, index))

        ctx.emitter.for_each(updates.layout.origin_shape, affine_body)
        return

    def body(nest: Nest, index: list[Ix]) -> None:
        lead = index[:leading]
        at = [
            wrapped_index(
                ctx, nest, nest.load(indices, [*lead, Ix.of(j)], raw=True), n, j
            )
            for j, n in enumerate(sizes)
        ]
        at += [nest.index_value(ix) for ix in index[leading:]]
        _update(ctx, nest, y, at, nest.load(updates, index))

    ctx.emitter.for_each(updates.layout.origin_shape, body)


def _affine_tuples(
    values: np.ndarray | None, sizes: Sequence[int]
) -> list[AffineTable] | None:
    """Per entry of constant index tuples (`values[..., j]`, into an axis of
    `sizes[j]`), its `affine_table` over the tuples' positions; None unless
    every entry is one and the tuples are distinct (no element written
    twice: the order of the writes cannot matter)."""
    if values is None or values.ndim == 0 or not values.size:
        return None
    tables = [affine_table(values[..., j], n) for j, n in enumerate(sizes)]
    if any(table is None for table in tables):
        return None
    rows = values.reshape(-1, values.shape[-1])
    rows = np.where(rows < 0, rows + np.array(sizes, np.int64), rows)
    if len(np.unique(rows, axis=0)) != len(rows):
        return None
    return tables  # type: ignore[return-value]


@lowers(OneHotOp)
def lower_one_hot(ctx: LoweringContext, op: Operation) -> None:
    """`y[.., p, ..] = select(index == p or index == p - depth, on, off)`:
    an elementwise nest over y (the index compared in its own kind: as an
    `index` value for integers, in float for floats)."""
    indices, values = ctx.operands()
    y = ctx.result()
    depth = int(ctx.attr("depth"))
    axis = int(ctx.attr("axis")) % len(y.layout.origin_shape)
    kind = indices.layout.element_type

    def body(nest: Nest, index: list[Ix]) -> None:
        source = [ix for k, ix in enumerate(index) if k != axis]
        raw = nest.load(indices, source)
        position = nest.index_value(index[axis])
        from_end = nest.index_value(index[axis] - depth)
        if is_float(kind):
            as_float = [
                nest.op(arith.SIToFPOp, nest.op(arith.IndexCastOp, p, i64), raw.type)
                for p in (position, from_end)
            ]
            matches = [nest.op(arith.CmpfOp, raw, p, "oeq") for p in as_float]
        elif isinstance(kind, IntegerType):
            at = nest.op(
                arith.IndexCastOp, nest.load(indices, source, raw=True), IndexType()
            )
            matches = [nest.op(arith.CmpiOp, at, p, "eq") for p in (position, from_end)]
        else:
            raise ctx.error(f"has no loop lowering for {kind} indices")
        hot = nest.op(arith.OrIOp, *matches)
        off = nest.load(values, [Ix.of(0)], raw=True)
        on = nest.load(values, [Ix.of(1)], raw=True)
        nest.store(nest.op(arith.SelectOp, hot, on, off), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)
