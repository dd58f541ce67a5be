"""The loop analysis every emitter shares: what a nest computes, and when
statement-by-statement execution over its whole iteration grid is exact.

A `LoopNest` collects one top-level `affine.for` nest: every loop is an
axis of one grid (`Axis`), every op a `Statement` with the loops around it,
every index an affine expression of the loop variables (`Ix`). It then
answers, for the NumPy emitter (which runs the nest statement by statement
over the grid) and for the native emitters (which write its loops out):

- value collection (`analyse_values`): the grid axes each value varies
  over (`deps`; `live` for one value);
- dependence (`check_dependences`): every buffer the nest writes is
  accessed at one index function, injective over the loops it uses, and
  two accesses sharing a loop outside those are the load and store of one
  accumulation (`Accumulation`), else `Unsupported`;
- injectivity (`check_injective`) and bounds (`check_bounds`: an access
  outside its buffer is a `JITError`, an error of the program);
- independence (`carries_no_dependence`): whether a loop's iterations
  touch disjoint elements of what the nest writes (they may run at the
  same time, on threads);
- data-dependent accesses: gathers (`memref.load`) and scatters
  (`memref.store`, `computed_stores`) through indices the nest computes,
  and the checks on them (`cf.assert`). A scatter makes the nest exact only
  in its own order (`check_dependences` refuses it).

Nothing here writes code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith, cf, memref
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from ge_runtime.jit.ops import (
    COMPARISONS,
    CONVERSIONS,
    ELEMENTWISE,
    REDUCTIONS,
    JITError,
)
from passes.lowering.index import Div, Ix, Mod, Var


class Unsupported(Exception):
    """The nest is not in the vectorisable subset (the reason is the message)."""


@dataclass(frozen=True)
class Axis:
    """One loop: `iv = lb + step * t` for `t` in `0..extent-1`."""

    lb: int
    step: int
    extent: int
    position: int
    """Position among the grid's array axes (-1 if extent <= 1)."""


@dataclass
class Statement:
    """An op of the nest with the loops enclosing it (outermost first)."""

    op: Operation
    loops: tuple[int, ...]
    order: int


@dataclass
class Accumulation:
    """`store combine(load acc[f], x), acc[f]` over reduction loops."""

    load: affine.LoadOp
    combine: Operation
    term: SSAValue
    reduced: frozenset[int]


def is_linear(ix: Ix) -> bool:
    """Whether an index is a sum of loop variables (no floordiv/mod)."""
    return all(isinstance(atom, Var) for atom, _ in ix.terms)


def canonical_index(index: Sequence[Ix]) -> tuple:
    """A key equal for two accesses at the same index function."""
    return tuple((frozenset(ix.terms), ix.const) for ix in index)


