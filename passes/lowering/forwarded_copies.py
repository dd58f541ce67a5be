"""Copies of copies, made one: a copy nest read only by other copies reads
its source in their place.

A relayout, a channel shuffle or a transdata writes a buffer that the next
op often only copies again: a depthwise convolution's padded input copy
reads the channel shuffle's result, the first convolution's padded copy
reads the NCHW -> NC1HWC0 transdata of the network's input. Each copy is a
sweep over the data (ShuffleNet: a fifth of its run in such copies).
`forward_copies` rewrites, once a function is lowered, every load of a
buffer `b` written by one copy nest `p` (`b[s(i)] = a[f(i)]`, each store
index one of `p`'s loop variables plus a constant, so `i` is the store
index minus those constants) into a load of `a` at `f(s⁻¹(index))`, when
every reader of the value `p` writes (up to the next store into `b`) is
itself a copy nest, and erases `p`. A value of the lowering is written
before it is read (`unread_fills`): a reader reads only elements the
copies writing the value wrote (one copy's, the reader's box of indices
within its box); the rewrite is exact when `a`
still holds what `p` read, so nothing between `p` and a reader (the
reader included) may store to, or free, bytes of `a` (views of the arena
are compared by their byte ranges), but for a nest that may run after the
readers instead, which moves there (the memory plan gives `a`'s bytes to
the next value as soon as `p` has read them: a depthwise convolution's
bias, written before its padded input is copied).

```mlir
affine.for %c1, %h, %w, %l {                       // erased
  %v = affine.load %a[f(%c1, %l) floordiv 16, %h, %w, f(%c1, %l) mod 16]
  affine.store %v, %b[%c1, %h, %w, %l] }
affine.for %c1, %h, %w, %l {
  %v = affine.load %b[%c1, %h, %w, %l]              // -> %a[f(%c1, %l) ...]
  affine.store %v, %padded[%c1, %h + 1, %w + 1, %l] }
```
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import AffineMapAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from passes.lowering.unread_fills import Box, access_box, boxes_meet

BENIGN = (memref.ViewOp, memref.AllocOp, arith.ConstantOp, affine.ApplyOp)
"""Top-level ops between a copy and its reader that write no buffer."""


@dataclass(frozen=True)
class Copy:
    """A nest `target[store] = source[load]`: its loop variables, outer first."""

    nest: affine.ForOp
    load: affine.LoadOp
    store: affine.StoreOp
    variables: tuple[BlockArgument, ...]


def forward_copies(function: func.FuncOp) -> None:
    """Forward the copy nests of `function`'s body into their readers where
    `forward` can, and erase them, in one walk of the body: after a
    forward, from the op that now follows the ones before the copy (they
    are as they were; what follows may be a copy it made forwardable)."""
    body = function.body.block
    order = _numbered(body.first_op)
    nests = Nests()
    op = body.first_op
    while op is not None:
        copy = nests.copy(op) if isinstance(op, affine.ForOp) else None
        before = op.prev_op
        if copy is not None and forward(copy, body, order, nests):
            op = body.first_op if before is None else before.next_op
        else:
            op = op.next_op


def _numbered(first: Operation | None, start: int = 0) -> dict[Operation, int]:
    """The position of each op from `first` to the end of its block,
    counting from `start`."""
    order: dict[Operation, int] = {}
    current = first
    while current is not None:
        order[current] = start + len(order)
        current = current.next_op
    return order


def copy_nest(nest: affine.ForOp) -> Copy | None:
    """The copy `nest` is: perfectly nested loops of constant bounds around
    one load whose value one store writes (None for any other nest)."""
    variables: list[BlockArgument] = []
    loop = nest
    while True:  # regions, operands and results read directly: IRDL's
        # accessors were a third of this function, which sees every nest
        if loop.operands:  # bound operands or loop-carried values
            return None
        block = loop.regions[0].blocks[0]
        variables.append(block.args[0])
        ops = [op for op in block.ops if not isinstance(op, affine.YieldOp)]
        if len(ops) == 1 and isinstance(ops[0], affine.ForOp):
            loop = ops[0]
            continue
        if len(ops) != 2:
            return None
        load, store = ops
        if not isinstance(load, affine.LoadOp) or not isinstance(store, affine.StoreOp):
            return None
        loaded = load.results[0]
        if store.operands[0] is not loaded or not loaded.has_one_use():
            return None
        return Copy(nest, load, store, tuple(variables))


def forward(
    first: Copy,
    body: Block,
    order: dict[Operation, int],
    nests: Nests,
) -> bool:
    """Rewrite the readers of the value `first` (and the copies right after
    it into the same buffer) writes to read those copies' sources, and
    erase the copies; False (nothing changed) where that is not exact or
    a reader of the value is not a copy (`nests`: what the nests of
    `body` are). The value lives from its first copy to the next store
    into its memref (an arena view may hold several values in turn); each
    reader must read within the elements one copy writes (its box of
    indices inside that copy's, meeting no other's: a shuffle's whole
    blocks and its last block's lanes are two copies, each with its
    reader). `order` numbers the ops of `body`."""
    target = first.store.memref
    if not isinstance(target.owner, memref.ViewOp | memref.AllocOp):
        return False
    uses = sorted(
        ((order[top], use) for use in target.uses
         if (top := _top_level(use.operation, body)) is not None),
        key=lambda pair: pair[0],
    )  # fmt: skip
    start = order[first.nest]
    writers: list[Copy] = []
    readers: list[Copy] = []
    for position, use in uses:
        if position < start or isinstance(use.operation, memref.DeallocOp):
            continue
        top = _top_level(use.operation, body)
        nest = nests.copy(top) if isinstance(top, affine.ForOp) else None
        stores = isinstance(use.operation, affine.StoreOp | memref.StoreOp)
        if stores and not readers and nest is not None and use.operation is nest.store:
            if nest not in writers:
                writers.append(nest)
            continue
        if stores:
            break  # the next value
        if nest is None or use.operation is not nest.load:
            return False
        readers.append(nest)
    if not readers:
        return False
    forwarded: list[tuple[Copy, Copy]] = []
    moved: dict[Operation, None] = {}
    for reader in readers:
        read = access_box(reader.load)
        met = [w for w in writers if boxes_meet(read, access_box(w.store))]
        if len(met) != 1 or not _inside(read, access_box(met[0].store)):
            return False
        (writer,) = met
        if _inverse(writer) is None:
            return False
        if any(v not in writer.variables for v in writer.load.indices):
            return False
        clobbering = _clobbering(writer.load.memref, writer.nest, reader.nest, nests)
        if clobbering is None:
            return False
        moved.update(dict.fromkeys(clobbering))
        forwarded.append((writer, reader))
    last = max((reader.nest for reader in readers), key=order.__getitem__)
    if not all(_movable(nest, last, nests) for nest in moved):
        return False
    if moved:
        renumbered = last
        for nest in moved:  # after the readers, in their order
            nest.detach()
            body.insert_op_after(nest, last)
            last = nest
        order.update(_numbered(renumbered, order[renumbered]))
    for writer, reader in forwarded:
        _read_source(writer, reader)
        nests.rewritten(reader.nest)
    for writer in writers:
        writer.nest.detach()
        writer.nest.erase()
    return True


def _read_source(writer: Copy, reader: Copy) -> None:
    """`reader`'s load of `writer`'s target made a load of its source: the
    source's index with each of `writer`'s loop variables replaced by the
    expression of the reader's index that gives it (`_inverse`)."""
    inverse = _inverse(writer)
    assert inverse is not None
    load = reader.load
    read = load.map.data
    source_map = writer.load.map.data
    operands = [inverse[v](read) for v in writer.load.indices]
    dims, symbols = operands[: source_map.num_dims], operands[source_map.num_dims :]
    composed = AffineMap(
        read.num_dims,
        read.num_symbols,
        tuple(r.replace_dims_and_symbols(dims, symbols) for r in source_map.results),
    )
    source = writer.load.memref
    rewritten = affine.LoadOp(
        source, list(load.indices), AffineMapAttr(composed), load.result.type
    )
    block = load.parent_block()
    assert block is not None
    block.insert_op_before(rewritten, load)
    load.result.replace_all_uses_with(rewritten.result)
    load.detach()
    load.erase()


