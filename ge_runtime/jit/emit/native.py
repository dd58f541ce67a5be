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
term, as BLAS's); gathers and float16 stay with NumPy. Only the order of
a sum's terms may differ, as between the NumPy emitter's reductions and
the scalar path.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import affine, arith
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Operation, OpResult, SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    LoopNest,
    Unsupported,
    axis_coefficient,
    element_strides,
)
from ge_runtime.jit.emit.relayouts import footprint
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import (
    FUSED_MULTIPLY_ADD,
    SUMS,
    JITError,
    constant_value,
    numpy_dtype,
)
from ge_runtime.jit.runtime import strided_view
from passes.lowering.index import Div, Ix, Mod, Var

NATIVE_TYPES = frozenset(
    np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int32, np.int64, bool)
)
"""Element types a native kernel computes exactly as NumPy does."""

INDEX = np.dtype(np.int64)
"""The type of loop variables."""

Element = tuple[SSAValue, tuple[Ix, ...]]
"""A buffer element: the memref and its index expressions."""

Segment = list[Operation]
"""A part of a loop `_sinkable` distributes: a run of ops, or a reduction's
perfectly nested loops (outer first)."""

SUNK_EXTENT = 64
"""Loops at most this long may be moved inside a reduction (`_sinkable`)."""

TILE_ELEMENTS = 64
"""The most elements a register tile holds (`_register_tile`): the sunk
loop's times the tile's loops' (4 AVX-512 registers of float32)."""

UNROLLED = 8
"""Loops at most this long (a window's taps) get a literal extent: the
compiler unrolls them, and vectorises the loop around them (a depthwise
convolution runs 3-4x faster than with the extent as a parameter)."""


