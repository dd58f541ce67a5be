"""How a native kernel's loops are reordered: register tiles and sunk loops.

Decided per loop while `native.NativeNest` walks a nest: a short loop
around a reduction is moved inside it with the loops it tiles
(`_register_tile`: a tile of accumulators held in registers, its last strip
written again when the extent does not divide), or distributed and sunk
inside the reduction's loops (`_sinkable`, `_emit_sunk`: the elements it
owns mirrored in a local array). A mixin of `NativeNest`, whose state
(`nest`, `body`, the language's hooks) it writes into.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from xdsl.dialects import affine
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import axis_coefficient, unblocked
from ge_runtime.jit.emit.native_operands import INDEX, Element
from ge_runtime.jit.ops import numpy_dtype
from passes.lowering.index import Div, Ix, Mod, Var

Segment = list[Operation]
"""A part of a loop `_sinkable` distributes: a run of ops, or a reduction's
perfectly nested loops (outer first)."""


Tile = tuple[list[tuple[int, int]], affine.ForOp, list[Segment]]
"""A register tile (`_register_tile`): its loops and blocks, the sunk loop,
its parts."""


SUNK_EXTENT = 256
"""Loops at most this long may be moved inside a reduction (`_sinkable`).
Longer ones run their sums one term at a time, in a chain: OPT's 100-wide
feed-forward layer over 64 terms (`Gemm` with `transB`) took half of its
run at 64 (4x onnxruntime; 1.3x sunk), and no kernel of the zoo ran slower
at 256 (CPU time per run, old and new alternating)."""


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


def _independent_rows(rows: list[list[int]]) -> bool:
    """Whether the integer rows are linearly independent (exact elimination
    over the integers: each pivot row cross-multiplied into the others)."""
    pending = [list(row) for row in rows if any(row)]
    if len(pending) < len(rows):
        return False
    while pending:
        pivot = pending.pop()
        column = next((i for i, x in enumerate(pivot) if x), None)
        if column is None:
            return False
        pending = [
            [
                pivot[column] * x - row[column] * y
                for x, y in zip(row, pivot, strict=True)
            ]
            for row in pending
        ]
    return True


def _distinct_rows(rows: np.ndarray) -> bool:
    """Whether no two rows of the integer matrix `rows` are equal (sorted,
    each compared with the next)."""
    if len(rows) < 2:
        return True
    if rows.shape[1] == 0:
        return False
    ordered = rows[np.lexsort(rows.T)]
    return not np.any(np.all(ordered[1:] == ordered[:-1], axis=1))


def balanced_block(budget: int, extent: int) -> int:
    """The rows of a tile of at most `budget` over `extent`: the largest
    divisor of `extent` within `budget` if it is at least half of it (no
    shorter last strip to write twice), else `budget`."""
    if extent <= budget or budget < 2:
        return min(budget, extent)
    divisor = max(d for d in range(1, budget + 1) if extent % d == 0)
    return divisor if 2 * divisor >= budget else budget


class LoopTiling:
    """The loop reorderings of a `NativeNest`: a compiler that vectorises
    loops wants a short parallel loop around a reduction innermost."""

    _tiles: dict[affine.ForOp, Tile | None]
    """`_register_tile`'s answers, per loop (they depend on the nest alone,
    asked again at each loop around and in each emission)."""
    _segments: dict[affine.ForOp, list[Segment] | None]
    """`_sinkable`'s answers, per loop."""

    in_order: bool
    """Whether the nest's order matters (`NativeNest._data_dependent`):
    then no loop is tiled or sunk."""

    def _register_tile(self, loop: affine.ForOp) -> Tile | None:
        """`_find_register_tile`'s answer, found once per loop."""
        if self.in_order:
            return None
        if loop not in self._tiles:
            self._tiles[loop] = self._find_register_tile(loop)
        return self._tiles[loop]

    def _sinkable(self, loop: affine.ForOp) -> list[Segment] | None:
        """`_find_sinkable`'s answer, found once per loop."""
        if self.in_order:
            return None
        if loop not in self._segments:
            self._segments[loop] = self._find_sinkable(loop)
        return self._segments[loop]

    def _find_register_tile(self, loop: affine.ForOp) -> Tile | None:
        """The register tile `loop` heads, if any: the loops perfectly nested
        from it down to a loop `_sinkable` moves (outputs' pixels around a
        convolution's C0 loop), innermost first while the language's
        `_tile_rows` allows (rows of the sunk loop's sums: the tile's loops'
        product),
        whole or (the outermost) in strips. They run innermost in the
        reduction with the sunk loop, so one load of a weight vector serves
        the tile's pixels and their sums are
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
        budget = self._tile_rows(self.nest.axes[sunk].extent)
        tile: list[tuple[int, int]] = []
        for candidate in reversed(chain):
            number = self._numbers[candidate]
            axis = self.nest.axes[number]
            if axis.position < 0:
                break
            block = balanced_block(budget, axis.extent)
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
            unblocked(tuple(self.nest.access_index(op)))
            for op in self._ops(sunk)
            if isinstance(op, affine.StoreOp)
        }
        for index in indices:
            for ix in index:
                for atom in ix.atoms():
                    if isinstance(atom, Div | Mod) and any(
                        v.id in moving for v in atom.arg.variables()
                    ):
                        return False
            rows = [[axis_coefficient(ix, n) for ix in index] for n, _ in loops]
            if _independent_rows(rows):
                continue  # one point per element of the whole lattice
            coefficients = np.array(rows, np.int64).reshape(len(loops), len(index))
            blocks = [b for _, b in loops]
            points = np.indices(blocks).reshape(len(blocks), -1).T
            if not _distinct_rows(points @ coefficients):
                return False
        return True

    def _emit_tiled(
        self,
        tile: list[tuple[int, int]],
        sunk: affine.ForOp,
        parts: list[Segment],
        indent: str,
        *,
        split: bool,
    ) -> None:
        """`sunk` moved innermost with the tile's loops; the outermost of
        those in strips of its block (and a last, shorter one), the strips
        split over threads with `split` (the outermost loop's iterations are
        independent):

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
            if split and strips > 1:
                self.body.append(self._parallel(indent, 1, split))
            self.body.append(self._loop_of(indent, f"s{first}", str(strips)))
            self._tile = [(first, block, f"s{first} * {block}"), *whole]
            self._emit_sunk(sunk, parts, indent + "    ")
            self.body += self._end_loop(indent)
            if rest:
                self._tile = [(first, rest, str(strips * block)), *whole]
                self._emit_sunk(sunk, parts, indent)
        self._tile = []

    def _sunk_spans(self) -> list[tuple[int, int]]:
        """The ranges the sunk loop runs in (`_vector_spans`)."""
        assert self._sunk is not None
        return self._vector_spans(self.nest.axes[self._sunk].extent)

    def _open_sunk(
        self, indent: str, span: tuple[int, int], *, unroll: bool = False
    ) -> str:
        """The loops of the tile, then the sunk loop over `span` (one of
        `_sunk_spans`): the indentation inside. With `unroll`, the tile's
        loops are unrolled (its sums in registers)."""
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
        start, stop = span
        self.body.append(self._loop(indent, self._sunk, self._param(stop), start))
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

    def _find_sinkable(self, loop: affine.ForOp) -> list[Segment] | None:
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
            op
            for op in self._ops(loop)
            if isinstance(op, affine.LoadOp | affine.StoreOp)
        ]
        places = {op.memref: self._footprint(op.memref) for op in accesses}
        for stored in {op.memref for op in accesses if isinstance(op, affine.StoreOp)}:
            touching = [
                op for op in accesses if places[op.memref].overlaps(places[stored])
            ]
            if any(op.memref is not stored for op in touching):
                return False
            indices = {unblocked(tuple(self.nest.access_index(op))) for op in touching}
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
        for op in self._ops(loop):
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
            op
            for op in self._ops(loop)
            if isinstance(op, affine.LoadOp | affine.StoreOp)
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
