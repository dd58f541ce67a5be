"""Loop nests as native code: one call instead of many NumPy calls.

The NumPy emitter (`numpy_nest`) runs a nest as NumPy calls over strided
views: a fill, a padding copy or an elementwise chain is a few calls, but a
depthwise convolution is two calls per tap, a pooling window one per tap,
and an access through a blocked layout's `floordiv`/`mod` a relayout copy.
`NativeNest` writes such a nest out as it is written (the loops in their
order, one element at a time) for a native compiler, so it runs in one call
without temporaries. Nests whose accumulation is a real matrix product stay
with the NumPy emitter, which hands them to BLAS (`schedule.kernels`).

This module walks a nest the analysis (`analysis.loop_nest`) accepted:
loops, register tiles, sunk loops, accumulators held in locals, packed
weights. The language is a subclass's (`c.CNest`): which arith/math ops it
spells (`ops.OPS`'s column for it), its statements and literals.

What a kernel computes is what the NumPy emitter computes, bit for bit,
for the ops whose entry says so (`ops.Semantics.c_exact`): IEEE `+ - * /`,
`sqrt`, comparisons, selects, casts, and max/min written as NumPy's (NaN
propagates, the second operand on a tie, so `max(0.0, -0.0)` is `-0.0`);
the C library's transcendental functions are within a few ULP of NumPy's,
and a sum's multiply-adds may fuse (the language's `FMA`: one rounding per
term, as BLAS's); float16 stays with NumPy. Only the order of
a sum's terms may differ, as between the NumPy emitter's reductions and
the scalar path.

A gather whose indices are read from constant tables (a resize's rows)
reads its offsets from a table of them. A nest that gathers or scatters
through indices it computes (ScatterND, GridSample, MaxUnpool, a KV-cache
write), or checks its data (`cf.assert`), is written exactly as it is
(`in_order`): its loops in their order, one element at a time, nothing
tiled, sunk or split over threads, so duplicate positions combine in the
order they come, as in the scalar path (which ran such nests in Python,
100-1000x slower). Every computed index is checked against its axis before
it is used (`_computed_element`); the kernel returns the number of the
first check that fails and its call raises that check's diagnostic
(`c_runtime.checked`): never an access outside a buffer.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import affine, arith, cf
from xdsl.dialects import memref as memref_dialect
from xdsl.ir import Operation, OpResult, SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    LoopNest,
    Unsupported,
    exact_bounds,
)
from ge_runtime.jit.emit.native_operands import (
    UNROLLED,
    Element,
    Gathered,
    NativeOperands,
)
from ge_runtime.jit.emit.native_tiling import LoopTiling
from ge_runtime.jit.emit.relayouts import Footprint, footprint
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import (
    FUSED_MULTIPLY_ADD,
    SUMS,
    JITError,
    constant_value,
    numpy_dtype,
)
from passes.lowering.index import Ix

PARALLEL_WORK = 1 << 16
"""Loop iterations a nest runs, at least, for its kernel to have a loop
that may be split over threads; how many a run asks for is its choice
(`c_runtime.PARALLEL_WORK`, at least this): below, waking them (tens of
microseconds, `c_runtime.WAIT_POLICY`) costs more than it saves."""

PARALLEL_ITERATIONS = 16
"""Loops split over threads are collapsed with the ones nested in them
until they run at least this many iterations together."""

Request = tuple[str, Any, str]
"""What an emission asks of the generated function's code (`NativeNest.tape`)
and the name it got: ("fresh", prefix, name) a new name, ("name", value,
name) a value's name, ("bind", (name, obj), "") a binding in its namespace."""

NATIVE_TYPES = frozenset(
    np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int32, np.int64, bool)
)
"""Element types a native kernel computes exactly as NumPy does."""