class NativeNest:
    """One top-level `affine.for` nest as a call of a native kernel.

    Raises `Unsupported` for a nest a kernel should not take (an op or type
    its language does not spell, a gather, a GEMM-sized product accumulation).
    A subclass writes the language: the methods under "language" (which
    ops it spells, `_expression`, the statements and literals).
    """

    def __init__(self, root: affine.ForOp, env: CodeEnv, *, any_nest: bool = False):
        self.env = env
        self.any_nest = any_nest
        """Take nests without a reduction too (NumPy calls do those as well;
        a kernel costs compile time and memory)."""
        self.nest = LoopNest(root, env.constants, env.root)
        self.root = root
        self.private: frozenset[SSAValue] = frozenset()
        """Buffers only this nest uses whose stores need not happen: every
        load of them reads a value the kernel still holds in a local."""
        self._start()

    def _start(self) -> None:
        """Empty code: what one emission of the kernel builds."""
        self.params: list[int] = []
        self.args: list[str] = []
        """Python names in the enclosing function, in argument order."""
        self.arg_strides: list[tuple[int, ...] | None] = []
        """Per argument, its element strides (row-major, or its memref's;
        None for a scalar)."""
        self.arg_dtypes: list[np.dtype] = []
        self.arg_shapes: list[tuple[int, ...] | None] = []
        self.locals: dict[SSAValue, str] = {}
        self._arguments: dict[SSAValue | str, str] = {}
        self.body: list[str] = []
        self.registers: dict[Element, str] = {}
        """Buffer elements held in a local while a loop runs (accumulators)."""
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
        self._packed: dict[Element, tuple[str, tuple[int, ...]]] = {}
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

    def compile(self, indent: str) -> list[str]:
        """The call's source (the kernel is compiled now, or loaded)."""
        nest = self.nest
        nest.analyse_values()
        for statement in nest.statements:
            self._check(statement.op)
        self._check_not_a_product()
        if not self.any_nest and self._reduction_length() == 1:
            raise Unsupported("no reduction: NumPy calls do it as fast")
        for statement in nest.statements:
            op = statement.op
            if isinstance(op, affine.LoadOp | affine.StoreOp) and all(
                nest.axes[a].extent > 0 for a in statement.loops
            ):
                shape = op.memref.type.get_shape()
                nest.check_bounds(op, nest.access_index(op), shape)
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

    # -- what a kernel takes ------------------------------------------------

    def _check(self, op: Operation) -> None:
        for value in [*op.operands, *op.results]:
            try:
                dtype = numpy_dtype(value.type)
            except JITError:
                raise Unsupported(f"type {value.type}") from None
            if dtype not in NATIVE_TYPES:
                raise Unsupported(f"element type {dtype} is left to NumPy")
        if isinstance(op, affine.LoadOp | affine.StoreOp | affine.ApplyOp):
            return
        if not isinstance(op, arith.ConstantOp):
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

    def _literal(self, constant: Any, value: SSAValue) -> str:
        """A constant of `value`'s type (index constants are parameters)."""
        if isinstance(value.type, IndexType):
            return self._param(int(constant))
        dtype = numpy_dtype(value.type)
        if dtype == np.bool_:
            return self._bool_literal(bool(constant))
        if dtype.kind == "f":
            return self._float_literal(float(constant), dtype)
        return self._int_literal(int(constant), dtype)

    def _bool_literal(self, value: bool) -> str:
        raise NotImplementedError

    def _float_literal(self, value: float, dtype: np.dtype) -> str:
        """A float constant (NaN's sign kept where the language can)."""
        raise NotImplementedError

    def _int_literal(self, value: int, dtype: np.dtype) -> str:
        raise NotImplementedError

    def _floordiv(self, text: str, divisor: int) -> str:
        raise NotImplementedError

    def _modulo(self, text: str, divisor: int) -> str:
        raise NotImplementedError

    def _loop(self, indent: str, number: int, extent: str) -> str:
        """The line opening loop `t{number}` over `range(extent)`."""
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

    def _subscript(self, buffer: str, indices: list[str]) -> str:
        """An element of argument `buffer` (`indices` one per axis)."""
        raise NotImplementedError

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

    def _ix(self, ix: Ix) -> str:
        """Source of an index expression (coefficients and offsets through
        `_param`; `floordiv`/`mod` divisors literal)."""
        parts = []
        for atom, coefficient in ix.terms:
            match atom:
                case Var():
                    leaf = f"t{atom.id}"
                case Div():
                    leaf = self._floordiv(self._ix(atom.arg), atom.k)
                case Mod():
                    leaf = self._modulo(self._ix(atom.arg), atom.k)
                case _:
                    raise Unsupported(f"index atom {atom}")
            parts.append(
                leaf if coefficient == 1 else f"{leaf} * {self._param(coefficient)}"
            )
        if ix.const or not parts:
            parts.append(self._param(ix.const))
        return " + ".join(parts)

    def _argument(self, value: SSAValue) -> str:
        """The kernel's name of a value from outside the nest (a buffer, or
        a scalar: its strides are None)."""
        shape = strides = None
        dtype = numpy_dtype(value.type)
        if isinstance(value.type, MemRefType):
            shape = tuple(value.type.get_shape())
            strides = tuple(value.type.get_strides() or element_strides(shape))
        return self._argument_for(
            value, lambda: self.env.name(value), shape, strides, dtype
        )

    def _argument_named(
        self, name: str, shape: tuple[int, ...], dtype: np.dtype
    ) -> str:
        """The kernel's name of a contiguous array the call's own lines make."""
        return self._argument_for(
            name, lambda: name, shape, tuple(element_strides(shape)), dtype
        )

    def _argument_for(
        self,
        key: SSAValue | str,
        outer: Callable[[], str],
        shape: tuple[int, ...] | None,
        strides: tuple[int, ...] | None,
        dtype: np.dtype,
    ) -> str:
        if key not in self._arguments:
            self._arguments[key] = f"a{len(self._arguments)}"
            self.args.append(outer())
            self.arg_shapes.append(shape)
            self.arg_strides.append(strides)
            self.arg_dtypes.append(dtype)
        return self._arguments[key]

    def _local(self, value: SSAValue) -> str:
        if value in self.locals:
            return self.locals[value]
        if value in self.nest.symbols:  # an index used as a value
            return f"({self._ix(self.nest.symbols[value])})"
        if value in self.env.constants:
            return self._literal(self.env.constants[value], value)
        return self._argument(value)

    def _emit(self) -> None:
        self._numbers = {
            op: number
            for number, op in enumerate(
                op for op in self.root.walk() if isinstance(op, affine.ForOp)
            )
        }  # the order `LoopNest` numbers its axes in
        self._innermost = {
            number
            for op, number in self._numbers.items()
            if not any(isinstance(o, affine.ForOp) for o in op.body.block.ops)
        }
        self._emit_loop(self.root, self.INDENT)

    SINKS_LOOPS: ClassVar[bool] = False
    """Whether a short parallel loop around a reduction runs innermost
    (`_sinkable`): a compiler that vectorises loops wants it there."""
    INDENT: ClassVar[str] = "    "
    """The indentation of a kernel's outermost statements."""
    EMPTY: ClassVar[str]
    """A statement that does nothing."""

    def _private_buffers(self) -> set[SSAValue]:
        """Buffers the nest stores to, allocated outside it and viewed by
        nothing, that no op outside the nest uses (but to free them)."""
        found = set()
        viewed = set(self.env.roots.values())
        for statement in self.nest.statements:
            if not isinstance(statement.op, affine.StoreOp):
                continue
            memref = statement.op.memref
            if not isinstance(memref, OpResult) or memref in viewed:
                continue
            if self.env.root(memref) is not memref:
                continue
            if all(
                isinstance(use.operation, memref_dialect.DeallocOp)
                or self.root.is_ancestor(use.operation)
                for use in memref.uses
            ):
                found.add(memref)
        return found

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
        if self.SINKS_LOOPS and (tile := self._register_tile(loop)) is not None:
            self._emit_tiled(*tile, indent)
            return
        if self.SINKS_LOOPS and (parts := self._sinkable(loop)) is not None:
            self._emit_sunk(loop, parts, indent)
            return
        inner = indent
        register = None
        known = None
        if axis.position >= 0:
            register = self._accumulator(loop, number)
            if register is not None:
                self._hold(*register, indent)
            for op in loop.walk():  # a later iteration sees these writes
                if isinstance(op, affine.StoreOp):
                    self._forget(op.memref)
            known = dict(self.known)
            self.body.append(self._loop(indent, number, self._extent(axis.extent)))
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
        if register is not None:
            self._release(*register, indent)

    def _register_tile(
        self, loop: affine.ForOp
    ) -> tuple[list[tuple[int, int]], affine.ForOp, list[Segment]] | None:
        """The register tile `loop` heads, if any: the loops perfectly nested
        from it down to a loop `_sinkable` moves (outputs' pixels around a
        convolution's C0 loop), innermost first while `TILE_ELEMENTS`
        allows, whole or (the outermost) in strips. They run
        innermost in the reduction with the sunk loop, so one load of a
        weight vector serves the tile's pixels and their sums are
        independent (in registers, not one chain of additions through
        memory). Legal when distinct points of the tile store distinct
        elements; each element's operations and their order do not change.

        Returns (the tile's loops and blocks, the sunk loop, its parts)."""
        chain = [loop]
        while True:
            body = [
                op
                for op in chain[-1].body.block.ops
                if not isinstance(op, affine.YieldOp)
            ]
            if len(body) != 1 or not isinstance(body[0], affine.ForOp):
                return None
            parts = self._sinkable(body[0])
            if parts is not None:
                break
            chain.append(body[0])
        sunk = self._numbers[body[0]]
        budget = TILE_ELEMENTS // self.nest.axes[sunk].extent
        tile: list[tuple[int, int]] = []
        for candidate in reversed(chain):
            number = self._numbers[candidate]
            axis = self.nest.axes[number]
            if axis.position < 0:
                break
            block = min(budget, axis.extent)
            if block < 2 or not self._tile_owns(body[0], [(number, block), *tile]):
                break
            tile.insert(0, (number, block))
            budget //= block
            if block < axis.extent:
                break  # a strip of it: the loops around vary between strips
        if not tile or tile[0][0] != self._numbers[loop]:
            return None
        return tile, body[0], parts

    def _tile_owns(self, sunk: affine.ForOp, tile: list[tuple[int, int]]) -> bool:
        """Whether distinct points of `tile` and the `sunk` loop store to
        distinct elements (the loops move each stored index linearly, not
        through a `floordiv`/`mod`)."""
        number = self._numbers[sunk]
        loops = [*tile, (number, self.nest.axes[number].extent)]
        moving = {n for n, _ in loops}
        indices = {
            tuple(self.nest.access_index(op))
            for op in sunk.walk()
            if isinstance(op, affine.StoreOp)
        }
        for index in indices:
            for ix in index:
                for atom in ix.atoms():
                    if isinstance(atom, Div | Mod) and any(
                        v.id in moving for v in atom.arg.variables()
                    ):
                        return False
            coefficients = [[axis_coefficient(ix, n) for ix in index] for n, _ in loops]
            points = {
                tuple(
                    sum(c[dim] * i for c, i in zip(coefficients, point, strict=True))
                    for dim in range(len(index))
                )
                for point in itertools.product(*(range(b) for _, b in loops))
            }
            if len(points) != math.prod(b for _, b in loops):
                return False
        return True

    def _emit_tiled(
        self,
        tile: list[tuple[int, int]],
        sunk: affine.ForOp,
        parts: list[Segment],
        indent: str,
    ) -> None:
        """`sunk` moved innermost with the tile's loops; the outermost of
        those in strips of its block (and a last, shorter one):

        for w < 9 { for c { init(w, c); for k { acc(w, c, k) }; post(w, c) } }
        ->  for s < 2 { for u < 4 { for c { init } }         (w = 4 s + u)
                        for k { for u < 4 { for c { acc } } }
                        for u < 4 { for c { post } } }
            for u < 1 { ... }                                 (w = 8 + u)
        """
        (first, block), *inner = tile
        whole: list[tuple[int, int, str | None]] = [(n, b, None) for n, b in inner]
        extent = self.nest.axes[first].extent
        if block == extent:
            self._tile = [(first, block, None), *whole]
            self._emit_sunk(sunk, parts, indent)
        else:
            strips, rest = divmod(extent, block)
            self.body.append(self._loop_of(indent, f"s{first}", str(strips)))
            self._tile = [(first, block, f"s{first} * {block}"), *whole]
            self._emit_sunk(sunk, parts, indent + "    ")
            self.body += self._end_loop(indent)
            if rest:
                self._tile = [(first, rest, str(strips * block)), *whole]
                self._emit_sunk(sunk, parts, indent)
        self._tile = []

    def _open_sunk(self, indent: str, *, unroll: bool = False) -> str:
        """The loops of the tile, then the sunk loop: the indentation inside.
        With `unroll`, the tile's loops are unrolled (its sums in registers)."""
        for number, block, start in self._tile:
            variable = _tile_variable(number, start)
            self.body.append(
                self._loop_of(indent, variable, str(block), block if unroll else None)
            )
            indent += "    "
            if start is not None:
                index = f"{start} + {variable}"
                self.body.append(self._define(indent, f"t{number}", INDEX, index))
        assert self._sunk is not None
        extent = self._param(self.nest.axes[self._sunk].extent)
        self.body.append(self._loop(indent, self._sunk, extent))
        return indent + "    "

    def _close_sunk(self, inner: str) -> None:
        for _ in range(len(self._tile) + 1):
            inner = inner[:-4]
            self.body += self._end_loop(inner)

    def _mirror_index(self) -> str:
        """The index of the sunk loop's element in a local array: the
        tile's point, then the sunk loop's variable."""
        assert self._sunk is not None
        index = ""
        for number, block, start in self._tile:
            variable = _tile_variable(number, start)
            index = f"({index}) * {block} + {variable}" if index else variable
        if not index:
            return f"t{self._sunk}"
        return f"({index}) * {self.nest.axes[self._sunk].extent} + t{self._sunk}"

    def _sinkable(self, loop: affine.ForOp) -> list[Segment] | None:
        """How `loop` splits around the reductions it holds, if it may run
        innermost: its body's runs of ops and its reductions' perfectly
        nested loops (`Segment`s), in order. Each iteration of `loop` must
        own the elements it writes (every access to a buffer it stores to is
        at one index, which the loop's variable moves), and values must not
        cross the segments. The result of an element's operations, and their
        order, do not change; the loop of unit stride is innermost."""
        number = self._numbers[loop]
        if self.nest.axes[number].extent > SUNK_EXTENT:
            return None
        segments: list[Segment] = []
        for op in loop.body.block.ops:
            if isinstance(op, affine.YieldOp):
                continue
            if isinstance(op, affine.ForOp):
                chain = _perfect_nest(op)
                if chain is None:
                    return None  # not perfectly nested
                segments.append(chain)
            elif segments and not isinstance(segments[-1][0], affine.ForOp):
                segments[-1].append(op)
            else:
                segments.append([op])
        reductions = [s for s in segments if isinstance(s[0], affine.ForOp)]
        if not reductions:
            return None
        home = {
            result: position
            for position, segment in enumerate(segments)
            for op in _walk(segment)
            for result in op.results
        }
        for position, segment in enumerate(segments):
            for op in _walk(segment):
                if any(home.get(v, position) != position for v in op.operands):
                    return None  # a value crosses from one segment to another
        reducing = [inner for chain in reductions for inner in chain]
        if not self._owns_its_elements(loop, number, reducing):
            return None
        return segments

    def _owns_its_elements(
        self, loop: affine.ForOp, number: int, reduction: list[affine.ForOp]
    ) -> bool:
        """Whether every buffer `loop` stores to is accessed in it at one
        index, moved by the loop's variable (no iteration reads or writes an
        element another one writes) and by none of the `reduction` loops'."""
        reducing = {self._numbers[op] for op in reduction}
        accesses = [
            op for op in loop.walk() if isinstance(op, affine.LoadOp | affine.StoreOp)
        ]
        places = {
            op.memref: footprint(op.memref, self.env.constants) for op in accesses
        }
        for stored in {op.memref for op in accesses if isinstance(op, affine.StoreOp)}:
            touching = [
                op for op in accesses if places[op.memref].overlaps(places[stored])
            ]
            if any(op.memref is not stored for op in touching):
                return False
            indices = {tuple(self.nest.access_index(op)) for op in touching}
            if len(indices) != 1:
                return False
            (index,) = indices
            if not any(_moves_injectively(ix, number) for ix in index):
                return False
            if any(v.id in reducing for ix in index for v in ix.variables()):
                return False
        return True

    def _emit_sunk(
        self, loop: affine.ForOp, segments: list[Segment], indent: str
    ) -> None:
        """`loop` distributed over its segments, innermost in each reduction,
        the elements it owns held in local arrays by its variable:

        for c { init(c); for k { acc(c, k) }; post(c) }
        ->  for c { init(c) }  for k { for c { acc(c, k) } }  for c { post(c) }
        """
        number = self._numbers[loop]
        for op in loop.walk():
            if isinstance(op, affine.StoreOp):
                self._forget(op.memref)
        known = dict(self.known)
        self._sunk, self._sank = number, True
        mirrored = self._mirror_stores(loop, indent)
        for segment in segments:
            if isinstance(segment[0], affine.ForOp):
                self._emit_reduction(segment, indent)
            else:
                self._emit_ops_in_loop(segment, indent)
            self.known = dict(known)
        for element in mirrored:  # the owned elements' final values
            name = self._mirrors.pop(element)
            if element[0] in self.private:
                continue
            self.stored.add(element[0])
            target = self._element(*element)
            self._emit_in_loop(indent, f"{name}[{self._mirror_index()}]", target)
        self._sunk = None

    def _emit_reduction(self, chain: Segment, indent: str) -> None:
        """A reduction's loops with the sunk loop (and its tile's) inside."""
        level = indent
        for reduction in chain:
            axis = self.nest.axes[self._numbers[reduction]]
            if axis.extent <= 0:
                break
            if axis.position >= 0:
                extent = self._extent(axis.extent)
                self.body.append(self._loop(level, self._numbers[reduction], extent))
                level += "    "
        else:
            body = chain[-1].body.block.ops
            ops = [op for op in body if not isinstance(op, affine.YieldOp)]
            self._emit_ops_in_loop(ops, level, unroll=True)
        while level != indent:
            level = level[:-4]
            self.body += self._end_loop(level)

    def _mirror_stores(self, loop: affine.ForOp, indent: str) -> list[Element]:
        """A local array for each buffer `loop` stores to (at its one index),
        loaded first if the loop reads it before writing it."""
        number = self._numbers[loop]
        size = self.nest.axes[number].extent * math.prod(b for _, b, _ in self._tile)
        accesses = [
            op for op in loop.walk() if isinstance(op, affine.LoadOp | affine.StoreOp)
        ]
        first: dict[SSAValue, Operation] = {}
        for op in accesses:
            first.setdefault(op.memref, op)
        mirrored: list[Element] = []
        for op in accesses:
            if not isinstance(op, affine.StoreOp):
                continue
            if any(op.memref is m for m, _ in mirrored):
                continue
            element = (op.memref, tuple(self.nest.access_index(op)))
            name = f"m{self._arrays}"
            self._arrays += 1
            self._mirrors[element] = name
            mirrored.append(element)
            dtype = numpy_dtype(op.memref.type)
            self.body.append(self._array(indent, name, dtype, size))
            if isinstance(first[op.memref], affine.LoadOp):
                self.read_from_memory.add(op.memref)
                load = self._element(*element)
                self._emit_in_loop(indent, load, f"{name}[{self._mirror_index()}]")
        return mirrored

    def _emit_in_loop(self, indent: str, value: str, target: str) -> None:
        """`target = value` in the sunk loop (and its tile's)."""
        inner = self._open_sunk(indent)
        self.body.append(self._assign(inner, target, value))
        self._close_sunk(inner)

    def _extent(self, extent: int) -> str:
        """A loop's extent: literal when short (the compiler unrolls it)."""
        return str(extent) if extent <= UNROLLED else self._param(extent)

    def _emit_ops_in_loop(
        self, ops: list[Operation], indent: str, *, unroll: bool = False
    ) -> None:
        """`ops` in the sunk loop (and its tile's, unrolled with `unroll`)."""
        inner = self._open_sunk(indent, unroll=unroll)
        for op in ops:
            self._emit_op(op, inner)
        self._close_sunk(inner)

    def _accumulator(
        self, loop: affine.ForOp, number: int
    ) -> tuple[SSAValue, tuple[Ix, ...]] | None:
        """The element `loop` accumulates into, if it can live in a local:
        the one buffer the loop stores to, always at one index that none of
        the loop's own variables moves (a reduction's output element)."""
        accesses = [
            op for op in loop.walk() if isinstance(op, affine.LoadOp | affine.StoreOp)
        ]
        stored = {op.memref for op in accesses if isinstance(op, affine.StoreOp)}
        if len(stored) != 1:
            return None
        (memref,) = stored
        indices = {
            tuple(self.nest.access_index(op)) for op in accesses if op.memref == memref
        }
        if len(indices) != 1:
            return None
        (index,) = indices
        loops = sum(1 for op in loop.walk() if isinstance(op, affine.ForOp))
        own = range(number, number + loops)
        if any(v.id in own for ix in index for v in ix.variables()):
            return None
        if (memref, index) in self.registers:
            return None  # an enclosing loop holds it already
        return memref, index

    def _element(self, memref: SSAValue, index: Sequence[Ix]) -> str:
        return self._subscript(self._argument(memref), [self._ix(ix) for ix in index])

    def _hold(self, memref: SSAValue, index: tuple[Ix, ...], indent: str) -> None:
        name = f"r{self._held}"
        self._held += 1
        dtype = numpy_dtype(memref.type.element_type)  # type: ignore[attr-defined]
        self.body.append(self._define(indent, name, dtype, self._read(memref, index)))
        self.registers[memref, index] = name

    def _release(self, memref: SSAValue, index: tuple[Ix, ...], indent: str) -> None:
        name = self.registers.pop((memref, index))
        self._write(memref, index, name, indent)

    def _read(self, memref: SSAValue, index: tuple[Ix, ...]) -> str:
        """An element's value: the local holding it, else a load."""
        element = (memref, index)
        held = self.registers.get(element) or self.known.get(element)
        if held is not None:
            return held
        if element in self._mirrors:
            return f"{self._mirrors[element]}[{self._mirror_index()}]"
        self.read_from_memory.add(memref)
        packed = self._packed_weight(memref, index)
        if packed is not None:
            return packed
        return self._element(memref, index)

    def _packed_weight(self, memref: SSAValue, index: tuple[Ix, ...]) -> str | None:
        """A load of a weight through a linear index, from a copy of the
        elements it reads laid out by loop variable, the innermost loop's
        last (unit stride: the compiler vectorises that loop); None for
        other loads.

        `w[t5 * 4 + t6, t1, t4, 0]` in loops t1 > t4 > (t5, t6 unrolled)
        reads `w1[t1, t5, t6, t4]`, `w1` a contiguous copy made once.
        """
        if self.env.root(memref) not in self.env.invariant:
            return None
        if any(not isinstance(a, Var) for ix in index for a in ix.atoms()):
            return None
        axes = self.nest.axes
        used = sorted({v.id for ix in index for v in ix.variables()})
        if not used or any(axes[v].position < 0 for v in used):
            return None
        if self._sunk in used:  # the innermost loop
            order = [v for v in used if v != self._sunk] + [self._sunk]
        else:
            rolled = [v for v in used if axes[v].extent > UNROLLED]
            order = [v for v in used if not rolled or v != rolled[-1]] + rolled[-1:]
        element = (memref, index)
        memref_type = memref.type
        assert isinstance(memref_type, MemRefType)
        dtype = numpy_dtype(memref_type.element_type)
        view_shape = tuple(axes[v].extent for v in order)
        if element not in self._packed:
            shape = tuple(memref_type.get_shape())
            strides = memref_type.get_strides() or element_strides(shape)
            offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
            view_strides = tuple(
                dtype.itemsize
                * sum(
                    axis_coefficient(ix, v) * s
                    for ix, s in zip(index, strides, strict=True)
                )
                for v in order
            )
            self.env.namespace["strided_view"] = strided_view
            name = self.env.fresh("w")
            self.packing.append(
                f"{name} = np.ascontiguousarray(strided_view("
                f"{self.env.name(memref)}, {offset}, {view_shape}, {view_strides}))"
            )
            self._packed[element] = (name, tuple(order))
        name, order = self._packed[element]
        buffer = self._argument_named(name, view_shape, dtype)
        return self._subscript(buffer, [f"t{v}" for v in order])

    def _write(
        self, memref: SSAValue, index: tuple[Ix, ...], value: str, indent: str
    ) -> None:
        """Store `value` (a local or a literal), unless a register or a
        private buffer takes it."""
        register = self.registers.get((memref, index))
        if register is not None:
            self.body.append(self._assign(indent, register, value))
            return
        self._forget(memref)
        self.known[memref, index] = value
        if (memref, index) in self._mirrors:
            mirror = f"{self._mirrors[memref, index]}[{self._mirror_index()}]"
            self.body.append(self._assign(indent, mirror, value))
        elif memref not in self.private:
            self.stored.add(memref)
            self.body.append(self._assign(indent, self._element(memref, index), value))

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
        if isinstance(op, affine.ApplyOp):
            return  # indices are expressions of the loop variables
        if isinstance(op, arith.ConstantOp):
            self.locals[op.result] = self._literal(constant_value(op), op.result)
            return
        if isinstance(op, affine.StoreOp):
            index = tuple(nest.access_index(op))
            self._write(op.memref, index, self._local(op.value), indent)
            return
        if self._fused_term(op):
            self._terms[op.results[0]] = [self._local(v) for v in op.operands]
            return
        name = f"x{self._values}"
        self._values += 1
        if isinstance(op, affine.LoadOp):
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