def _inside(inner: Box, outer: Box) -> bool:
    """Whether every index of box `inner` is in box `outer`."""
    return all(
        lo_o <= lo_i and hi_i <= hi_o
        for (lo_i, hi_i), (lo_o, hi_o) in zip(inner, outer, strict=True)
    )


def _inverse(copy: Copy) -> dict[SSAValue, Callable[[AffineMap], AffineExpr]] | None:
    """Per loop variable of `copy`, the expression over a reader's load map
    that gives it (the store index it is in, minus its constant); None
    unless each variable is exactly one store index plus a constant."""
    store_map = copy.store.map.data
    operands = list(copy.store.indices)
    found: dict[SSAValue, Callable[[AffineMap], AffineExpr]] = {}
    for position, expr in enumerate(store_map.results):
        shift = 0
        if isinstance(expr, AffineConstantExpr):
            continue
        if (
            isinstance(expr, AffineBinaryOpExpr)
            and expr.kind == AffineBinaryOpKind.Add
            and isinstance(expr.rhs, AffineConstantExpr)
        ):
            expr, shift = expr.lhs, expr.rhs.value
        if isinstance(expr, AffineDimExpr):
            variable = operands[expr.position]
        elif isinstance(expr, AffineSymExpr):
            variable = operands[store_map.num_dims + expr.position]
        else:
            return None
        if variable not in copy.variables or variable in found:
            return None
        found[variable] = lambda read, p=position, s=shift: read.results[p] + (-s)
    if set(found) != set(copy.variables):
        return None
    return found