class NativeNest(LoopTiling, NativeOperands):
    """One top-level `affine.for` nest as a call of a native kernel.

    Raises `Unsupported` for a nest a kernel should not take (an op or type
    its language does not spell, a gather, a GEMM-sized product accumulation).
    A subclass writes the language: the methods under "language" (which
    ops it spells, `_expression`, the statements and literals).
    """

    def __init__(self, root: affine.ForOp, env: CodeEnv):
        self.env = env
        self.nest = LoopNest(root, env.constants, env.root)
        self.root = root
        self._tiles = {}
        self._segments = {}
        self._footprints: dict[SSAValue, Footprint] = {}
        self._walked: dict[affine.ForOp, list[Operation]] = {}
        self.private: frozenset[SSAValue] = frozenset()
        """Buffers only this nest uses whose stores need not happen: every
        load of them reads a value the kernel still holds in a local."""
        self.in_order = False
        """Whether the kernel runs the nest's loops in their order, one
        element at a time, and nothing else (`_data_dependent`)."""
        self.tape: list[Request] = []
        """What the emission asked of the function's code, in order
        (`_fresh`, `_name`, `_bind`): another nest of the same key replays
        it (`native_memo`)."""
        self.bounds: dict[Operation, list[tuple[int, int]]] | None = None
        """The least and greatest index each affine access reaches, per
        axis (those in loops that run), once checked within its buffer."""
        self._start()

    def _start(self) -> None:
        """Empty code: what one emission of the kernel builds."""
        self.params: list[int] = []
        self.args: list[str] = []
        """Python names in the enclosing function, in argument order."""
        self.arg_strides: list[tuple[int, ...] | None] = []
        """Per argument, its element strides (row-major, or its memref's;
        None for a scalar)."""
        self.arg_offsets: list[int | None] = []
        """Per argument, the element its address points at (`_element`;
        None until the kernel indexes it)."""
        self.arg_dtypes: list[np.dtype] = []
        self.arg_shapes: list[tuple[int, ...] | None] = []
        self.locals: dict[SSAValue, str] = {}
        self._arguments: dict[SSAValue | str, str] = {}
        self.body: list[str] = []
        self.registers: dict[Element, str] = {}
        """Buffer elements held in a local while a loop runs (accumulators)."""
        self.checks: list[str] = []
        """The diagnostic of each check the kernel makes (`_fail_unless`):
        the kernel returns the number of the first that fails, from 1."""
        self.in_range: set[tuple[str, int]] = set()
        """Indices (a local's name) checked against an axis of that size
        here (earlier in this loop body or an enclosing one)."""
        self.known: dict[Element, str] = {}
        """Buffer elements whose value a local holds here (stored or loaded
        earlier in this loop body or an enclosing one, not written since)."""
        self.read_from_memory: set[SSAValue] = set()
        self.stored: set[SSAValue] = set()
        self._held = 0
        self._values = 0
        """Values defined (their names are unique: a tile's code is written
        again for its last strip)."""
        self._terms: dict[SSAValue, list[str]] = {}
        """Products whose multiply-add is one fused op: their factors."""
        self.packing: list[str] = []
        """Lines before the call: weights gathered into the order the kernel
        reads them (once: the function's `prepare` computes them)."""
        self.offset_lines: list[tuple[int, int, SSAValue, int, int]] = []
        """Where the call's lines (`packing`'s, then `_call`'s) write the
        offset of the first element an access of a buffer reaches (an
        argument's address, `arg_offsets`; a packed weight's view): the
        line, the column after its indentation, the buffer, the offset, and
        how much one element adds to it. A nest of the same key but for its
        accesses' constant offsets replays them with its own
        (`native_memo`)."""
        self._packed: dict[Element, tuple[str, tuple[int, ...]]] = {}
        self._copy_point: tuple[int, str, frozenset[int]] | None = None
        """Where the sunk region being written starts: the position in
        `body` copies of its operands go (`_packed_operand`), their
        indentation, and the loops inside the region."""
        self._packed_operands: dict[Element, str] = {}
        """The copies made for the region, by the element they read."""
        self._copies = 0
        """Copies made (their names are unique)."""
        self._sunk: int | None = None
        """The loop `_emit_sunk` is moving innermost, while it does."""
        self._tile: list[tuple[int, int, str | None]] = []
        """The loops moved in with it (`_register_tile`), outer first: each
        loop's number, how many of its iterations the tile takes, and the
        first one's (None: all of them)."""
        self._arrays = 0
        """Local arrays made (their names are unique)."""
        self._sank = False
        """Whether `_emit_sunk` moved a loop."""
        self._mirrors: dict[Element, str] = {}
        """Elements the sunk loop owns, held in a local array by its variable."""
        self._tables: dict[tuple[int, ...], str] = {}
        """Tables of offsets (`_offset_table`) by their entries, named."""
        self.tables: list[str] = []
        """Their declarations, before the kernel's first statement."""

    def compile(self, indent: str) -> list[str]:
        """The call's source (the kernel is compiled now, or loaded)."""
        nest = self.nest
        nest.analyse_values()
        self._numbers = {
            op: number
            for number, op in enumerate(
                op for op in self._ops(self.root) if isinstance(op, affine.ForOp)
            )
        }  # the order `LoopNest` numbers its axes in
        self._innermost = {
            number
            for op, number in self._numbers.items()
            if not any(isinstance(o, affine.ForOp) for o in op.body.block.ops)
        }
        self._gathers, self._table_reads = self._constant_gathers()
        self.in_order = bool(self._data_dependent())
        for statement in nest.statements:
            self._check(statement.op)
        self._check_not_a_product()
        bounds = {}
        for statement in nest.statements:
            op = statement.op
            if isinstance(op, affine.LoadOp | affine.StoreOp) and all(
                nest.axes[a].extent > 0 for a in statement.loops
            ):
                shape = op.memref.type.get_shape()
                bounds[op] = nest.check_bounds(op, nest.access_index(op), shape)
        self.bounds = bounds
        self._emit()
        private = self._private_buffers() - self.read_from_memory
        if private:  # again, without the stores nothing reads
            self.private = frozenset(private)
            self._start()
            self._emit()
        stored = {self._arguments[m] for m in self.stored}
        written = tuple(
            i for i, a in enumerate(self._arguments.values()) if a in stored
        )
        return self._call(indent, list(self._arguments.values()), written)

    # -- the function's names -----------------------------------------------

    def _fresh(self, prefix: str) -> str:
        """A new name in the generated function (`CodeEnv.fresh`)."""
        name = self.env.fresh(prefix)
        self.tape.append(("fresh", prefix, name))
        return name

    def _name(self, value: SSAValue) -> str:
        """The generated function's name of a value from outside the nest."""
        name = self.env.name(value)
        self.tape.append(("name", value, name))
        return name

    def _bind(self, name: str, obj: Any) -> None:
        """Bind `obj` in the generated function's namespace."""
        self.tape.append(("bind", (name, obj), ""))
        self.env.namespace[name] = obj

    # -- what a kernel takes ------------------------------------------------

    def _constant_gathers(
        self,
    ) -> tuple[dict[Operation, list[Ix | Gathered]], set[Operation]]:
        """The nest's gathers whose indices are loop variables or read from
        constant integer tables (a nearest resize's source rows), each
        index as an expression or a table and where it reads; and the ops
        reading those tables (the table's loads, their casts to index),
        which no kernel computes: the element's offset is a table of
        offsets (`_offset_table`). A gather through computed data stays
        with NumPy (`_check`)."""
        nest = self.nest
        gathers: dict[Operation, list[Ix | Gathered]] = {}
        for statement in nest.statements:
            op = statement.op
            if not isinstance(op, memref_dialect.LoadOp):
                continue
            index: list[Ix | Gathered] = []
            for operand in op.indices:
                if operand in nest.symbols:
                    index.append(nest.symbols[operand])
                    continue
                cast = operand.owner
                if not isinstance(cast, arith.IndexCastOp):
                    break
                load = cast.input.owner
                if (
                    not isinstance(load, affine.LoadOp)
                    or load.result not in nest.inside
                ):
                    break
                array = self.env.constant_arrays.get(load.memref)
                if array is None or array.dtype.kind not in "iu":
                    break
                index.append((array, tuple(nest.access_index(load))))
            else:
                gathers[op] = index
        allowed = set(gathers) | {f for gather in gathers for f in _feeding(gather)}
        kept = {
            gather: index
            for gather, index in gathers.items()
            if all(
                use.operation in allowed
                for op in _feeding(gather)
                for use in op.results[0].uses
            )
        }
        return kept, {op for gather in kept for op in _feeding(gather)}

    def _data_dependent(self) -> list[Operation]:
        """The nest's gathers and scatters through indices it computes (not
        read from constant tables) and its checks on the data. With any, the
        kernel is the nest as it is written (`in_order`): the loops in their
        order, no register tile, no loop sunk or split over threads, every
        computed index checked against its axis before it is used, so
        duplicate positions combine in the order they come (the last
        write wins) and a bad index is the error the first failing check
        raises (`_fail_unless`), as in the scalar path."""
        return [op for op in self.nest.data_dependent() if op not in self._gathers]

    def _check(self, op: Operation) -> None:
        if op in self._table_reads:
            return
        for value in [*op.operands, *op.results]:
            try:
                dtype = numpy_dtype(value.type)
            except JITError:
                raise Unsupported(f"type {value.type}") from None
            if dtype not in NATIVE_TYPES:
                raise Unsupported(f"element type {dtype} is left to NumPy")
        accesses = affine.LoadOp | affine.StoreOp | affine.ApplyOp
        if isinstance(op, accesses | memref_dialect.LoadOp | memref_dialect.StoreOp):
            return
        if not isinstance(op, arith.ConstantOp | cf.AssertOp):
            self._check_op(op)

    def _reduction_length(self) -> int:
        """The most terms a stored element sums: the product of the loops
        around a store that do not move it (1 without a reduction; above 1
        for a window or a sum, which NumPy runs tap by tap)."""
        nest = self.nest
        longest = 1
        for statement in nest.statements:
            if isinstance(statement.op, affine.StoreOp):
                moved = nest.ix_deps(nest.access_index(statement.op))
                terms = math.prod(
                    nest.axes[a].extent
                    for a in statement.loops
                    if nest.axes[a].position >= 0 and a not in moved
                )
                longest = max(longest, terms)
        return longest

    def _check_not_a_product(self) -> None:
        """An accumulated product whose factors each have axes of their own
        (a convolution or a matmul, not a depthwise one) is a GEMM: BLAS
        does it better."""
        for left, right in self._products():
            if left - right and right - left:
                raise Unsupported("a matrix product: left to BLAS")

    def _products(self) -> Iterator[tuple[frozenset[int], frozenset[int]]]:
        """The loop axes of the two factors of each product a store adds up."""
        nest = self.nest
        for statement in nest.statements:
            op = statement.op
            if not isinstance(op, affine.StoreOp):
                continue
            combine = op.value.owner
            if not isinstance(combine, Operation) or combine.name not in SUMS:
                continue
            for term in combine.operands:
                product = term.owner
                if isinstance(product, Operation) and product.name in SUMS.values():
                    left, right = (nest.live(v) for v in product.operands)
                    yield left, right

    # -- the language (a subclass's) ----------------------------------------

    def _call(
        self, indent: str, arguments: list[str], written: tuple[int, ...]
    ) -> list[str]:
        """The lines that make the kernel (from `self.body`) and call it;
        `written` are the positions of the arguments it stores to."""
        raise NotImplementedError

    def _param(self, value: int) -> str:
        """An integer of the nest (an extent, a coefficient, an offset)."""
        raise NotImplementedError

    def _tile_rows(self, extent: int) -> int:
        """The most rows of `extent` sums a register tile holds (the
        target's vector registers: `native_tiling.LoopTiling._register_tile`)."""
        raise NotImplementedError

    def _literal(self, constant: Any, value: SSAValue) -> str:
        """A constant of `value`'s type (an index constant: as `_param`)."""
        raise NotImplementedError

    def _floordiv(self, text: str, divisor: int) -> str:
        raise NotImplementedError

    def _modulo(self, text: str, divisor: int) -> str:
        raise NotImplementedError

    def _loop(self, indent: str, number: int, extent: str, start: int = 0) -> str:
        """The line opening loop `t{number}` over `range(start, extent)`."""
        raise NotImplementedError

    def _end_loop(self, indent: str) -> list[str]:
        """The lines closing a loop `_loop` opened."""
        raise NotImplementedError

    def _loop_of(
        self, indent: str, variable: str, extent: str, unroll: int | None = None
    ) -> str:
        """A loop of `variable` (unrolled `unroll` times): register tiles'
        (languages that sink loops)."""
        raise NotImplementedError

    def _vector_spans(self, extent: int) -> list[tuple[int, int]]:
        """The ranges a sunk loop of `extent` runs in, one loop each
        (languages that sink loops)."""
        raise NotImplementedError

    def _parallel(self, indent: str, loops: int, work: int) -> str:
        """The line making the `loops` loops opened next (perfectly nested)
        one iteration space split over the kernels' threads, when the nest's
        `work` (its iterations) reaches the run's least work for threads."""
        raise NotImplementedError

    def _subscript(
        self, buffer: str, indices: list[str], shift: int, table: str | None = None
    ) -> str:
        """An element of argument `buffer` (`indices` one per axis, plus
        `shift` elements, plus the entry `table` of a table of offsets)."""
        raise NotImplementedError

    def _table_declaration(self, name: str, entries: np.ndarray) -> str:
        """The statement making `name` a constant table of integer `entries`."""
        raise NotImplementedError

    def _fail_unless(self, indent: str, condition: str, message: str) -> None:
        """A check: the kernel stops, returning its number (`checks`), where
        `condition` is false; `message` is the diagnostic the call raises."""
        raise NotImplementedError

    def _index_within(self, index: str, size: int) -> str:
        """Whether the index `index` is in `0..size-1`."""
        raise NotImplementedError

    def _table(self, entries: np.ndarray) -> str:
        """The name of a constant table of `entries` (declared once)."""
        key = tuple(int(e) for e in entries)
        if key not in self._tables:
            name = self._tables[key] = f"g{len(self._tables)}"
            self.tables.append(self._table_declaration(name, entries))
        return self._tables[key]

    def _define(self, indent: str, name: str, dtype: np.dtype, value: str) -> str:
        """The statement making local `name` (of `dtype`) hold `value`."""
        raise NotImplementedError

    def _assign(self, indent: str, target: str, value: str) -> str:
        """The statement storing `value` into a local or an element."""
        raise NotImplementedError

    def _array(self, indent: str, name: str, dtype: np.dtype, size: int) -> str:
        """The statement making local array `name` of `size` elements."""
        raise NotImplementedError

    def _cast(self, dtype: np.dtype, value: str) -> str:
        raise NotImplementedError

    def _check_op(self, op: Operation) -> None:
        """`Unsupported` unless the language spells `op` (an arith/math op)."""
        raise NotImplementedError

    def _expression(self, op: Operation, operands: list[str]) -> str:
        """An arith/math op of the operands' sources."""
        raise NotImplementedError

    FMA: ClassVar[dict[np.dtype, str]] = {}
    """Fused multiply-adds by type, `{0} * {1} + {2}` rounded once: a sum of
    products accumulates with them (`_fused_term`), as BLAS's do."""

    # -- code ---------------------------------------------------------------

    def _emit(self) -> None:
        self._emit_loop(self.root, self.INDENT)

    INDENT: ClassVar[str] = "    "
    """The indentation of a kernel's outermost statements."""
    EMPTY: ClassVar[str]
    """A statement that does nothing."""

    def _private_buffers(self) -> set[SSAValue]:
        """Buffers the nest stores to that only it uses (`only_used_by`)."""
        viewed = set(self.env.roots.values())
        return {
            statement.op.memref
            for statement in self.nest.statements
            if isinstance(statement.op, affine.StoreOp)
            and only_used_by(statement.op.memref, self.root, self.env, viewed)
        }

    def _forget(self, memref: SSAValue) -> None:
        """Drop what locals hold of the buffer `memref` views (it is written)."""
        root = self.env.root(memref)
        for element in [e for e in self.known if self.env.root(e[0]) is root]:
            del self.known[element]

    def _emit_loop(self, loop: affine.ForOp, indent: str) -> None:
        number = self._numbers[loop]
        axis = self.nest.axes[number]
        if axis.extent <= 0:
            return
        if (tile := self._register_tile(loop)) is not None:
            split = self._splits(loop) if indent == self.INDENT else 0
            self._start_region(loop, indent)
            self._emit_tiled(*tile, indent, split=split)
            self._copy_point = None
            return
        if (parts := self._sinkable(loop)) is not None:
            self._start_region(loop, indent)
            self._emit_sunk(loop, parts, indent)
            self._copy_point = None
            return
        inner = indent
        register = None
        known = None
        in_range = self.in_range
        if axis.position >= 0:
            register = self._accumulator(loop, number)
            if register is not None:
                self._hold(*register, indent)
            for op in self._ops(loop):  # a later iteration sees these writes
                if isinstance(op, affine.StoreOp | memref_dialect.StoreOp):
                    self._forget(op.memref)
            known = dict(self.known)
            in_range = set(self.in_range)
            extent = self._extent(axis.extent)
            work = self._splits(loop) if indent == self.INDENT else 0
            split = self._parallel_loops(loop) if work else 0
            self.body += self._loop_lines(indent, number, extent, split, work)
            inner = indent + "    "
        start = len(self.body)
        for op in loop.body.block.ops:
            if isinstance(op, affine.ForOp):
                self._emit_loop(op, inner)
            elif not isinstance(op, affine.YieldOp):
                self._emit_op(op, inner)
        if len(self.body) == start:
            self.body.append(f"{inner}{self.EMPTY}")
        if axis.position >= 0:
            self.body += self._end_loop(indent)
        if known is not None:  # what the body learnt depends on its variables
            self.known = known
            self.in_range = in_range
        if register is not None:
            self._release(*register, indent)

    def _loop_lines(
        self, indent: str, number: int, extent: str, split: int, work: int
    ) -> list[str]:
        """The lines opening loop `number` of `extent` iterations: split
        over threads with the `split` loops inside it when the nest's
        `work` reaches the run's least work for threads (`_parallel`)."""
        if split:
            parallel = self._parallel(indent, split, work)
            return [parallel, self._loop_of(indent, f"t{number}", extent)]
        return [self._loop(indent, number, extent)]

    def _start_region(self, loop: affine.ForOp, indent: str) -> None:
        """Copies of the operands of the sunk region `loop` heads go here."""
        inner = frozenset(
            self._numbers[op] for op in self._ops(loop) if isinstance(op, affine.ForOp)
        )
        self._copy_point = (len(self.body), indent, inner)
        self._packed_operands = {}

    def _parallel_loops(self, loop: affine.ForOp) -> int:
        """How many loops from `loop` (one the kernel's first statements
        open, which may split: `_splits`) run split over threads, collapsed
        into one iteration space. The loops perfectly nested in it are
        collapsed with it while the iterations are fewer than
        `PARALLEL_ITERATIONS` (a channel group's 4 loops with their rows:
        threads share them evenly); not the innermost loop, which
        vectorises, nor one that is tiled or sunk."""
        count, split = 1, self.nest.axes[self._numbers[loop]].extent
        while split < PARALLEL_ITERATIONS:
            body = [
                op for op in loop.body.block.ops if not isinstance(op, affine.YieldOp)
            ]
            if len(body) != 1 or not isinstance(body[0], affine.ForOp):
                break
            loop = body[0]
            number = self._numbers[loop]
            axis = self.nest.axes[number]
            if (
                axis.position < 0
                or number in self._innermost
                or self._register_tile(loop) is not None
                or self._sinkable(loop) is not None
                or not self._independent(number)
            ):
                break
            count, split = count + 1, split * axis.extent
        return count

    def _splits(self, loop: affine.ForOp) -> int:
        """The iterations of the nest when `loop` may run split over
        threads (at least `PARALLEL_WORK`, iterations independent, the
        nest not `in_order`), else 0. Whether it does is the run's choice
        (`c_runtime.PARALLEL_WORK`)."""
        if self.in_order:
            return 0
        work = self._iterations(loop)
        if work < PARALLEL_WORK or not self._independent(self._numbers[loop]):
            return 0
        return work

    def _independent(self, number: int) -> bool:
        """Whether the iterations of loop `number` touch disjoint elements
        of what the nest writes (buffers compared by bytes, `footprint`)."""

        def overlap(a: SSAValue, b: SSAValue) -> bool:
            return self._footprint(a).overlaps(self._footprint(b))

        return self.nest.carries_no_dependence(number, overlap)

    def _iterations(self, loop: affine.ForOp | None = None) -> int:
        """How many loop iterations `loop` (by default the whole nest)
        runs, the loops inside it together."""

        def count(loop: affine.ForOp) -> int:
            inner = [op for op in loop.body.block.ops if isinstance(op, affine.ForOp)]
            extent = self.nest.axes[self._numbers[loop]].extent
            return extent * (1 + sum(map(count, inner)))

        return count(self.root if loop is None else loop)

    def _ops(self, loop: affine.ForOp) -> list[Operation]:
        """`loop.walk()`, listed once (the IR does not change while the
        nest is written; each loop and emission walked it again)."""
        found = self._walked.get(loop)
        if found is None:
            found = self._walked[loop] = list(loop.walk())
        return found

    def _footprint(self, buffer: SSAValue) -> Footprint:
        """Where `buffer` lives (`relayouts.footprint`), found once."""
        if buffer not in self._footprints:
            self._footprints[buffer] = footprint(buffer, self.env.constants)
        return self._footprints[buffer]

    def _emit_in_loop(self, indent: str, value: str, target: str) -> None:
        """`target = value` in the sunk loop (and its tile's)."""
        for span in self._sunk_spans():
            inner = self._open_sunk(indent, span)
            self.body.append(self._assign(inner, target, value))
            self._close_sunk(inner)

    def _extent(self, extent: int) -> str:
        """A loop's extent: literal when short (the compiler unrolls it)."""
        return str(extent) if extent <= UNROLLED else self._param(extent)

    def _emit_ops_in_loop(
        self, ops: list[Operation], indent: str, *, unroll: bool = False
    ) -> None:
        """`ops` in the sunk loop (and its tile's, unrolled with `unroll`),
        once per span of it (what one span loads is not known in the next)."""
        known = dict(self.known)
        for span in self._sunk_spans():
            self.known = dict(known)
            inner = self._open_sunk(indent, span, unroll=unroll)
            for op in ops:
                self._emit_op(op, inner)
            self._close_sunk(inner)

    def _fused_term(self, op: Operation) -> bool:
        """Whether `op` is a product an accumulation adds (and the language
        fuses the multiply-add): `acc = acc + x * w` as `fma(x, w, acc)`."""
        multiply, add = FUSED_MULTIPLY_ADD
        if op.name != multiply or not op.results[0].has_one_use():
            return False
        if numpy_dtype(op.results[0].type) not in self.FMA:
            return False
        user = next(iter(op.results[0].uses)).operation
        return user.name == add and _accumulated(user, self.nest)

    def _emit_op(self, op: Operation, indent: str) -> None:
        nest = self.nest
        if isinstance(op, affine.ApplyOp) or op in self._table_reads:
            return  # indices are expressions of the loop variables, or tables
        if isinstance(op, arith.ConstantOp):
            self.locals[op.result] = self._literal(constant_value(op), op.result)
            return
        if isinstance(op, affine.StoreOp):
            index = tuple(nest.access_index(op))
            self._write(op.memref, index, self._local(op.value), indent)
            return
        if isinstance(op, cf.AssertOp):
            self._fail_unless(indent, self._local(op.arg), op.msg.data)
            return
        if isinstance(op, memref_dialect.StoreOp):
            target = self._computed_element(op, indent)
            self._forget(op.memref)
            self.stored.add(op.memref)
            self.body.append(self._assign(indent, target, self._local(op.value)))
            return
        if self._fused_term(op):
            self._terms[op.results[0]] = [self._local(v) for v in op.operands]
            return
        if isinstance(op, affine.LoadOp) and op.memref in self.env.scalars:
            scalar = self.env.scalars[op.memref]  # a constant: a literal
            self.locals[op.result] = self._literal(scalar, op.result)
            return
        name = f"x{self._values}"
        self._values += 1
        if op in self._gathers:
            assert isinstance(op, memref_dialect.LoadOp)
            index = self._gathers[op]
            self.read_from_memory.add(op.memref)
            expression = self._element(
                op.memref,
                [ix if isinstance(ix, Ix) else Ix.of(0) for ix in index],
                [(a, ix) for a, ix in enumerate(index) if not isinstance(ix, Ix)],
            )
        elif isinstance(op, memref_dialect.LoadOp):
            self.read_from_memory.add(op.memref)
            expression = self._computed_element(op, indent)
        elif isinstance(op, affine.LoadOp):
            element = (op.memref, tuple(nest.access_index(op)))
            if element not in self.registers and element in self.known:
                self.locals[op.result] = self.known[element]  # keeps its value
                return
            expression = self._read(*element)  # a register is copied: it changes
            if element not in self.registers:
                self.known[element] = name
        elif terms := [v for v in op.operands if v in self._terms]:
            (other,) = [self._local(v) for v in op.operands if v is not terms[0]]
            factors = self._terms.pop(terms[0])
            dtype = numpy_dtype(op.results[0].type)
            expression = self.FMA[dtype].format(*factors, other)
        else:
            operands = [self._local(v) for v in op.operands]
            expression = self._expression(op, operands)
        self.locals[op.results[0]] = name
        dtype = numpy_dtype(op.results[0].type)
        self.body.append(self._define(indent, name, dtype, expression))

    def _computed_element(
        self, op: memref_dialect.LoadOp | memref_dialect.StoreOp, indent: str
    ) -> str:
        """The element a gather or a scatter reaches through the indices
        the nest computes, each checked against its axis first where the
        analysis cannot bound it: an index out of range is the call's
        error, never an access outside the buffer."""
        shape = op.memref.type.get_shape()  # type: ignore[attr-defined]
        indices = []
        for axis, (value, size) in enumerate(zip(op.indices, shape, strict=True)):
            index = self._local(value)
            if (index, size) not in self.in_range and not self._bounded(value, size):
                self.in_range.add((index, size))
                message = (
                    f"error: '{op.name}' index out of range [0, {size - 1}] "
                    f"on axis {axis}"
                )
                self._fail_unless(indent, self._index_within(index, size), message)
            indices.append(index)
        buffer = self._argument(op.memref)
        position = int(buffer[1:])
        if self.arg_offsets[position] is None:
            self.arg_offsets[position] = 0
        return self._subscript(buffer, indices, -self.arg_offsets[position])

    def _bounded(self, value: SSAValue, size: int) -> bool:
        """Whether the index `value` is in `0..size-1` wherever the nest
        computes it (a loop variable's or a constant's)."""
        if value in self.nest.symbols:
            low, high = exact_bounds(self.nest.symbols[value], self.nest)
        elif value in self.env.constants:
            low = high = int(self.env.constants[value])
        else:
            return False
        return 0 <= low and high < size


