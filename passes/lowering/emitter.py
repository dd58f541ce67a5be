"""Emitting affine loop nests over origin-index domains.

Op lowerings describe their computation per element, in origin coordinates:

```python
def body(nest: Nest, index: list[Ix]) -> None:
    nest.store(nest.unary(math.ExpOp, nest.load(x, index)), y, index)

emitter.for_each(origin_shape, body)
```

`for_each` runs the body once as a *probe* (no IR) to collect the storage
indices it needs, splits the domain so that they become affine in the loop
variables (`domain.py`), then emits one `affine.for` nest per piece with the
body inside. Loads of float16/bfloat16 buffers are extended to float32 and
stores truncate back, so every op computes in float32 as the reference does.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from xdsl.dialects import affine, arith, cf, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    f32,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import AttrSizedOperandSegments

from ge_dialect.scalar import is_unsigned
from passes.lowering.domain import (
    PIECE_LIMIT,
    block_chain,
    coalesced,
    piece_index,
    probe_variables,
    split_pieces,
)
from passes.lowering.index import Ix, Mod, Var, blocks_needed
from passes.lowering.layouts import Layout, plain_layout
from passes.lowering.unread_fills import Interval, unread_box

NEST_PIECES = 4
"""The most nests `Emitter.for_each` splits a piece of a copy's domain (a
nest of one load and one store) into to make its indices affine
(`domain.refine`; others up to `domain.PIECE_LIMIT`). Each nest sweeps
the loops the split leaves whole: a channel shuffle's 40 nests of 1 to 4
lanes each swept every pixel, reading and writing whole lines of C0 for
those lanes (its last block's 8 lanes: 8 nests of one lane); as one nest
its lanes are read through `floordiv`/`mod` (a native kernel's table of
offsets, `native_operands._offset_table`) in one sweep. A concat at
channel 17 keeps its 2 nests of whole vectors."""


@dataclass(frozen=True)
class Buffer:
    """A memref holding a tensor, with the layout that indexes it."""

    memref: SSAValue
    layout: Layout


def probe_result_type(
    op_class: Callable[..., Operation], args: Sequence[Any]
) -> Attribute:
    """The result type `op_class(*args)` would have, without building it: a
    comparison's is i1, a select's its chosen operands', a bitcast's its
    target type, every other arith/math op's its first operand's."""
    if op_class in (arith.CmpfOp, arith.CmpiOp):
        return i1
    if op_class is arith.SelectOp:
        return args[1].type
    if op_class is arith.BitcastOp:
        return args[1]
    return args[0].type


@dataclass(frozen=True)
class ProbeValue:
    """What a probing nest returns instead of an SSA value."""

    type: Attribute


Value = SSAValue | ProbeValue

T = TypeVar("T")

Accesses = list[tuple[bool, Buffer, list[Ix]]]
"""What a probing nest saw: (is a store, buffer, storage index) per access."""


@functools.cache
def compute_type(element_type: Attribute) -> Attribute:
    """The type arithmetic runs in: float32 for floats narrower than it
    (found once per type)."""
    if is_float(element_type) and element_type.bitwidth < 32:  # type: ignore[union-attr]
        return f32
    return element_type


@dataclass
class Nest:
    """The body of one loop nest: loads, stores and arithmetic at one point.

    A probing nest (no `block`) builds no IR; it records the accesses so the
    emitter can choose block splits and the loop order.
    """

    emitter: Emitter
    block: Block | None
    ivs: dict[Var, SSAValue] = field(default_factory=dict)
    accesses: list[tuple[bool, Buffer, list[Ix]]] = field(default_factory=list)

    def _add(self, op: Operation) -> SSAValue:
        assert self.block is not None
        self.block.add_op(op)
        return op.results[0]

    def _access(self, index: Sequence[Ix]) -> tuple[AffineMapAttr, list[SSAValue]]:
        """The map and operands of an affine access at `index`. Loads and
        stores are created with them as their builders would (the IRDL
        builder's handling of their operand groups was two thirds of their
        construction)."""
        variables, map_attr = access_map(tuple(index))
        operands = [self.ivs[v] for v in variables] if self.block is not None else []
        return map_attr, operands

    def load(self, buffer: Buffer, index: Sequence[Ix], *, raw: bool = False) -> Value:
        """The element at origin `index` (in compute type unless `raw`)."""
        storage = buffer.layout.storage_index(index)
        self.accesses.append((False, buffer, storage))
        element = buffer.layout.element_type
        if self.block is None:
            value: Value = ProbeValue(element)
        else:
            map_attr, operands = self._access(storage)
            load = affine.LoadOp.create(
                operands=[buffer.memref, *operands],
                result_types=[element],
                properties={"map": map_attr},
            )
            value = self._add(load)
        return value if raw else self.convert(value, compute_type(element))

    def index_value(self, ix: Ix) -> Value:
        """An `index` value computing `ix` (an `affine.apply`)."""
        if self.block is None:
            return ProbeValue(INDEX)
        map_attr, operands = self._access([ix])
        return self._add(affine.ApplyOp(operands, map_attr))

    def load_at(self, buffer: Buffer, indices: Sequence[Value]) -> Value:
        """The element of a plain (row-major) buffer at computed `index`
        values (a `memref.load`: data-dependent indexing, as a gather)."""
        element = buffer.layout.element_type
        if self.block is None:
            return ProbeValue(element)
        load = memref.LoadOp.get(buffer.memref, list(indices))  # type: ignore[arg-type]
        return self._add(load)

    def store_at(self, value: Value, buffer: Buffer, indices: Sequence[Value]) -> None:
        """Store `value` (converted to the buffer's type) at computed `index`
        values of a plain (row-major) buffer (a `memref.store`: a scatter;
        the JIT runs such a nest in order, element by element)."""
        value = self.convert(value, buffer.layout.element_type)
        if self.block is not None:
            store = memref.StoreOp.get(value, buffer.memref, list(indices))  # type: ignore[arg-type]
            self.block.add_op(store)

    def store(self, value: Value, buffer: Buffer, index: Sequence[Ix]) -> None:
        """Store `value` (converted to the buffer's type) at origin `index`."""
        storage = buffer.layout.storage_index(index)
        self.accesses.append((True, buffer, storage))
        value = self.convert(value, buffer.layout.element_type)
        if self.block is not None:
            assert isinstance(value, SSAValue)
            map_attr, operands = self._access(storage)
            store = affine.StoreOp.create(
                operands=[value, buffer.memref, *operands],
                properties={"map": map_attr},
            )
            self.block.add_op(store)

    def check(self, condition: Value, message: str) -> None:
        """Fail the run with `message` (a whole diagnostic) where `condition`
        (an i1) is false: a `cf.assert`, for checks on data (a gather's
        indices)."""
        if self.block is not None:
            assert isinstance(condition, SSAValue)
            self.block.add_op(cf.AssertOp(condition, message))

    def const(self, value: float | int, type_: Attribute = f32) -> Value:
        """A constant (hoisted to the function entry)."""
        if self.block is None:
            return ProbeValue(type_)
        return self.emitter.constant(value, type_)

    def op(self, op_class: Callable[..., Operation], *args: Any) -> Value:
        """Apply an arith/math op class to operands (and attributes such as a
        comparison predicate); a probe's result has the op's result type."""
        if self.block is None:
            return ProbeValue(probe_result_type(op_class, args))
        return self._add(op_class(*args))

    def convert(self, value: Value, to: Attribute) -> Value:
        """`value` converted to type `to` (float/int extension, truncation, casts)."""
        source = value.type
        if source == to:
            return value
        if self.block is None:
            return ProbeValue(to)
        if is_float(source) and is_float(to):
            wider = source.bitwidth < to.bitwidth  # type: ignore[union-attr]
            return self._add((arith.ExtFOp if wider else arith.TruncFOp)(value, to))
        if is_float(source):
            if isinstance(to, IntegerType) and to.width.data == 1:
                zero = self.const(0.0, source)
                return self._add(arith.CmpfOp(value, zero, "une"))
            cast = arith.FPToUIOp if is_unsigned(to) else arith.FPToSIOp
            return self._add(cast(value, to))
        assert isinstance(source, IntegerType)
        unsigned = source.width.data == 1 or is_unsigned(source)
        if is_float(to):
            cast = arith.UIToFPOp if unsigned else arith.SIToFPOp
            return self._add(cast(value, to))
        assert isinstance(to, IntegerType)
        if to.width.data < source.width.data:
            if to.width.data == 1:
                zero = self.const(0, source)
                return self._add(arith.CmpiOp(value, zero, "ne"))
            return self._add(arith.TruncIOp(value, to))
        if to.width.data == source.width.data:  # ui8 <-> i8: the same bits
            return self._add(arith.BitcastOp(value, to))
        extend = arith.ExtUIOp if unsigned else arith.ExtSIOp
        return self._add(extend(value, to))


class Emitter:
    """Appends ops to a function body; allocates buffers; emits loop nests."""

    def __init__(self, block: Block):
        self.block = block
        self.entry = block
        """The function's entry block, where constants go."""
        self._constants: dict[tuple[Attribute, float | int], SSAValue] = {}
        self._first_non_constant: Operation | None = None
        self._plans: dict[Hashable, Any] = {}
        self._padding: list[
            tuple[Buffer, tuple[Sequence[int], Sequence[int]] | None, Operation]
        ] = []
        """Padding fills to emit (`fill_read_padding`): buffer, box, and the
        op allocating the buffer."""

    def add(self, op: Operation) -> Operation:
        """Append `op` to the current block (the function body, or a region
        of a control-flow op being lowered)."""
        self.block.add_op(op)
        return op

    @contextmanager
    def into(self, block: Block) -> Iterator[None]:
        """Emit into `block` (a region of a control-flow op) for a while."""
        outer, self.block = self.block, block
        try:
            yield
        finally:
            self.block = outer

    def constant(self, value: float | int, type_: Attribute) -> SSAValue:
        """An `arith.constant`, created once per value and type at the entry."""
        key = (type_, value)
        if key not in self._constants:
            attr = (
                FloatAttr(float(value), type_)  # type: ignore[arg-type]
                if is_float(type_)
                else IntegerAttr(int(value), type_)  # type: ignore[arg-type]
            )
            op = arith.ConstantOp(attr, type_)
            if self.entry.first_op is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, self.entry.first_op)
            self._constants[key] = op.result
        return self._constants[key]

    def alloc(
        self,
        layout: Layout,
        fill: float | None = None,
        arena: tuple[SSAValue, int] | None = None,
        *,
        zero_padding: bool = True,
    ) -> Buffer:
        """A new buffer for `layout`, filled with `fill` if given.

        Without `fill`, a layout with padding is zero-filled (where a load
        may read it: `fill_read_padding`), so padding never holds garbage
        (the rest is written by the op), unless not
        `zero_padding` (a scratch buffer nothing reads the padding of, an
        accumulator). With `arena`
        (a 1-D i8 memref and a byte offset) the buffer is a `memref.view`
        into it instead of a `memref.alloc`.
        """
        memref_type = buffer_type(layout)
        if arena is None:
            op = self.add(memref.AllocOp([], [], memref_type))
        else:
            source, offset = arena
            shift = self.constant(offset, INDEX)
            op = self.add(
                memref.ViewOp.create(
                    operands=[source, shift], result_types=[memref_type]
                )
            )
        buffer = Buffer(op.results[0], layout)
        if fill is not None:
            self.fill(buffer, fill)
        elif layout.has_padding and zero_padding:
            boxes = layout.padding_boxes()
            for box in boxes or [None]:
                self.constant(0, layout.element_type)  # made where its fill is
                self._padding.append((buffer, box, op))
        return buffer

    def fill_read_padding(self) -> None:
        """Emit the padding fills `alloc` left for the end of the function
        (once its ops and return are built), each right after its buffer's
        allocation (as if made there), but those whose box no load reads
        (`unread_fills.unread_box`): a recurrent model's steps pad hundreds
        of buffers whose padding nothing reads (CRNN: 1267 fills, 8915 of
        the 24000 ops its lowering built, all erased after by
        `drop_unread_fills`). Without them `forward_copies` also forwards
        the copies such a fill stood in the way of (an arena view sharing
        the bytes of a copy's source, between the copy and its reader)."""
        ranges: dict[SSAValue, Interval | None] = {}
        after: dict[Operation, Operation] = {}
        for buffer, box, allocation in self._padding:
            shape = buffer.layout.storage_shape
            start, extent = box or ([0] * len(shape), shape)
            stored = [(s, s + e - 1) for s, e in zip(start, extent, strict=True)]
            if unread_box(buffer.memref, [stored], ranges):
                continue
            scratch = Block()
            with self.into(scratch):
                self.fill(buffer, 0, box)
            block = allocation.parent_block()
            assert block is not None
            for op in list(scratch.ops):
                op.detach()
                block.insert_op_after(op, after.get(allocation, allocation))
                after[allocation] = op
        self._padding.clear()

    def dealloc(self, buffer: Buffer) -> None:
        """Free a buffer allocated with `alloc`."""
        self.add(memref.DeallocOp.get(buffer.memref))

    def fill(
        self,
        buffer: Buffer,
        value: float | int,
        box: tuple[Sequence[int], Sequence[int]] | None = None,
    ) -> None:
        """Store `value` into every element of the buffer, padding included,
        or of the (start, extent) `box` of it (the stores index a plain
        layout of its storage shape: a fill's nests are planned once per
        storage shape and box, `_nests`)."""
        layout = buffer.layout
        whole = Buffer(
            buffer.memref, plain_layout(layout.storage_shape, layout.element_type)
        )
        start, extent = box or ([0] * len(layout.storage_shape), layout.storage_shape)

        def body(nest: Nest, index: list[Ix]) -> None:
            shifted = [ix + first for ix, first in zip(index, start, strict=True)]
            nest.store(nest.const(value, layout.element_type), whole, shifted)

        self.for_each(extent, body)

    def for_each(
        self,
        sizes: Sequence[int],
        body: Callable[[Nest, list[Ix]], None],
        whole: frozenset[int] = frozenset(),
    ) -> None:
        """Run `body` at every origin index of `sizes`, as affine loop nests
        (the axes `whole` one loop each: no blocks, no cuts)."""
        for order, index in self._nests(sizes, body, whole):
            self._emit_nest(order, list(index), body)

    def _nests(
        self,
        sizes: Sequence[int],
        body: Callable[[Nest, list[Ix]], None],
        whole: frozenset[int] = frozenset(),
    ) -> list[tuple[list[Var], list[Ix]]]:
        """The nests `for_each` emits: each one's loop variables in the
        storage order of its accesses and the origin index over them.

        A probe finds the blocks that make every access affine; the domain
        is split into pieces (`domain.split_pieces`), one nest each. The
        nests depend only on what the body accesses at each index, which
        its accesses at the probe's index give (the buffers, their layouts
        and the storage index of each): they are planned once per emitter
        for each (a recurrent model's steps and a transformer's layers
        repeat the same ops on other buffers).
        """
        probe = Nest(self, None)
        body(probe, probe_variables(sizes))
        return self.planned(
            (tuple(sizes), whole, plan_key(probe.accesses)),
            lambda: list(self._plan(sizes, body, whole, probe.accesses)),
        )

    def planned(self, key: Hashable, plan: Callable[[], T]) -> T:
        """`plan()`, made once per emitter for each `key` (all the plan
        depends on: `plan_key` of a body's probed accesses and the
        domain)."""
        if key not in self._plans:
            self._plans[key] = plan()
        return self._plans[key]

    def _plan(
        self,
        sizes: Sequence[int],
        body: Callable[[Nest, list[Ix]], None],
        whole: frozenset[int],
        probed: Accesses,
    ) -> Iterator[tuple[list[Var], list[Ix]]]:
        """The nests of `_nests`, `probed` the body's accesses at the probe's
        index."""
        required: dict[int, set[int]] = defaultdict(set)
        for _, _, storage in probed:
            for ix in storage:
                for var, block in blocks_needed(ix):
                    required[var.id].add(block)
        for axis in whole:
            required.pop(axis, None)
        chains = [block_chain(size, required[axis]) for axis, size in enumerate(sizes)]

        probes: dict[tuple[Ix, ...], Accesses] = {}

        def accesses(index: list[Ix]) -> Accesses:
            """The body's accesses at `index`, probed once (refining and
            ordering a piece's loops ask for the same ones)."""
            key = tuple(index)
            if key not in probes:
                piece_probe = Nest(self, None)
                body(piece_probe, index)
                probes[key] = piece_probe.accesses
            return probes[key]

        def indices(index: list[Ix]) -> list[Ix]:
            return storage_indices(accesses(index))

        split = in_any_order(probed)
        copies = sorted(is_store for is_store, _, _ in probed) == [False, True]
        limit = NEST_PIECES if copies else PIECE_LIMIT
        refined = split_pieces(
            sizes, chains, 0, indices if split else None, limit, whole
        )
        for piece in refined:
            index, variables = piece_index(
                coalesced(piece, indices) if split else piece, 0
            )
            yield loop_order(accesses(index), list(variables.values())), index

    def _emit_nest(
        self,
        order: Sequence[Var],
        index: list[Ix],
        body: Callable[[Nest, list[Ix]], None],
    ) -> None:
        loops, ivs = open_loops(self.block, order)
        body(Nest(self, loops[-1] if loops else self.block, ivs), index)
        close_loops(loops)


def buffer_type(layout: Layout) -> MemRefType:
    """The memref type of a buffer of `layout`."""
    return memref_type(layout.element_type, layout.storage_shape)


@functools.lru_cache(maxsize=1 << 12)
def memref_type(element_type: Attribute, shape: tuple[int, ...]) -> MemRefType:
    """`MemRefType(element_type, shape)`, built once per type and shape (an
    xDSL type's construction checks its parameters: a tenth of a recurrent
    model's lowering, which allocates a buffer per op)."""
    return MemRefType(element_type, shape)


@functools.lru_cache(maxsize=1 << 14)
def access_map(index: tuple[Ix, ...]) -> tuple[tuple[Var, ...], AffineMapAttr]:
    """The variables of `index` (in first-use order) and the map from them
    to it, built once per index (nests of one model repeat the same
    accesses)."""
    variables = tuple(dict.fromkeys(v for ix in index for v in ix.variables()))
    dims = {v: i for i, v in enumerate(variables)}
    exprs = tuple(ix.to_affine(dims) for ix in index)
    return variables, AffineMapAttr(AffineMap(len(variables), 0, exprs))


@functools.cache
def is_float(type_: Attribute) -> bool:
    """Whether `type_` is a floating-point type (found once per type)."""
    return isinstance(type_, AnyFloat)


@functools.cache
def constant_bound(value: int) -> AffineMapAttr:
    """The map of a loop bound `value` (`() -> (value)`), built once: a
    lowering opens thousands of loops over a few extents."""
    return AffineMapAttr(AffineMap.constant_map(value))


INDEX = IndexType()
"""The type of loop variables and index values, made once (an xDSL type's
construction checks its parameters; a lowering opens thousands of loops)."""

UNIT_STEP = IntegerAttr.from_index_int_value(1)
"""The step of every loop the emitter opens."""

NO_BOUND_OPERANDS = DenseArrayBase.from_list(i32, [0, 0, 0])
"""The operand segment sizes of a loop with constant bounds and no
loop-carried values."""


def open_loops(
    block: Block | None, order: Sequence[Var]
) -> tuple[list[Block], dict[Var, SSAValue]]:
    """One `affine.for` per variable of `order` (over its range), each inside
    the previous one, the first at the end of `block`: the loops' bodies
    and the induction variable of each variable.

    Each loop is created with the properties `affine.ForOp.from_region`
    gives it, in its order, without the IRDL builder's handling of its
    three empty operand groups (two thirds of the construction of a loop; a
    lowering opens thousands).
    """
    assert block is not None
    loops: list[Block] = []
    ivs: dict[Var, SSAValue] = {}
    for var in order:
        inner = Block(arg_types=[INDEX])
        block.add_op(
            affine.ForOp.create(
                properties={
                    "lowerBoundMap": constant_bound(var.lo),
                    "upperBoundMap": constant_bound(var.hi + 1),
                    "step": UNIT_STEP,
                    AttrSizedOperandSegments.attribute_name: NO_BOUND_OPERANDS,
                },
                regions=[Region(inner)],
            )
        )
        ivs[var] = inner.args[0]
        loops.append(inner)
        block = inner
    return loops, ivs


def close_loops(loops: Sequence[Block]) -> None:
    """End the bodies `open_loops` opened with their `affine.yield`."""
    for block in loops:
        block.add_op(affine.YieldOp.get())


def plan_key(accesses: Accesses) -> Hashable:
    """What the nests of a body depend on, beside its domain
    (`Emitter._nests`): its accesses at the probe's index, each buffer by
    the order it first appears in (a nest storing into a buffer it also
    reads keeps its order, `in_any_order`)."""
    numbers: dict[SSAValue, int] = {}
    return tuple(
        (
            is_store,
            numbers.setdefault(buffer.memref, len(numbers)),
            buffer.layout,
            tuple(storage),
        )
        for is_store, buffer, storage in accesses
    )


def storage_indices(accesses: Sequence[tuple[bool, Buffer, list[Ix]]]) -> list[Ix]:
    """Every buffer index of `accesses` (a probe's)."""
    return [ix for _, _, storage in accesses for ix in storage]


def in_any_order(accesses: Sequence[tuple[bool, Buffer, list[Ix]]]) -> bool:
    """Whether a nest with `accesses` may run its points in any order: each
    buffer it stores to it reads and writes at one index only (an element
    of a scan reads an earlier one: splitting its domain would reorder)."""
    stored = {buffer.memref for is_store, buffer, _ in accesses if is_store}
    first: dict[SSAValue, list[Ix]] = {}
    return all(
        first.setdefault(buffer.memref, storage) == storage
        for _, buffer, storage in accesses
        if buffer.memref in stored
    )


def loop_order(
    accesses: Sequence[tuple[bool, Buffer, list[Ix]]], variables: Sequence[Var]
) -> list[Var]:
    """Loops in the storage order of the stores, then of the loads.

    Within one storage dimension, larger coefficients go outside. A
    variable that moves a blocked index by less than a block (channel
    `34 g + o` as `(34 g + o) floordiv 16` and `(34 g + o) mod 16`: `o`)
    is ordered by the `mod`, the lanes it mostly moves.
    """
    wanted = set(variables)
    order: dict[Var, None] = {}
    for _, _, storage in sorted(accesses, key=lambda access: not access[0]):
        lanes = {
            v
            for ix in storage
            for atom in ix.quotients()
            if isinstance(atom, Mod)
            for v, c in atom.arg.terms
            if isinstance(v, Var) and abs(c) < atom.k
        }
        for ix in storage:
            moduli = {
                v
                for atom in ix.quotients()
                if isinstance(atom, Mod)
                for v in atom.arg.variables()
            }
            for var in index_order(ix):
                if var in wanted and (var not in lanes or var in moduli):
                    order.setdefault(var)
    for var in variables:
        order.setdefault(var)
    return list(order)


@functools.lru_cache(maxsize=1 << 14)
def index_order(ix: Ix) -> tuple[Var, ...]:
    """The variables of one storage index in the order `loop_order` takes
    them: its direct terms by falling coefficient, then every variable
    (found once per index: a model's nests share most of theirs)."""
    direct = sorted(
        ((v, c) for v, c in ix.terms if isinstance(v, Var)),
        key=lambda term: -abs(term[1]),
    )
    return tuple(dict.fromkeys([v for v, _ in direct] + ix.variables()))