def _tile_variable(number: int, start: str | None) -> str:
    """The variable of tile loop `number`: the loop's own when the tile
    takes all of it, else its place in a strip starting at `start`."""
    return f"t{number}" if start is None else f"u{number}"


def _walk(segment: Segment) -> Iterator[Operation]:
    """The ops of a segment, nested ones included."""
    tops = segment[:1] if isinstance(segment[0], affine.ForOp) else segment
    for top in tops:
        yield from top.walk()


def _perfect_nest(loop: affine.ForOp) -> list[affine.ForOp] | None:
    """`loop` and the loops nested in it, outer first, if each but the
    innermost holds only the next (None otherwise)."""
    chain = [loop]
    while True:
        body = [
            op for op in chain[-1].body.block.ops if not isinstance(op, affine.YieldOp)
        ]
        loops = [op for op in body if isinstance(op, affine.ForOp)]
        if not loops:
            return chain
        if len(body) != 1:
            return None
        chain.append(loops[0])


def _moves_injectively(ix: Ix, axis: int) -> bool:
    """Whether `ix` takes a different value for each value of loop variable
    `axis` (the others fixed): a linear term in it, and no `floordiv`/`mod`
    of it."""
    linear = any(
        isinstance(atom, Var) and atom.id == axis and coefficient != 0
        for atom, coefficient in ix.terms
    )
    wrapped = any(
        isinstance(atom, Div | Mod) and any(v.id == axis for v in atom.arg.variables())
        for atom, _ in ix.terms
    )
    return linear and not wrapped