@dataclass
class LoopNest:
    """The analysis of one top-level `affine.for` nest (collected when made).

    `constants` are the integer constants defined outside the nest (an
    index operand may be one); `buffer_root` maps a memref to the buffer it
    views (two views of one buffer alias)."""

    root: affine.ForOp
    constants: Mapping[SSAValue, Any]
    buffer_root: Callable[[SSAValue], SSAValue]
    axes: list[Axis] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    symbols: dict[SSAValue, Ix] = field(default_factory=dict)
    """Loop variables and `affine.apply` results -> their index expressions."""
    deps: dict[SSAValue, frozenset[int]] = field(default_factory=dict)
    """Values -> the grid axes they vary over (`analyse_values`)."""
    inside: set[SSAValue] = field(default_factory=set)
    """Values defined inside the nest."""
    _indices: dict[Operation, tuple[Ix, ...]] = field(default_factory=dict)
    """`access_index`'s answers (asked for again by every emission)."""

    def __post_init__(self) -> None:
        self._collect(self.root, ())

    def drop_empty(self) -> None:
        """Forget the statements inside a loop that never runs."""
        if any(self.axes[a].extent <= 0 for s in self.statements for a in s.loops):
            self.statements = [
                s
                for s in self.statements
                if all(self.axes[a].extent > 0 for a in s.loops)
            ]

    def _collect(self, loop: affine.ForOp, loops: tuple[int, ...]) -> None:
        if loop.operands:  # bound operands or iter_args
            raise Unsupported("loop with operands or iter_args")
        bounds = [loop.lowerBoundMap.data.results, loop.upperBoundMap.data.results]
        if any(len(b) != 1 or not isinstance(b[0], AffineConstantExpr) for b in bounds):
            raise Unsupported("non-constant loop bounds")
        lb, ub = bounds[0][0].value, bounds[1][0].value
        step = loop.step.value.data
        extent = max(0, -(-(ub - lb) // step))
        position = sum(1 for a in self.axes if a.position >= 0) if extent > 1 else -1
        axis = len(self.axes)
        self.axes.append(Axis(lb, step, extent, position))
        iv = loop.body.block.args[0]
        self.inside.add(iv)
        var = Var(axis, 0, max(extent - 1, 0))
        self.symbols[iv] = Ix.of(lb) + (Ix.of(var) * step if extent > 1 else 0)
        loops = (*loops, axis)
        for op in loop.body.block.ops:
            if isinstance(op, affine.ForOp):
                self._collect(op, loops)
            elif isinstance(op, affine.YieldOp):
                if op.operands:
                    raise Unsupported("affine.yield with values")
            else:
                self._check_op(op)
                self.inside.update(op.results)
                self.statements.append(Statement(op, loops, len(self.statements)))

    def _check_op(self, op: Operation) -> None:
        if op.regions:
            raise Unsupported(f"'{op.name}' has regions")
        supported = (
            affine.LoadOp,
            affine.StoreOp,
            affine.ApplyOp,
            arith.ConstantOp,
            memref.LoadOp,  # a data-dependent load: a gather
            memref.StoreOp,  # a data-dependent store: a scatter
            cf.AssertOp,  # a check on the data (a gather's indices)
        )
        if (
            isinstance(op, supported)
            or op.name in ELEMENTWISE
            or op.name in CONVERSIONS
        ):
            return
        if op.name in COMPARISONS:
            return
        raise Unsupported(f"'{op.name}' is not vectorised")

    def _index_operand(self, value: SSAValue) -> Ix:
        if value in self.symbols:
            return self.symbols[value]
        if value in self.constants:
            return Ix.of(int(self.constants[value]))
        raise Unsupported("index operand computed outside affine maps")

    def _affine(self, expr: AffineExpr, dims: list[Ix], syms: list[Ix]) -> Ix:
        match expr:
            case AffineConstantExpr():
                return Ix.of(expr.value)
            case AffineDimExpr():
                return dims[expr.position]
            case AffineSymExpr():
                return syms[expr.position]
            case AffineBinaryOpExpr():
                lhs = self._affine(expr.lhs, dims, syms)
                rhs = self._affine(expr.rhs, dims, syms)
                if expr.kind == AffineBinaryOpKind.Add:
                    return lhs + rhs
                constant = rhs.constant_value
                if expr.kind == AffineBinaryOpKind.Mul:
                    if constant is None:
                        lhs, constant = rhs, lhs.constant_value
                    if constant is None:
                        raise Unsupported("product of loop variables")
                    return lhs * constant
                if constant is None or constant <= 0:
                    raise Unsupported("division by a non-constant")
                if expr.kind == AffineBinaryOpKind.FloorDiv:
                    return lhs.floordiv(constant)
                if expr.kind == AffineBinaryOpKind.Mod:
                    return lhs.mod(constant)
                return (lhs * -1).floordiv(constant) * -1
        raise Unsupported(f"affine expression {expr}")

    def access_index(
        self, op: affine.LoadOp | affine.StoreOp | affine.ApplyOp
    ) -> list[Ix]:
        """The index expressions of an affine access over the grid."""
        found = self._indices.get(op)
        if found is None:
            found = self._indices[op] = tuple(self._access_index(op))
        return list(found)

    def _access_index(
        self, op: affine.LoadOp | affine.StoreOp | affine.ApplyOp
    ) -> list[Ix]:
        operands = {
            affine.LoadOp: lambda: op.indices,
            affine.StoreOp: lambda: op.indices,
            affine.ApplyOp: lambda: op.mapOperands,
        }[type(op)]()
        map_ = op.map.data
        values = [self._index_operand(v) for v in operands]
        dims, syms = values[: map_.num_dims], values[map_.num_dims :]
        return [self._affine(r, dims, syms) for r in map_.results]

    def ix_deps(self, index: Sequence[Ix]) -> frozenset[int]:
        """The grid axes (loops longer than one) an index moves along."""
        return frozenset(
            v.id
            for ix in index
            for v in ix.variables()
            if self.axes[v.id].position >= 0
        )

    def analyse_values(self) -> None:
        """Record the grid axes each value of the nest varies over (`deps`)."""
        for iv, ix in self.symbols.items():
            self.deps[iv] = self.ix_deps([ix])
        for s in self.statements:
            op = s.op
            if isinstance(op, affine.ApplyOp):
                (ix,) = self.access_index(op)
                self.symbols[op.result] = ix
                self.deps[op.result] = self.ix_deps([ix])
            elif isinstance(op, affine.LoadOp):
                self.deps[op.result] = self.ix_deps(self.access_index(op))
            elif op.results:
                inner = [self.deps.get(v, frozenset()) for v in op.operands]
                self.deps[op.results[0]] = frozenset().union(*inner)

    def buffer(self, value: SSAValue) -> SSAValue:
        """The buffer a memref the nest accesses views (`Unsupported` if the
        nest defines it)."""
        if value in self.inside:
            raise Unsupported("memref defined inside the nest")
        return self.buffer_root(value)

    def check_dependences(self) -> dict[affine.StoreOp, Accumulation]:
        """Check the statement-by-statement execution is exact; find accumulations."""
        if self.computed_stores():
            raise Unsupported("a store through computed indices (a scatter)")
        accesses: dict[SSAValue, list[Statement]] = {}
        for s in self.statements:
            if isinstance(s.op, affine.LoadOp | affine.StoreOp):
                accesses.setdefault(self.buffer(s.op.memref), []).append(s)
        accumulations: dict[affine.StoreOp, Accumulation] = {}
        for s in self.statements:
            if isinstance(s.op, memref.LoadOp):
                root = self.buffer(s.op.memref)
                if any(
                    isinstance(a.op, affine.StoreOp) for a in accesses.get(root, [])
                ):
                    raise Unsupported("a gathered buffer is written in the nest")
        for group in accesses.values():
            stores = [s for s in group if isinstance(s.op, affine.StoreOp)]
            if not stores:
                continue
            index = self.access_index(stores[0].op)
            if len({canonical_index(self.access_index(s.op)) for s in group}) > 1:
                raise Unsupported("a written buffer is accessed at different indices")
            used = self.ix_deps(index)
            paired: set[tuple[int, int]] = set()
            for store in stores:
                accumulation = self._accumulation(store, used)
                if accumulation is not None:
                    accumulations[store.op] = accumulation
                    load = next(s for s in group if s.op is accumulation.load)
                    paired.add((load.order, store.order))
                elif not self.live(store.op.value) <= used:
                    raise Unsupported("a store repeats over a loop it does not index")
            for position, first in enumerate(group):
                for second in group[position + 1 :]:
                    self._check_order(first, second, used, paired)
            self.check_injective(stores[0].op, index, used)
        return accumulations

    def _check_order(
        self,
        first: Statement,
        second: Statement,
        used: frozenset[int],
        paired: set[tuple[int, int]],
    ) -> None:
        """Two accesses to a written buffer may only share loops that index it."""
        if (first.order, second.order) in paired:
            return
        common = self.live_loops(common_prefix(first.loops, second.loops))
        if not common <= used:
            raise Unsupported("accesses to a written buffer interleave")

    def data_dependent(self) -> list[Operation]:
        """The nest's ops whose effect depends on the data: its gathers and
        scatters (`memref.load`/`memref.store` through indices it computes)
        and its checks on the data (`cf.assert`), in program order."""
        kinds = memref.LoadOp | memref.StoreOp | cf.AssertOp
        return [s.op for s in self.statements if isinstance(s.op, kinds)]

    def computed_stores(self) -> list[memref.StoreOp]:
        """The nest's stores through computed indices (scatters): where they
        write depends on the data, so only the nest's own order of
        execution is exact (two may write one element)."""
        return [s.op for s in self.statements if isinstance(s.op, memref.StoreOp)]

    def live(self, value: SSAValue) -> frozenset[int]:
        """The grid axes `value` varies over."""
        return self.deps.get(value, frozenset())

    def live_loops(self, loops: Sequence[int]) -> frozenset[int]:
        """Those of `loops` that are grid axes (longer than one)."""
        return frozenset(a for a in loops if self.axes[a].position >= 0)

    def _accumulation(
        self, store: Statement, used: frozenset[int]
    ) -> Accumulation | None:
        reduced = self.live_loops(store.loops) - used
        if not reduced:
            return None
        combine = store.op.value.owner
        if not isinstance(combine, Operation) or combine.name not in REDUCTIONS:
            return None
        for acc, term in (combine.operands, combine.operands[::-1]):
            load = acc.owner
            if (
                isinstance(load, affine.LoadOp)
                and load.memref == store.op.memref
                and load.parent_block() is store.op.parent_block()
                and load.result.has_one_use()
                and canonical_index(self.access_index(load))
                == canonical_index(self.access_index(store.op))
            ):
                return Accumulation(load, combine, term, reduced)
        return None

    def check_injective(
        self, store: affine.StoreOp, index: list[Ix], used: frozenset[int]
    ) -> None:
        """`Unsupported` unless `store` writes a different element at every
        point of the loops it uses (`used`)."""
        shape = store.memref.type.get_shape()
        strides = element_strides(shape)
        merged = unblocked(tuple(index))
        if len(merged) < len(index) and all(is_linear(ix) for ix in merged):
            # a blocked pair as its one dimension: injective as the tuple of
            # dimensions, each within its bounds, in a row-major box of them
            index = list(merged)
            strides = element_strides([hi - lo + 1 for lo, hi in map(Ix.bounds, index)])
        if all(is_linear(ix) for ix in index):
            steps = sorted(
                (
                    abs(
                        sum(
                            s * axis_coefficient(ix, a)
                            for ix, s in zip(index, strides, strict=True)
                        )
                    ),
                    a,
                )
                for a in used
            )
            reach = 0
            for step, axis in steps:
                if step <= reach:
                    raise Unsupported("store is not injective")
                reach += step * (self.axes[axis].extent - 1)
            return
        flat = self.flat_index(index, shape)
        if np.unique(flat).size != np.asarray(flat).size:
            raise Unsupported("store is not injective")

    def carries_no_dependence(
        self, axis: int, overlap: Callable[[SSAValue, SSAValue], bool]
    ) -> bool:
        """Whether distinct iterations of loop `axis` access disjoint elements
        of every buffer the nest writes: each such buffer is accessed only
        through one memref (`overlap` tells which memrefs may share a byte),
        at one index function, injective over the loops it uses, and loop
        `axis` among those. A reduction's loop (its store does not move
        along it) or a store repeated over the loop carries one."""
        accesses = [
            s.op
            for s in self.statements
            if isinstance(s.op, affine.LoadOp | affine.StoreOp | memref.LoadOp)
        ]
        if self.computed_stores():
            return False
        stores = {op.memref: op for op in accesses if isinstance(op, affine.StoreOp)}
        for target, store in stores.items():
            touching = [op for op in accesses if overlap(op.memref, target)]
            if any(
                op.memref is not target or isinstance(op, memref.LoadOp)
                for op in touching
            ):
                return False
            index = self.access_index(store)
            if len({canonical_index(self.access_index(op)) for op in touching}) > 1:
                return False
            used = self.ix_deps(index)
            if axis not in used:
                return False
            try:
                self.check_injective(store, index, used)
            except Unsupported:
                return False
        return True

    @property
    def ndim(self) -> int:
        """The number of grid axes."""
        return sum(1 for a in self.axes if a.position >= 0)

    def shape(self, deps: frozenset[int]) -> tuple[int, ...]:
        """The grid-shaped array shape of a value over `deps` (1 elsewhere)."""
        shape = [1] * self.ndim
        for a in deps:
            shape[self.axes[a].position] = self.axes[a].extent
        return tuple(shape)

    def grid(self, var: Var) -> np.ndarray:
        """A loop variable's iteration numbers, along its grid axis."""
        axis = self.axes[var.id]
        shape = [1] * self.ndim
        shape[axis.position] = axis.extent
        return np.arange(axis.extent).reshape(shape)

    def evaluate(self, ix: Ix) -> np.ndarray | int:
        """An index expression's value at every point of the grid."""
        return ix.evaluate({v: self.grid(v) for v in ix.variables()})

    def flat_index(self, index: list[Ix], shape: Sequence[int]) -> np.ndarray:
        """The row-major element offsets an access reaches, over the grid."""
        flat: np.ndarray | int = 0
        for ix, stride in zip(index, element_strides(shape), strict=True):
            flat = flat + self.evaluate(ix) * stride
        return np.asarray(flat, dtype=np.int64)

    def check_bounds(
        self, op: Operation, index: list[Ix], shape: Sequence[int]
    ) -> list[tuple[int, int]]:
        """The least and greatest index an access reaches on each axis;
        JITError if it reaches outside its buffer's `shape`."""
        bounds = [exact_bounds(ix, self) for ix in index]
        check_within(op.name, bounds, shape)
        return bounds


def check_within(
    name: str, bounds: Sequence[tuple[int, int]], shape: Sequence[int]
) -> None:
    """JITError if op `name`'s access, from the least to the greatest index
    `bounds` on each axis, reaches outside a buffer's `shape`."""
    for (lo, hi), size in zip(bounds, shape, strict=True):
        if lo < 0 or hi >= size:
            raise JITError(
                f"'{name}' accesses index {lo}..{hi} of a dimension of size {size}"
            )


def common_prefix(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The loops two statements share (their common outer loops)."""
    common = []
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common.append(x)
    return tuple(common)


def axis_coefficient(ix: Ix, axis: int) -> int:
    """How far `ix` moves per step of loop variable `axis`."""
    return sum(c for atom, c in ix.terms if isinstance(atom, Var) and atom.id == axis)


def element_strides(shape: Sequence[int]) -> list[int]:
    """Row-major strides of `shape`, in elements."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def exact_bounds(ix: Ix, nest: LoopNest) -> tuple[int, int]:
    """Exact min/max of an index over the grid (evaluated when non-linear)."""
    if is_linear(ix):
        return ix.bounds()
    values = np.asarray(nest.evaluate(ix))
    return int(values.min()), int(values.max())


def unblocked(index: tuple[Ix, ...]) -> tuple[Ix, ...]:
    """`index` with each pair of dimensions `r + A floordiv k` and
    `A mod k` (a blocked axis: NC1HWC0's channel `34 g + o` in blocks of
    16) as the one dimension `k r + A`: the pair takes a different value
    for each value of that one, so the index moves injectively where the
    unblocked one does."""
    moduli = {
        (ix.terms[0][0].arg, ix.terms[0][0].k): position
        for position, ix in enumerate(index)
        if len(ix.terms) == 1
        and ix.terms[0][1] == 1
        and isinstance(ix.terms[0][0], Mod)
    }
    merged: dict[int, Ix] = {}
    dropped: set[int] = set()
    for position, ix in enumerate(index):
        wraps = [(a, c) for a, c in ix.terms if isinstance(a, Div | Mod)]
        if len(wraps) != 1 or wraps[0][1] != 1 or not isinstance(wraps[0][0], Div):
            continue
        atom = wraps[0][0]
        paired = moduli.get((atom.arg, atom.k))
        if paired is None or paired in dropped:
            continue
        rest = Ix(tuple(t for t in ix.terms if t[0] is not atom), ix.const)
        merged[position] = rest * atom.k + atom.arg + index[paired].const
        dropped.add(paired)
    return tuple(
        merged.get(position, ix)
        for position, ix in enumerate(index)
        if position not in dropped
    )
