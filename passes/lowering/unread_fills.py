"""Fills nothing reads: padding zero-fills no load looks at, dropped.

The lowering zero-fills a buffer's padding when it allocates it (every
value's padding is zero: NC1HWC0's lanes past the channels, FRACTAL_NZ's
rows and columns past the matrix), yet most readers compute only valid
elements: a convolution reading a 1-channel NC1HWC0 input loads lane 0 of
each pixel, and the fill of its 15 other lanes wrote 15 of every 16 floats
of the buffer for nothing (a fifth of MelFrontEnd's run), an LSTM step's
matmul reads the 2 rows of its 16-row FRACTAL_NZ blocks. `drop_unread_fills`
erases, once a function is lowered, each nest that `unread_fill` finds:
every statement stores a constant into one buffer, the buffer is only
loaded, stored and freed by affine accesses (not returned, passed to a
call or viewed again), and no load's box of indices (the range of each
index over its loops) meets a stored box. A buffer of the lowering is one
value: it is read only through its own memref (views of the arena that
share bytes hold values whose lives the memory plan keeps apart, and each
is written before it is read), so the stored elements are never read and
dropping the nest changes no result. The emitter asks `unread_box` of
the padding fills it leaves to a function's end (`Emitter.fill_read_padding`)
and builds none it finds unread: loads only move to a copy's source when
`forward_copies` runs, within the elements the copy read, so a box no load
reads then stays unread.

```mlir
%y = memref.view %arena[%c0][] : memref<1024xi8> to memref<2x1x4x16xf32>
affine.for %n = 0 to 2 { affine.for %w = 0 to 4 { affine.for %c = 0 to 15 {
  affine.store %zero, %y[%n, 0, %w, %c + 1] } } }    // lanes 1-15: erased
... affine.load %y[%n, 0, %w, 0] ...                  // lane 0 only
```
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

Interval = tuple[int, int]
"""The least and greatest value an index takes (inclusive)."""

Box = list[Interval]
"""An interval per dimension of a buffer."""


def drop_unread_fills(function: func.FuncOp) -> None:
    """Erase the nests of `function` that `unread_fill` finds."""
    ranges: dict[SSAValue, Interval | None] = {}  # nothing changes until erasing
    unread = [nest for nest in _outer_nests(function) if unread_fill(nest, ranges)]
    for nest in unread:
        nest.detach()
        nest.erase()


def _outer_nests(op: Operation) -> Iterator[affine.ForOp]:
    """The loops in `op` not directly in another loop, in walk order (only
    ops with regions are looked into: a walk's generators over every op of
    a model's nests were most of this pass)."""
    in_loop = isinstance(op, affine.ForOp)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if not in_loop and isinstance(inner, affine.ForOp):
                    yield inner
                if inner.regions:
                    yield from _outer_nests(inner)


def unread_fill(
    nest: affine.ForOp, ranges: dict[SSAValue, Interval | None] | None = None
) -> bool:
    """Whether `nest` only stores constants into one buffer's elements that
    no load of the function reads (see the module docstring; `ranges` as
    `access_box`'s)."""
    stores = _constant_stores(nest)
    if not stores:
        return False
    buffer = stores[0].memref
    if any(store.memref != buffer for store in stores):
        return False
    return unread_box(buffer, [access_box(store, ranges) for store in stores], ranges)


def unread_box(
    buffer: SSAValue,
    written: Sequence[Box],
    ranges: dict[SSAValue, Interval | None] | None = None,
) -> bool:
    """Whether no load of the function reads an element of `buffer` in
    the boxes `written`: the buffer is allocated (or viewed) and only
    loaded, stored and freed by affine accesses, and no load's box meets
    one of `written` (`ranges` as `access_box`'s)."""
    if not isinstance(buffer.owner, memref.ViewOp | memref.AllocOp):
        return False
    for use in buffer.uses:
        reader = use.operation
        if isinstance(reader, memref.DeallocOp):
            continue
        if isinstance(reader, affine.StoreOp) and use.index == 1:
            continue  # stored into (operand 0 is the value, 1 the buffer)
        if not isinstance(reader, affine.LoadOp):
            return False  # returned, passed on, viewed again: may be read
        read = access_box(reader, ranges)
        if any(boxes_meet(read, box) for box in written):
            return False
    return True


def _constant_stores(nest: affine.ForOp) -> list[affine.StoreOp]:
    """The stores of a nest of loops whose statements are all stores of
    constants defined outside it (empty when it holds anything else)."""
    stores: list[affine.StoreOp] = []
    return stores if _only_constant_stores(nest, stores) else []


def _only_constant_stores(loop: affine.ForOp, stores: list[affine.StoreOp]) -> bool:
    """Whether the body of `loop` holds only loops, plain yields and stores
    of constants; adds the stores to `stores` in walk order (a walk's
    generators were most of this pass: it looks into every nest)."""
    for region in loop.regions:
        for block in region.blocks:
            for op in block.ops:
                if isinstance(op, affine.YieldOp):
                    if op.operands:
                        return False
                elif isinstance(op, affine.ForOp):
                    if not _only_constant_stores(op, stores):
                        return False
                elif isinstance(op, affine.StoreOp) and isinstance(
                    op.value.owner, arith.ConstantOp
                ):
                    stores.append(op)
                else:
                    return False
    return True


def access_box(
    access: affine.LoadOp | affine.StoreOp,
    ranges: dict[SSAValue, Interval | None] | None = None,
) -> Box:
    """The indices an access may touch: per dimension, the range of its
    index over the loops around it (the whole dimension where unknown).
    `ranges` keeps each index operand's range for the next accesses (a
    loop's variable is an index of each access in the loop)."""
    # The operands and map read directly: IRDL's accessors were a fifth of
    # this pass (`affine.load`: buffer, indices; `affine.store`: value,
    # buffer, indices).
    first = 1 if isinstance(access, affine.StoreOp) else 0
    buffer_type = access.operands[first].type
    assert isinstance(buffer_type, MemRefType)
    shape = buffer_type.get_shape()
    map_ = access.properties["map"].data  # type: ignore[attr-defined]
    if ranges is None:
        ranges = {}
    operands = []
    for value in access.operands[first + 1 :]:
        if value not in ranges:
            ranges[value] = _value_interval(value)
        operands.append(ranges[value])
    dims, syms = operands[: map_.num_dims], operands[map_.num_dims :]
    box: Box = []
    for size, result in zip(shape, map_.results, strict=True):
        interval = _expr_interval(result, dims, syms)
        whole = (0, size - 1) if size >= 0 else None
        box.append(interval or whole or (-(2**62), 2**62))
    return box


def boxes_meet(a: Sequence[Interval], b: Sequence[Interval]) -> bool:
    """Whether two boxes share an index."""
    return all(
        max(lo_a, lo_b) <= min(hi_a, hi_b)
        for (lo_a, hi_a), (lo_b, hi_b) in zip(a, b, strict=True)
    )


def _value_interval(value: SSAValue) -> Interval | None:
    """The range of an index operand: a loop variable over its constant
    bounds, a constant, an `affine.apply` of those (None: unknown)."""
    owner = value.owner
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        if not isinstance(loop, affine.ForOp) or value.index != 0:
            return None
        properties = loop.properties  # IRDL's accessors: see `access_box`
        maps = [properties["lowerBoundMap"].data, properties["upperBoundMap"].data]  # type: ignore[attr-defined]
        if any(m.num_dims or m.num_symbols for m in maps):  # bound operands
            return None
        bounds = [m.results for m in maps]
        if any(len(b) != 1 or not isinstance(b[0], AffineConstantExpr) for b in bounds):
            return None
        lower, upper = bounds[0][0].value, bounds[1][0].value
        step = properties["step"].value.data  # type: ignore[attr-defined]
        if upper <= lower:
            return (1, 0)  # the loop never runs: an empty range
        return (lower, lower + (upper - 1 - lower) // step * step)
    if isinstance(owner, arith.ConstantOp):
        constant = owner.value
        return (constant.value.data, constant.value.data)  # type: ignore[union-attr]
    if isinstance(owner, affine.ApplyOp):
        map_ = owner.map.data
        operands = [_value_interval(v) for v in owner.mapOperands]
        dims, syms = operands[: map_.num_dims], operands[map_.num_dims :]
        return _expr_interval(map_.results[0], dims, syms)
    return None


def _expr_interval(
    expr: AffineExpr,
    dims: Sequence[Interval | None],
    syms: Sequence[Interval | None],
) -> Interval | None:
    """The range of an affine expression over its operands' ranges."""
    match expr:
        case AffineConstantExpr():
            return (expr.value, expr.value)
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return syms[expr.position]
        case AffineBinaryOpExpr():
            lhs = _expr_interval(expr.lhs, dims, syms)
            rhs = _expr_interval(expr.rhs, dims, syms)
            if lhs is None or rhs is None:
                return None
            if lhs[0] > lhs[1] or rhs[0] > rhs[1]:
                return (1, 0)
            return _combine(expr.kind, lhs, rhs)
    return None


def _combine(kind: AffineBinaryOpKind, lhs: Interval, rhs: Interval) -> Interval | None:
    """The range of `lhs kind rhs` (a constant right side but for `+`)."""
    if kind == AffineBinaryOpKind.Add:
        return (lhs[0] + rhs[0], lhs[1] + rhs[1])
    if kind == AffineBinaryOpKind.Mul:
        products = [a * b for a in lhs for b in rhs]
        return (min(products), max(products))
    if rhs[0] != rhs[1] or rhs[0] <= 0:
        return None
    divisor = rhs[0]
    if kind == AffineBinaryOpKind.FloorDiv:
        return (lhs[0] // divisor, lhs[1] // divisor)
    if kind == AffineBinaryOpKind.CeilDiv:
        return (-(-lhs[0] // divisor), -(-lhs[1] // divisor))
    if kind == AffineBinaryOpKind.Mod:
        if lhs[0] // divisor == lhs[1] // divisor:
            return (lhs[0] % divisor, lhs[1] % divisor)
        return (0, divisor - 1)
    return None