def only_used_by(
    memref: SSAValue, root: affine.ForOp, env: CodeEnv, viewed: set[SSAValue]
) -> bool:
    """Whether `memref` is a buffer allocated outside the nest `root`, viewed
    by nothing (`viewed`: the buffers views are of), that no op outside the
    nest uses (but to free it)."""
    if not isinstance(memref, OpResult) or memref in viewed:
        return False
    if env.root(memref) is not memref:
        return False
    return all(
        isinstance(use.operation, memref_dialect.DeallocOp)
        or root.is_ancestor(use.operation)
        for use in memref.uses
    )


def _feeding(gather: Operation) -> set[Operation]:
    """The casts to index of a gather's indices, and the loads they cast."""
    assert isinstance(gather, memref_dialect.LoadOp)
    casts = {
        operand.owner
        for operand in gather.indices
        if isinstance(operand.owner, arith.IndexCastOp)
    }
    return casts | {cast.input.owner for cast in casts}  # type: ignore[union-attr]


def _accumulated(add: Operation, nest: LoopNest) -> bool:
    """Whether `add` is an accumulation's step: its one use a store to the
    element one of its operands is loaded from."""
    if not add.results[0].has_one_use():
        return False
    store = next(iter(add.results[0].uses)).operation
    if not isinstance(store, affine.StoreOp):
        return False
    index = tuple(nest.access_index(store))
    return any(
        isinstance(load := operand.owner, affine.LoadOp)
        and load.memref is store.memref
        and tuple(nest.access_index(load)) == index
        for operand in add.operands
    )
