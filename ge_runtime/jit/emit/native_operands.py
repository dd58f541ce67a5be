"""A native kernel's operands: its arguments, locals and buffer elements.

Index expressions as the language's source (`_ix`), buffers as kernel
arguments with the strides the IR gives them (`_argument`), values as
locals, elements held in registers while a loop runs (`_hold`, `_release`:
an accumulator), loads and stores that reuse what a local already holds
(`_read`, `_write`), and weights packed once into the order a kernel reads
them (`_packed_weight`). A mixin of `native.NativeNest`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import affine
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    Unsupported,
    axis_coefficient,
    element_strides,
)
from ge_runtime.jit.emit.relayouts import footprint
from ge_runtime.jit.ops import (
    numpy_dtype,
)
from ge_runtime.jit.runtime import strided_view
from passes.lowering.index import Div, Ix, Mod, Var

INDEX = np.dtype(np.int64)
"""The type of loop variables."""

Element = tuple[SSAValue, tuple[Ix, ...]]
"""A buffer element: the memref and its index expressions."""

Gathered = tuple[np.ndarray, tuple[Ix, ...]]
"""An index a gather reads from a constant table: the table, and the index
expressions of the element it reads."""

PACKED_ELEMENTS = 1 << 14
"""The most elements a sunk region copies into a local array
(`_packed_operand`): 64 KiB of float32 on the stack."""

UNROLLED = 8
"""Loops at most this long (a window's taps) get a literal extent: the
compiler unrolls them, and vectorises the loop around them (a depthwise
convolution runs 3-4x faster than with the extent as a parameter)."""


TABLE_ENTRIES = 1 << 12
"""The most entries of a table of offsets (`_offset_table`) a kernel holds."""


def variable_grid(variables: Sequence[Var]) -> dict[Var, np.ndarray]:
    """Each of `variables` at every point of their loops: one array axis
    per variable, in order (`np.meshgrid`, "ij")."""
    grid = np.meshgrid(
        *[np.arange(v.lo, v.hi + 1, dtype=INDEX) for v in variables], indexing="ij"
    )
    return dict(zip(variables, grid, strict=True))


class NativeOperands:
    """The operands of a `NativeNest`'s kernel."""

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
            value, lambda: self._name(value), shape, strides, dtype
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
            self.arg_offsets.append(None if strides else 0)
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

    def _accumulator(
        self, loop: affine.ForOp, number: int
    ) -> tuple[SSAValue, tuple[Ix, ...]] | None:
        """The element `loop` accumulates into, if it can live in a local:
        the one buffer the loop stores to, always at one index that none of
        the loop's own variables moves (a reduction's output element), and
        that no gather or scatter in the loop may reach."""
        accesses = [
            op
            for op in self._ops(loop)
            if isinstance(op, affine.LoadOp | affine.StoreOp)
        ]
        stored = {op.memref for op in accesses if isinstance(op, affine.StoreOp)}
        if len(stored) != 1:
            return None
        (memref,) = stored
        if any(  # a gather or scatter may reach the element: it stays in memory
            isinstance(op, memref_dialect.LoadOp | memref_dialect.StoreOp)
            and self._footprint(op.memref).overlaps(self._footprint(memref))
            for op in self._ops(loop)
        ):
            return None
        indices = {
            tuple(self.nest.access_index(op)) for op in accesses if op.memref == memref
        }
        if len(indices) != 1:
            return None
        (index,) = indices
        loops = sum(1 for op in self._ops(loop) if isinstance(op, affine.ForOp))
        own = range(number, number + loops)
        if any(v.id in own for ix in index for v in ix.variables()):
            return None
        if (memref, index) in self.registers:
            return None  # an enclosing loop holds it already
        return memref, index

    def _element(
        self,
        memref: SSAValue,
        index: Sequence[Ix],
        gathered: Sequence[tuple[int, Gathered]] = (),
    ) -> str:
        """An element of a buffer argument, at its index's offset from the
        argument's address: the constant part of the first index the
        kernel takes the buffer at moves into the address the call passes
        (`arg_offsets`), so kernels that differ only in which block of a
        buffer they read or write (ShuffleNet's channel groups) are one.
        `gathered` adds indices read from constant tables (by axis)."""
        buffer = self._argument(memref)
        position = int(buffer[1:])
        strides = self.arg_strides[position]
        assert strides is not None
        offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
        if self.arg_offsets[position] is None:
            self.arg_offsets[position] = offset
        shift = offset - self.arg_offsets[position]
        shape = self.arg_shapes[position]
        assert shape is not None
        table = self._offset_table(index, strides, gathered, shape)
        if table is None:
            moving = [self._ix(Ix(ix.terms, 0)) for ix in index]
            return self._subscript(buffer, moving, shift)
        linear = [
            Ix(tuple((a, c) for a, c in ix.terms if isinstance(a, Var)), 0)
            for ix in index
        ]
        return self._subscript(buffer, [self._ix(ix) for ix in linear], shift, table)

    def _offset_table(
        self,
        index: Sequence[Ix],
        strides: Sequence[int],
        gathered: Sequence[tuple[int, Gathered]] = (),
        shape: Sequence[int] = (),
    ) -> str | None:
        """The part of an element's offset an index takes through
        `floordiv`/`mod` or reads from constant tables (`gathered`: by
        axis), read from one constant table by the loop variables they use
        (a lookup where each element computed two divisions: a channel
        shuffle's lanes gathered from blocks of C0); None without such a
        part, or where the table would take over `TABLE_ENTRIES` (then
        `Unsupported` for a gather, which has no other way).

        `a0[floordiv(t4 * 68 + t3, 16) * 3136 + floormod(t4 * 68 + t3, 16) + t1 * 16]`
        reads `a0[g0[t4 * 16 + t3] + t1 * 16]`, `g0` the 64 offsets.
        """
        wrapping = [
            (atom, coefficient * stride)
            for ix, stride in zip(index, strides, strict=True)
            for atom, coefficient in ix.terms
            if isinstance(atom, Div | Mod)
        ]
        if not wrapping and not gathered:
            return None
        variables = sorted(
            {v for atom, _ in wrapping for v in atom.arg.variables()}
            | {v for _, (_, table_index) in gathered for ix in table_index
               for v in ix.variables()},
            key=lambda v: v.id,
        )  # fmt: skip
        extents = [v.hi - v.lo + 1 for v in variables]
        if math.prod(extents) > TABLE_ENTRIES:
            if gathered:
                raise Unsupported("a gather through a table too large to hold")
            return None
        env = variable_grid(variables)
        offsets = sum(
            weight * np.asarray(Ix.of(atom).evaluate(env)) for atom, weight in wrapping
        )
        for axis, (array, table_index) in gathered:
            read = np.asarray(
                array[tuple(np.asarray(ix.evaluate(env)) for ix in table_index)]
            )
            if read.size and (read.min() < 0 or read.max() >= shape[axis]):
                raise Unsupported("a gather index outside its axis: NumPy's rule")
            offsets = offsets + strides[axis] * read.astype(np.int64)
        shaped = np.broadcast_to(offsets, extents) if variables else offsets
        name = self._table(np.asarray(shaped).ravel())
        position = ""
        for v, extent in zip(variables, extents, strict=True):
            term = f"t{v.id}" if v.lo == 0 else f"(t{v.id} - {self._param(v.lo)})"
            position = f"({position}) * {extent} + {term}" if position else term
        return f"{name}[{position or '0'}]"

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
        packed = self._packed_weight(memref, index) or self._packed_operand(
            memref, index
        )
        if packed is not None:
            return packed
        return self._element(memref, index)

    def _packed_weight(self, memref: SSAValue, index: tuple[Ix, ...]) -> str | None:
        """A load of a weight through a linear index, from a copy of the
        elements it reads laid out by loop variable, the innermost loop's
        last (unit stride: the compiler vectorises that loop); None for
        other loads.

        `w[t5 * 4 + t6, t1, t4, 0]` in loops t1 > t4 > (t5, t6 unrolled)
        reads `w1[t1, t5, t6, t4]`, `w1` a contiguous copy made once. An
        index through `floordiv`/`mod` (a grouped convolution's filter
        across blocks) is gathered into the copy by a table of offsets.
        """
        if self.env.root(memref) not in self.env.invariant:
            return None
        if any(not isinstance(a, Var | Div | Mod) for ix in index for a in ix.atoms()):
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
            self._bind("strided_view", strided_view)
            name = self._fresh("w")
            head = f"{name} = "
            offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
            if any(ix.quotients() for ix in index):
                # offsets from the least the table reaches, the index's own
                # constants in the view's offset (a replay writes its own)
                table = self._offsets(
                    tuple(Ix(ix.terms) for ix in index), strides, order
                )
                least = int(table.min())
                offset += least
                head += f"strided_view({self._name(memref)}, "
                length = (int(table.max()) - least + 1,)
                gather = self._constant_array(table - least)
                view = f"{length}, {(dtype.itemsize,)})[{gather}]"
            else:
                view_strides = tuple(
                    dtype.itemsize
                    * sum(
                        axis_coefficient(ix, v) * s
                        for ix, s in zip(index, strides, strict=True)
                    )
                    for v in order
                )
                head += f"np.ascontiguousarray(strided_view({self._name(memref)}, "
                view = f"{view_shape}, {view_strides}))"
            self.offset_lines.append((len(self.packing), len(head), memref, offset, 1))
            self.packing.append(f"{head}{offset}, {view}")
            self._packed[element] = (name, tuple(order))
        name, order = self._packed[element]
        buffer = self._argument_named(name, view_shape, dtype)
        return self._subscript(buffer, [f"t{v}" for v in order], 0)

    def _offsets(
        self, index: tuple[Ix, ...], strides: Sequence[int], order: Sequence[int]
    ) -> np.ndarray:
        """The element offset of `index` at each point of the loops `order`
        (an array of their extents, in that order)."""
        by_id = {v.id: v for ix in index for v in ix.variables()}
        variables = [by_id[v] for v in order]
        env = variable_grid(variables)
        offsets = sum(
            s * np.asarray(ix.evaluate(env), dtype=INDEX)
            for ix, s in zip(index, strides, strict=True)
        )
        extents = [v.hi - v.lo + 1 for v in variables]
        return np.broadcast_to(offsets, extents).copy()

    def _constant_array(self, array: np.ndarray) -> str:
        """The name the generated function reads constant `array` by (named
        by its contents: a replayed emission binds the same name)."""
        digest = hashlib.sha256(array.tobytes() + str(array.shape).encode())
        name = f"o_{digest.hexdigest()[:16]}"
        self._bind(name, array)
        return name

    def _packed_operand(self, memref: SSAValue, index: tuple[Ix, ...]) -> str | None:
        """A load in the sunk loop that does not move along it at unit
        stride (a matrix product's right operand read across its rows:
        attention's keys; a softmax's sum across the lanes of a blocked
        layout), from a copy laid out by loop variable, the sunk one's
        last, made where the sunk region starts (`_copy_point`) into a
        local array of the elements the region reads (at most
        `PACKED_ELEMENTS`); None for other loads. The sunk loop then
        vectorises (one vector load serves the tile's rows) where it ran
        one element at a time.

        `k[t0, t4, t5]` (sunk t4, t0 outside the region) reads
        `q0[t5 * 16 + t4]`, `q0` filled from `k[t0, :, :]`.
        """
        if self._sunk is None or self._copy_point is None:
            return None
        if any(not isinstance(a, Var) for ix in index for a in ix.atoms()):
            return None
        memref_type = memref.type
        assert isinstance(memref_type, MemRefType)
        shape = tuple(memref_type.get_shape())
        strides = memref_type.get_strides() or element_strides(shape)
        stride = sum(
            axis_coefficient(ix, self._sunk) * s
            for ix, s in zip(index, strides, strict=True)
        )
        if stride in (0, 1):
            return None  # the same element, or the next: a vector load
        position, indent, inner = self._copy_point
        axes = self.nest.axes
        used = sorted({v.id for ix in index for v in ix.variables()})
        if any(axes[v].position < 0 for v in used):
            return None
        order = [v for v in used if v in inner and v != self._sunk] + [self._sunk]
        size = math.prod(axes[v].extent for v in order)
        if size > PACKED_ELEMENTS or self._written_by_nest(memref):
            return None
        element = (memref, index)
        if element not in self._packed_operands:
            name = f"q{self._copies}"
            self._copies += 1
            self._packed_operands[element] = name
            dtype = numpy_dtype(memref_type.element_type)
            lines = [self._array(indent, name, dtype, size)]
            level = indent
            for v in order:
                extent = self._param(axes[v].extent)
                lines.append(self._loop_of(level, f"t{v}", extent))
                level += "    "
            target = f"{name}[{self._linear(order)}]"
            lines.append(self._assign(level, target, self._element(memref, index)))
            for _ in order:
                level = level[:-4]
                lines += self._end_loop(level)
            self.body[position:position] = lines
            self._copy_point = (position + len(lines), indent, inner)
        return f"{self._packed_operands[element]}[{self._linear(order)}]"

    def _linear(self, order: list[int]) -> str:
        """The row-major position of loop variables `order` in an array of
        their extents."""
        position = ""
        for v in order:
            extent = self.nest.axes[v].extent
            position = f"({position}) * {extent} + t{v}" if position else f"t{v}"
        return position

    def _written_by_nest(self, memref: SSAValue) -> bool:
        """Whether the nest stores to a byte `memref` views (a copy made on
        entry would be stale)."""
        place = footprint(memref, self.env.constants)
        return any(
            isinstance(statement.op, affine.StoreOp)
            and footprint(statement.op.memref, self.env.constants).overlaps(place)
            for statement in self.nest.statements
        )

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