def _top_level(op: Operation, body: Block) -> Operation | None:
    """The op of `body` that holds `op` (None if `body` does not)."""
    current: Operation | None = op
    while current is not None and current.parent is not body:
        current = current.parent_op()
    return current


def _clobbering(
    source: SSAValue,
    copy: Operation,
    reader: Operation,
    nests: Nests,
) -> list[Operation] | None:
    """The nests after `copy` up to `reader` that store to bytes of
    `source` (they are to move after the readers, `_movable`); None where
    something else there frees those bytes, the reader itself stores to
    them, or an op is neither a nest nor `BENIGN`."""
    span = _span(copy.next_op, reader)
    if span is None:
        return None
    found: list[Operation] = []
    for current in span:
        if isinstance(current, memref.DeallocOp):
            if nests.overlap(current.memref, source):
                return None
        elif isinstance(current, affine.ForOp):
            stored = nests.stores(current)
            if stored is None:
                return None
            if any(nests.overlap(m, source) for m in stored):
                if current is reader:
                    return None
                found.append(current)
    return found


class Nests:
    """What `copy_nest` makes of a nest and the buffers it stores to (None
    for a nest holding a region other than a loop's), found once per nest,
    and the bytes each buffer covers (`overlap`):
    `forward` looks at the nests between each copy and its readers, again
    for each copy. A forward rewrites the readers' loads only (`rewritten`
    forgets their copies); what a nest stores stays."""

    def __init__(self) -> None:
        self._copies: dict[Operation, Copy | None] = {}
        self._stores: dict[Operation, set[SSAValue] | None] = {}
        self._bytes: dict[SSAValue, tuple[SSAValue, int, int] | None] = {}

    def copy(self, nest: affine.ForOp) -> Copy | None:
        """`copy_nest(nest)`."""
        if nest not in self._copies:
            self._copies[nest] = copy_nest(nest)
        return self._copies[nest]

    def overlap(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether two buffers may share a byte (views of one buffer compared
        by their ranges; distinct allocations and arguments never do)."""
        first, second = self._bytes_of(a), self._bytes_of(b)
        if first is None or second is None:
            return True
        (base_a, lo_a, hi_a), (base_b, lo_b, hi_b) = first, second
        return base_a is base_b and lo_a < hi_b and lo_b < hi_a

    def _bytes_of(self, value: SSAValue) -> tuple[SSAValue, int, int] | None:
        """`_bytes(value)` (a buffer's view and type stay as they are)."""
        if value not in self._bytes:
            self._bytes[value] = _bytes(value)
        return self._bytes[value]

    def rewritten(self, nest: affine.ForOp) -> None:
        """Forget the copy of `nest`, whose load was rewritten."""
        self._copies.pop(nest, None)

    def stores(self, nest: affine.ForOp) -> set[SSAValue] | None:
        """The buffers `nest` stores to (None: it holds a non-loop region)."""
        if nest not in self._stores:
            self._stores[nest] = _stored(nest)
        return self._stores[nest]


def _stored(nest: affine.ForOp) -> set[SSAValue] | None:
    """The buffers `nest` stores to (None: it holds a non-loop region)."""
    stored: set[SSAValue] = set()
    for op in nest.walk():
        if op.regions and not isinstance(op, affine.ForOp):
            return None
        if isinstance(op, affine.StoreOp | memref.StoreOp):
            stored.add(op.memref)
    return stored


def _movable(nest: Operation, last: Operation, nests: Nests) -> bool:
    """Whether `nest` may run after `last` instead (the ops between touch
    no byte it stores, and store no byte it reads)."""
    span = _span(nest.next_op, last)
    if span is None:
        return False
    writes = _accessed(nest, stores=True)
    touched = writes | _accessed(nest, stores=False)
    for current in span:
        if isinstance(current, memref.DeallocOp):
            if any(nests.overlap(current.memref, m) for m in touched):
                return False
        elif isinstance(current, affine.ForOp):
            theirs = _accessed(current, stores=True)
            read = _accessed(current, stores=False)
            if any(nests.overlap(a, b) for a in writes for b in theirs | read):
                return False
            if any(nests.overlap(a, b) for a in touched for b in theirs):
                return False
    return True


def _span(first: Operation | None, last: Operation) -> list[Operation] | None:
    """The top-level ops from `first` to `last`, both included: None unless
    `last` follows and each is a nest, a `dealloc` or `BENIGN`."""
    span: list[Operation] = []
    current = first
    while current is not None:
        if not isinstance(current, (affine.ForOp, memref.DeallocOp, *BENIGN)):
            return None
        span.append(current)
        if current is last:
            return span
        current = current.next_op
    return None


def _accessed(nest: Operation, *, stores: bool) -> set[SSAValue]:
    """The buffers `nest` stores to (or loads from)."""
    kinds = (
        (affine.StoreOp, memref.StoreOp) if stores else (affine.LoadOp, memref.LoadOp)
    )
    return {op.memref for op in nest.walk() if isinstance(op, kinds)}  # type: ignore[attr-defined]


def _bytes(value: SSAValue) -> tuple[SSAValue, int, int] | None:
    """The buffer `value` views, and the byte range it covers in it (None
    where the offset is not a constant)."""
    buffer_type = value.type
    assert isinstance(buffer_type, MemRefType)
    owner = value.owner
    if isinstance(owner, memref.ViewOp):
        offset = owner.byte_shift.owner
        if not isinstance(offset, arith.ConstantOp):
            return None
        start = offset.value.value.data  # type: ignore[union-attr]
        size = buffer_type.element_type.size  # type: ignore[union-attr]
        for dim in buffer_type.get_shape():
            size *= dim
        return owner.source, start, start + size
    return value, 0, 2**62
