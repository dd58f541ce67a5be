"""The JIT's vectoriser: an affine loop nest becomes a few NumPy calls.

Every loop of a nest is an axis of one iteration grid. Every SSA value in the
nest is an array over the axes it depends on (size 1 on the others), so
values computed per channel stay channel-sized and broadcast like NumPy. The
nest is run statement by statement over the whole grid, which is legal when
(checked, else the scalar path is used):

- accesses are affine maps of the loop variables with constant loop bounds;
- every buffer the nest writes is accessed at one index function `f` only,
  injective over the loops it uses (`P`), and two accesses sharing a loop
  outside `P` are the load and store of one accumulation;
- a store repeated over loops outside `P` (the reduction loops `R`) is an
  accumulation `acc[f] = acc[f] (+|*|max|min) x`.

Loads are zero-copy views: `as_strided` when the index is linear in the
loop variables (`x[n, c1, ho * 2 + kh, wo * 2 + kw, c0]` is a sliding-window
view), index arrays precomputed at compile time when it involves
`floordiv`/`mod`. Accumulations of products become `np.einsum` over the
operands' own axes (a convolution is one BLAS contraction of a window view
and the weights); other accumulations are `ufunc.reduce` over `R`. Stores
assign into strided views (or scatter through index arrays).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from ge_runtime.jit_ops import (
    CASTS,
    ELEMENTWISE,
    REDUCTIONS,
    JITError,
    constant_value,
    numpy_dtype,
    scalar_function,
)
from ge_runtime.jit_scalar import CodeEnv
from passes.lowering.index import Ix, Var


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


def strided_view(
    base: np.ndarray, offset: int, shape: tuple, strides: tuple
) -> np.ndarray:
    """`as_strided` over a contiguous buffer from element `offset`."""
    return as_strided(base.reshape(-1)[offset:], shape, strides)


def contract(
    a: np.ndarray,
    a_axes: Sequence[int],
    b: np.ndarray,
    b_axes: Sequence[int],
    out_axes: Sequence[int],
) -> np.ndarray:
    """`einsum` of two operands as one batched BLAS `matmul`.

    Shared axes kept in the output are batch axes, other shared axes are
    contracted; an axis of one operand only is summed out first unless kept.
    The result has the axes `out_axes`, in that order.
    """
    kept = set(out_axes)
    a, a_axes = _sum_out(a, a_axes, kept | set(b_axes))
    b, b_axes = _sum_out(b, b_axes, kept | set(a_axes))
    shared = [x for x in a_axes if x in b_axes]
    batch = [x for x in shared if x in kept]
    summed = [x for x in shared if x not in kept]
    a_free = [x for x in a_axes if x not in shared]
    b_free = [x for x in b_axes if x not in shared]
    sizes = dict(zip(a_axes, a.shape, strict=True)) | dict(
        zip(b_axes, b.shape, strict=True)
    )

    def count(axes: list[int]) -> int:
        return math.prod(sizes[x] for x in axes)

    if count(a_free) < count(b_free):
        # OpenBLAS is far faster with the larger free dimension on the left.
        a, a_axes, a_free, b, b_axes, b_free = b, b_axes, b_free, a, a_axes, a_free
    left = a.transpose([a_axes.index(x) for x in batch + a_free + summed])
    right = b.transpose([b_axes.index(x) for x in batch + summed + b_free])
    # Contiguous operands keep BLAS on its fast path (strided ones take a slow
    # loop); without batch axes a 2-D dot avoids matmul's batching overhead.
    left = np.ascontiguousarray(left).reshape(count(batch), count(a_free), -1)
    right = np.ascontiguousarray(right).reshape(count(batch), count(summed), -1)
    product = np.dot(left[0], right[0]) if not batch else np.matmul(left, right)
    order = batch + a_free + b_free
    product = product.reshape([sizes[x] for x in order])
    return product.transpose([order.index(x) for x in out_axes])


def _sum_out(
    array: np.ndarray, axes: Sequence[int], keep: set[int]
) -> tuple[np.ndarray, list[int]]:
    drop = tuple(i for i, x in enumerate(axes) if x not in keep)
    if drop:
        array = array.sum(axis=drop)
    return array, [x for x in axes if x in keep]


def _is_linear(ix: Ix) -> bool:
    return all(isinstance(atom, Var) for atom, _ in ix.terms)


def _canonical(index: Sequence[Ix]) -> tuple:
    return tuple((frozenset(ix.terms), ix.const) for ix in index)


@dataclass
class NestVectoriser:
    """Turns one top-level `affine.for` nest into Python source over arrays."""

    root: affine.ForOp
    env: CodeEnv
    axes: list[Axis] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    symbols: dict[SSAValue, Ix] = field(default_factory=dict)
    deps: dict[SSAValue, frozenset[int]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    _names: dict[SSAValue, str] = field(default_factory=dict)
    _inside: set[SSAValue] = field(default_factory=set)

    # -- analysis -----------------------------------------------------------

    def compile(self, indent: str) -> list[str]:
        """Source for the whole nest, or `Unsupported` if it is not vectorisable."""
        self._collect(self.root, ())
        if any(self.axes[a].extent <= 0 for s in self.statements for a in s.loops):
            self.statements = [
                s
                for s in self.statements
                if all(self.axes[a].extent > 0 for a in s.loops)
            ]
        self._analyse_values()
        accumulations = self._check_dependences()
        self._emit(accumulations)
        return [indent + line for line in self.lines] or [f"{indent}pass"]

    def _collect(self, loop: affine.ForOp, loops: tuple[int, ...]) -> None:
        if loop.inits or loop.lowerBoundOperands or loop.upperBoundOperands:
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
        self._inside.add(iv)
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
                self._inside.update(op.results)
                self.statements.append(Statement(op, loops, len(self.statements)))

    def _check_op(self, op: Operation) -> None:
        if op.regions:
            raise Unsupported(f"'{op.name}' has regions")
        supported = (affine.LoadOp, affine.StoreOp, affine.ApplyOp, arith.ConstantOp)
        if isinstance(op, supported) or op.name in ELEMENTWISE or op.name in CASTS:
            return
        if op.name in ("arith.cmpf", "arith.cmpi"):
            return
        raise Unsupported(f"'{op.name}' is not vectorised")

    def _index_operand(self, value: SSAValue) -> Ix:
        if value in self.symbols:
            return self.symbols[value]
        if value in self.env.constants:
            return Ix.of(int(self.env.constants[value]))
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
        operands = {
            affine.LoadOp: lambda: op.indices,
            affine.StoreOp: lambda: op.indices,
            affine.ApplyOp: lambda: op.mapOperands,
        }[type(op)]()
        map_ = op.map.data
        values = [self._index_operand(v) for v in operands]
        dims, syms = values[: map_.num_dims], values[map_.num_dims :]
        return [self._affine(r, dims, syms) for r in map_.results]

    def _ix_deps(self, index: Sequence[Ix]) -> frozenset[int]:
        return frozenset(
            v.id
            for ix in index
            for v in ix.variables()
            if self.axes[v.id].position >= 0
        )

    def _analyse_values(self) -> None:
        for iv, ix in self.symbols.items():
            self.deps[iv] = self._ix_deps([ix])
        for s in self.statements:
            op = s.op
            if isinstance(op, affine.ApplyOp):
                (ix,) = self.access_index(op)
                self.symbols[op.result] = ix
                self.deps[op.result] = self._ix_deps([ix])
            elif isinstance(op, affine.LoadOp):
                self.deps[op.result] = self._ix_deps(self.access_index(op))
            elif op.results:
                inner = [self.deps.get(v, frozenset()) for v in op.operands]
                self.deps[op.results[0]] = frozenset().union(*inner)

    def _memref(self, value: SSAValue) -> SSAValue:
        if value in self._inside:
            raise Unsupported("memref defined inside the nest")
        return self.env.root(value)

    def _check_dependences(self) -> dict[affine.StoreOp, Accumulation]:
        """Check the statement-by-statement execution is exact; find accumulations."""
        accesses: dict[SSAValue, list[Statement]] = {}
        for s in self.statements:
            if isinstance(s.op, affine.LoadOp | affine.StoreOp):
                accesses.setdefault(self._memref(s.op.memref), []).append(s)
        accumulations: dict[affine.StoreOp, Accumulation] = {}
        for group in accesses.values():
            stores = [s for s in group if isinstance(s.op, affine.StoreOp)]
            if not stores:
                continue
            index = self.access_index(stores[0].op)
            if len({_canonical(self.access_index(s.op)) for s in group}) > 1:
                raise Unsupported("a written buffer is accessed at different indices")
            used = self._ix_deps(index)
            paired: set[tuple[int, int]] = set()
            for store in stores:
                accumulation = self._accumulation(store, used)
                if accumulation is not None:
                    accumulations[store.op] = accumulation
                    load = next(s for s in group if s.op is accumulation.load)
                    paired.add((load.order, store.order))
                elif not self._live(store.op.value) <= used:
                    raise Unsupported("a store repeats over a loop it does not index")
            for position, first in enumerate(group):
                for second in group[position + 1 :]:
                    self._check_order(first, second, used, paired)
            self._check_injective(stores[0].op, index, used)
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
        common = self._live_loops(_common_prefix(first.loops, second.loops))
        if not common <= used:
            raise Unsupported("accesses to a written buffer interleave")

    def _live(self, value: SSAValue) -> frozenset[int]:
        return self.deps.get(value, frozenset())

    def _live_loops(self, loops: Sequence[int]) -> frozenset[int]:
        return frozenset(a for a in loops if self.axes[a].position >= 0)

    def _accumulation(
        self, store: Statement, used: frozenset[int]
    ) -> Accumulation | None:
        reduced = self._live_loops(store.loops) - used
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
                and _canonical(self.access_index(load))
                == _canonical(self.access_index(store.op))
            ):
                return Accumulation(load, combine, term, reduced)
        return None

    def _check_injective(
        self, store: affine.StoreOp, index: list[Ix], used: frozenset[int]
    ) -> None:
        shape = store.memref.type.get_shape()
        strides = _element_strides(shape)
        if all(_is_linear(ix) for ix in index):
            steps = sorted(
                (
                    abs(
                        sum(
                            s * _coefficient(ix, a)
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
        flat = self._flat_index(index, shape)
        if np.unique(flat).size != np.asarray(flat).size:
            raise Unsupported("store is not injective")

    # -- code generation ----------------------------------------------------

    @property
    def ndim(self) -> int:
        return sum(1 for a in self.axes if a.position >= 0)

    def _shape(self, deps: frozenset[int]) -> tuple[int, ...]:
        shape = [1] * self.ndim
        for a in deps:
            shape[self.axes[a].position] = self.axes[a].extent
        return tuple(shape)

    def _grid(self, var: Var) -> np.ndarray:
        axis = self.axes[var.id]
        shape = [1] * self.ndim
        shape[axis.position] = axis.extent
        return np.arange(axis.extent).reshape(shape)

    def _evaluate(self, ix: Ix) -> np.ndarray | int:
        return ix.evaluate({v: self._grid(v) for v in ix.variables()})

    def _flat_index(self, index: list[Ix], shape: Sequence[int]) -> np.ndarray:
        flat: np.ndarray | int = 0
        for ix, stride in zip(index, _element_strides(shape), strict=True):
            flat = flat + self._evaluate(ix) * stride
        return np.asarray(flat, dtype=np.int64)

    def _check_bounds(
        self, op: Operation, index: list[Ix], shape: Sequence[int]
    ) -> None:
        for ix, size in zip(index, shape, strict=True):
            lo, hi = _exact_bounds(ix, self)
            if lo < 0 or hi >= size:
                raise JITError(
                    f"'{op.name}' accesses index {lo}..{hi} of a dimension of "
                    f"size {size}"
                )

    def _view(self, op: affine.LoadOp | affine.StoreOp) -> str:
        """Source of a strided view (or the flat index array) of an access."""
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        shape = tuple(memref_type.get_shape())
        index = self.access_index(op)
        self._check_bounds(op, index, shape)
        base = self.env.name(op.memref)
        if not all(_is_linear(ix) for ix in index):
            flat = self.env.add_global(self._flat_index(index, shape), "i")
            return f"{base}.reshape(-1)[{flat}]"
        strides = _element_strides(shape)
        itemsize = numpy_dtype(memref_type.element_type).itemsize
        offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
        deps = self._ix_deps(index)
        view_strides = [0] * self.ndim
        for a in deps:
            step = sum(
                _coefficient(ix, a) * s for ix, s in zip(index, strides, strict=True)
            )
            view_strides[self.axes[a].position] = step * itemsize
        shape = self._shape(deps)
        return f"strided_view({base}, {offset}, {shape}, {tuple(view_strides)})"

    def _emit(self, accumulations: dict[affine.StoreOp, Accumulation]) -> None:
        self.env.namespace["strided_view"] = strided_view
        absorbed = {a.load for a in accumulations.values()}
        absorbed |= {a.combine for a in accumulations.values()}
        last_store = {
            self._memref(s.op.memref): s.order
            for s in self.statements
            if isinstance(s.op, affine.StoreOp)
        }
        initial = self._initial_stores(accumulations)
        for s in self.statements:
            op = s.op
            if isinstance(op, affine.LoadOp) and op not in absorbed:
                # A later store would change what a view shows: snapshot the
                # buffer now. Without one, the view (made on first use) is exact.
                if last_store.get(self._memref(op.memref), -1) > s.order:
                    name = self._new(op.result)
                    self.lines.append(f"{name} = np.array({self._view(op)})")
            elif isinstance(op, affine.StoreOp):
                if op in accumulations:
                    self._emit_accumulation(op, accumulations[op], initial.get(op))
                elif op not in initial.values():
                    self._emit_store(op)

    def _initial_stores(
        self, accumulations: dict[affine.StoreOp, Accumulation]
    ) -> dict[affine.StoreOp, affine.StoreOp]:
        """Accumulation -> the store just before it that sets its accumulator.

        In a fused group's nest the accumulator is initialised inside the
        nest, right before its reduction loops; `acc = init` then
        `acc = acc + r` becomes one pass, `acc = init + r`.
        """
        accesses: dict[SSAValue, list[Statement]] = {}
        for s in self.statements:
            if isinstance(s.op, affine.LoadOp | affine.StoreOp):
                accesses.setdefault(self._memref(s.op.memref), []).append(s)
        found: dict[affine.StoreOp, affine.StoreOp] = {}
        for store, acc in accumulations.items():
            group = accesses[self._memref(store.memref)]
            position = next(i for i, s in enumerate(group) if s.op is acc.load)
            if position == 0:
                continue
            init, update = group[position - 1], group[position]
            if (
                isinstance(init.op, affine.StoreOp)
                and init.op not in accumulations
                and _common_prefix(init.loops, update.loops) == init.loops
                and self._live_loops(init.loops)
                == self._live_loops(update.loops) - acc.reduced
            ):
                found[store] = init.op
        return found

    def _new(self, value: SSAValue) -> str:
        name = self.env.fresh("t")
        self._names[value] = name
        return name

    def value(self, value: SSAValue) -> str:
        """The Python name of a nest value, generating its code on first use."""
        if value in self._names:
            return self._names[value]
        if value not in self._inside:
            return self.env.name(value)
        if value in self.symbols:
            grid = self.env.add_global(self._evaluate(self.symbols[value]), "ix")
            self._names[value] = grid
            return grid
        op = value.owner
        assert isinstance(op, Operation)
        if isinstance(op, affine.LoadOp):
            view = self._view(op)
            name = self._new(value)
            self.lines.append(f"{name} = {view}")
            return name
        if isinstance(op, arith.ConstantOp):
            name = self.env.add_global(constant_value(op), "c")
            self._names[value] = name
            return name
        args = ", ".join(self.value(v) for v in op.operands)
        function = self.env.add_global(scalar_function(op), "f")
        name = self._new(value)
        self.lines.append(f"{name} = {function}({args})")
        return name

    def _emit_store(self, op: affine.StoreOp) -> None:
        value = self.value(op.value)
        view = self._view(op)
        target = f"{view}[...]" if view.startswith("strided_view") else view
        self.lines.append(f"{target} = {value}")

    def _factors(self, value: SSAValue, multiply: str) -> Iterator[SSAValue]:
        op = value.owner
        if value in self._inside and isinstance(op, Operation) and op.name == multiply:
            for operand in op.operands:
                yield from self._factors(operand, multiply)
        else:
            yield value

    def _emit_accumulation(
        self,
        op: affine.StoreOp,
        acc: Accumulation,
        initial: affine.StoreOp | None = None,
    ) -> None:
        """`acc[f] = acc[f] (+) r` (`initial` given: its value instead of acc[f])."""
        ufunc = REDUCTIONS[acc.combine.name]
        reduced = acc.reduced
        multiply = {"arith.addf": "arith.mulf", "arith.addi": "arith.muli"}.get(
            acc.combine.name
        )
        factors = list(self._factors(acc.term, multiply)) if multiply else [acc.term]
        covered = frozenset().union(*(self._live(f) for f in factors))
        if multiply and len(factors) > 1 and reduced & covered:
            result = self._einsum(factors, covered - reduced)
        else:
            term = self.value(acc.term)
            axes = tuple(sorted(self.axes[a].position for a in reduced & covered))
            result = self.env.fresh("r")
            ufunc_name = self.env.add_global(ufunc, "u")
            self.lines.append(
                f"{result} = {ufunc_name}.reduce({term}, axis={axes}, keepdims=True)"
            )
        missing = reduced - covered
        if missing:
            count = math.prod(self.axes[a].extent for a in missing)
            if ufunc is np.add:
                self.lines.append(f"{result} = {result} * {count}")
            elif ufunc is np.multiply:
                self.lines.append(f"{result} = {result} ** {count}")
        view = self._view(op)
        ufunc_name = self.env.add_global(ufunc, "u")
        start = None if initial is None else self.value(initial.value)
        if view.startswith("strided_view"):
            target = self.env.fresh("w")
            self.lines.append(f"{target} = {view}")
            self.lines.append(
                f"{ufunc_name}({start or target}, {result}, out={target})"
            )
        else:
            self.lines.append(f"{view} = {ufunc_name}({start or view}, {result})")

    def _einsum(self, factors: list[SSAValue], output: frozenset[int]) -> str:
        """The product of the factors (each on its own axes) summed onto `output`.

        Two factors are one `contract` (a BLAS matmul); more go to `np.einsum`.
        """
        operands: list[str] = []
        dummies: list[Any] = []
        for factor in factors:
            name = self.value(factor)
            axes = sorted(self._live(factor), key=lambda a: self.axes[a].position)
            shape = tuple(self.axes[a].extent for a in axes)
            operands.append(f"np.reshape({name}, {shape}), {[*axes]}")
            dummies += [
                np.broadcast_to(np.zeros((), numpy_dtype(factor.type)), shape),
                axes,
            ]
        out_axes = sorted(output, key=lambda a: self.axes[a].position)
        result = self.env.fresh("r")
        if len(factors) == 2:
            self.env.namespace["contract"] = contract
            call = f"contract({', '.join(operands)}, {out_axes})"
        else:
            path = np.einsum_path(*dummies, out_axes, optimize="greedy")[0]
            path_name = self.env.add_global(path, "p")
            call = f"np.einsum({', '.join(operands)}, {out_axes}, optimize={path_name})"
        self.lines.append(f"{result} = {call}.reshape({self._shape(output)})")
        return result


def _common_prefix(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    common = []
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common.append(x)
    return tuple(common)


def _coefficient(ix: Ix, axis: int) -> int:
    return sum(c for atom, c in ix.terms if isinstance(atom, Var) and atom.id == axis)


def _element_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def _exact_bounds(ix: Ix, vectoriser: NestVectoriser) -> tuple[int, int]:
    """Exact min/max of an index over the grid (evaluated when non-linear)."""
    if _is_linear(ix):
        return ix.bounds()
    values = np.asarray(vectoriser._evaluate(ix))
    return int(values.min()), int(values.max())
