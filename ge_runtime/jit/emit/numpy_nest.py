"""The JIT's NumPy emitter: an affine loop nest becomes a few NumPy calls.

Every loop of a nest is an axis of one iteration grid. Every SSA value in the
nest is an array over the axes it depends on (size 1 on the others), so
values computed per channel stay channel-sized and broadcast like NumPy. The
nest is run statement by statement over the whole grid, which is legal when
(checked by the loop analysis, `analysis.loop_nest`; else the scalar path
is used):

- accesses are affine maps of the loop variables with constant loop bounds;
- every buffer the nest writes is accessed at one index function `f` only,
  injective over the loops it uses (`P`), and two accesses sharing a loop
  outside `P` are the load and store of one accumulation;
- a store repeated over loops outside `P` (the reduction loops `R`) is an
  accumulation `acc[f] = acc[f] (+|*|max|min) x`.

Loads are zero-copy views: `as_strided` when the index is linear in the
loop variables (`x[n, c1, ho * 2 + kh, wo * 2 + kw, c0]` is a sliding-window
view), index arrays precomputed at compile time when it involves
`floordiv`/`mod`. Accumulations (`numpy_accumulation`) of products become
`np.einsum` over the operands' own axes (a convolution is one BLAS
contraction of a window view and the weights); other accumulations are
`ufunc.reduce` over `R`. Stores assign into strided views (or scatter
through index arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith, cf, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    Accumulation,
    LoopNest,
    Statement,
    axis_coefficient,
    common_prefix,
    element_strides,
    is_linear,
)
from ge_runtime.jit.emit.numpy_accumulation import Accumulations
from ge_runtime.jit.emit.relayouts import Merge
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import (
    ELEMENTWISE,
    constant_value,
    numpy_dtype,
    scalar_function,
)
from ge_runtime.jit.runtime import (
    copy_into,
    merge_dims,
    strided_view,
)
from ge_runtime.jit.schedule.contraction import Contraction
from passes.lowering.index import Div, Ix, Mod

PRODUCT = "product"
"""The middle of a relayout cache key for a GEMM product laid out into a
buffer (a merge's has the permutation there)."""


@dataclass
class NestVectoriser(Accumulations):
    """Turns one top-level `affine.for` nest into Python source over arrays."""

    root: affine.ForOp
    env: CodeEnv
    nest: LoopNest = field(init=False)
    """The nest's analysis (made by `compile`)."""
    lines: list[str] = field(default_factory=list)
    _names: dict[SSAValue, str] = field(default_factory=dict)
    _merged: dict[tuple[SSAValue, tuple[int, ...]], str] = field(default_factory=dict)
    _copy_back: list[str] = field(default_factory=list)
    _made: list[Merge] = field(default_factory=list)
    _views: dict[Operation, tuple[int, list[int]]] = field(default_factory=dict)
    """Access -> element offset and byte strides (by grid position) of its
    strided view of the buffer itself (not of a merged copy)."""
    _slots: dict[str, tuple[int | None, np.dtype]] = field(default_factory=dict)
    """GEMM product buffer -> its scratch slot (None: not in the scratch), dtype."""
    _forward_product: dict[affine.StoreOp, str] = field(default_factory=dict)
    """Epilogue store -> the GEMM product buffer it copies (`_forwarded`)."""
    """The merged copies this nest reads (made or reused: `relayouts`)."""
    _products: dict[str, tuple[str, Contraction, list[int]]] = field(
        default_factory=dict
    )
    """Result name of a GEMM -> its product buffer, plan and output axes."""
    _forwarded: dict[affine.StoreOp, tuple[str, list[int], tuple[int, ...]]] = field(
        default_factory=dict
    )
    """Epilogue store -> the GEMM product (in its order) that feeds it."""

    # -- the nest as NumPy calls ------------------------------------------

    def compile(self, indent: str) -> list[str]:
        """Source for the whole nest, or `Unsupported` if it is not vectorisable."""
        self.env.begin_nest()
        self.nest = LoopNest(self.root, self.env.constants, self.env.root)
        self.nest.drop_empty()
        self.nest.analyse_values()
        accumulations = self.nest.check_dependences()
        self._emit(accumulations)
        if self.env.relayouts.enabled:
            self.env.relayouts.pending = [self._checked(m) for m in self._made]
        return [indent + line for line in self.lines] or [f"{indent}pass"]

    def _checked(self, merge: Merge) -> Merge:
        """`merge`, stale if the nest stored to its buffer other than
        through it, or through it with no copy back."""
        root, perm, _ = merge.key
        if perm == PRODUCT:  # checked when recorded (`_hold_product`)
            return merge
        through = self._stores_through(root)
        copied_back = any(merge.name in line for line in self._copy_back)
        merge.stale = bool(through - {perm}) or (bool(through) and not copied_back)
        return merge

    def _stores_through(self, root: SSAValue) -> set[tuple[int, ...] | None]:
        """How the nest stores to `root`: the permutations of the merged
        copies it stores through (None: the buffer itself)."""
        through: set[tuple[int, ...] | None] = set()
        for s in self.nest.statements:
            if (
                not isinstance(s.op, affine.StoreOp)
                or self.nest.buffer(s.op.memref) != root
            ):
                continue
            index = self.nest.access_index(s.op)
            merged = (
                None
                if all(is_linear(ix) for ix in index)
                else merge_split_dims(index, s.op.memref.type.get_shape())
            )
            through.add(None if merged is None else merged.perm)
        return through

    # -- code generation ----------------------------------------------------

    def _view(self, op: affine.LoadOp | affine.StoreOp) -> str:
        """Source of a strided view (or the flat index array) of an access."""
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        shape = tuple(memref_type.get_shape())
        index = self.nest.access_index(op)
        self.nest.check_bounds(op, index, shape)
        base = self.env.name(op.memref)
        if not all(is_linear(ix) for ix in index):
            merged = merge_split_dims(index, shape)
            if merged is None:
                flat = self.env.add_global(self.nest.flat_index(index, shape), "i")
                return f"{base}.reshape(-1)[{flat}]"
            index, shape = merged.index, merged.shape
            base = self._merged_buffer(op, merged)
        strides = element_strides(shape)
        itemsize = numpy_dtype(memref_type.element_type).itemsize
        offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
        deps = self.nest.ix_deps(index)
        view_strides = [0] * self.nest.ndim
        for a in deps:
            step = sum(
                axis_coefficient(ix, a) * s
                for ix, s in zip(index, strides, strict=True)
            )
            view_strides[self.nest.axes[a].position] = step * itemsize
        shape = self.nest.shape(deps)
        if base == self.env.name(op.memref):
            self._views[op] = (offset, view_strides)
        return f"strided_view({base}, {offset}, {shape}, {tuple(view_strides)})"

    def _merged_buffer(self, op: affine.LoadOp | affine.StoreOp, merged: Merged) -> str:
        """The name of the buffer of `op` relaid out with its split dims
        merged (`merge_split_dims`), copied on the nest's first access; a
        buffer the nest writes is copied back after its last statement."""
        root = self.nest.buffer(op.memref)
        key = (root, merged.perm)
        if key in self._merged:
            return self._merged[key]
        base = self.env.name(op.memref)
        name = self.env.fresh("m")
        dtype = numpy_dtype(op.memref.type)
        permuted = tuple(op.memref.type.get_shape()[d] for d in merged.perm)
        self.env.namespace["merge_dims"] = merge_dims
        moved = [d for d in merged.perm if op.memref.type.get_shape()[d] != 1]
        relayouts = self.env.relayouts
        cache_key = (root, merged.perm, merged.shape)
        if root in self.env.invariant:
            self.lines.append(
                f"{name} = merge_dims({base}, {merged.perm}, {merged.shape})"
            )
        elif (
            valid := relayouts.lookup(cache_key)
        ) is not None and self._stores_through(root) <= {merged.perm}:
            # the same merge of the same bytes is still held (`relayouts`)
            if valid.slot is not None:
                self.env.keep(valid.slot)
            relayouts.reused += 1
            self.lines.append(f"{name} = {valid.name}")
            self._made.append(Merge(cache_key, name, valid.slot))
        else:
            scratch = self.env.scratch(permuted, dtype)
            slot = None if self.env.poison else len(self.env.workspace_specs) - 1
            if slot is not None and moved != sorted(moved):
                # always a copy: the merged buffer is a view of the scratch
                # (made once per thread, `hoist_views`), filled per call
                self.env.namespace["copy_into"] = copy_into
                self.lines += [
                    f"{name} = {scratch}.reshape({merged.shape})",
                    f"copy_into({scratch}, {base}.transpose({merged.perm}))",
                ]
            else:
                self.lines.append(
                    f"{name} = merge_dims({base}, {merged.perm}, {merged.shape}, "
                    f"{scratch})"
                )
            self._made.append(Merge(cache_key, name, slot))
        self._merged[key] = name
        if moved != sorted(moved) and any(  # a copy, not a view: write it back
            isinstance(s.op, affine.StoreOp) and self.nest.buffer(s.op.memref) == root
            for s in self.nest.statements
        ):
            self.env.namespace["copy_into"] = copy_into
            self._copy_back.append(
                f"copy_into({base}.transpose({merged.perm}), "
                f"{name}.reshape({permuted}))"
            )
        return name

    def _emit(self, accumulations: dict[affine.StoreOp, Accumulation]) -> None:
        self._emit_statements(accumulations)
        self.lines += self._copy_back

    def _emit_statements(
        self, accumulations: dict[affine.StoreOp, Accumulation]
    ) -> None:
        self.env.namespace["strided_view"] = strided_view
        absorbed = {a.load for a in accumulations.values()}
        absorbed |= {a.combine for a in accumulations.values()}
        last_store = {
            self.nest.buffer(s.op.memref): s.order
            for s in self.nest.statements
            if isinstance(s.op, affine.StoreOp)
        }
        initial = self._initial_stores(accumulations)
        for s in self.nest.statements:
            op = s.op
            if isinstance(op, affine.LoadOp) and op not in absorbed:
                # A later store would change what a view shows: snapshot the
                # buffer now. Without one, the view (made on first use) is exact.
                if last_store.get(self.nest.buffer(op.memref), -1) > s.order:
                    name = self._new(op.result)
                    self.lines.append(f"{name} = np.array({self._view(op)})")
            elif isinstance(op, cf.AssertOp):
                holds = f"np.all({self.value(op.arg)})"
                self.lines += self.env.assertion(op, holds, "")
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
        for s in self.nest.statements:
            if isinstance(s.op, affine.LoadOp | affine.StoreOp):
                accesses.setdefault(self.nest.buffer(s.op.memref), []).append(s)
        found: dict[affine.StoreOp, affine.StoreOp] = {}
        for store, acc in accumulations.items():
            group = accesses[self.nest.buffer(store.memref)]
            position = next(i for i, s in enumerate(group) if s.op is acc.load)
            if position == 0:
                continue
            init, update = group[position - 1], group[position]
            if (
                isinstance(init.op, affine.StoreOp)
                and init.op not in accumulations
                and common_prefix(init.loops, update.loops) == init.loops
                and self.nest.live_loops(init.loops)
                == self.nest.live_loops(update.loops) - acc.reduced
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
        if value not in self.nest.inside:
            return self.env.name(value)
        if value in self.nest.symbols:
            grid = self.env.add_global(
                self.nest.evaluate(self.nest.symbols[value]), "ix"
            )
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
        if isinstance(op, memref.LoadOp):  # a gather through index arrays
            index = ", ".join(self.value(v) for v in op.indices)
            name = self._new(value)
            self.lines.append(f"{name} = {self.env.name(op.memref)}[{index}]")
            return name
        args = ", ".join(self.value(v) for v in op.operands)
        function = self.env.add_global(scalar_function(op), "f")
        name = self._new(value)
        self.lines.append(f"{name} = {function}({args})")
        return name

    def _layout(self, access: Operation, axes: list[int], perm: Sequence[int]) -> Any:
        """Where each element of the access's view, its live `axes` (by
        position) permuted by `perm`, lies in its buffer: the cache key of
        a GEMM product laid out there (None: not a plain view)."""
        if access not in self._views:
            return None
        offset, strides = self._views[access]
        dims = [
            (self.nest.axes[a].extent, strides[self.nest.axes[a].position])
            for a in axes
        ]
        buffer = access.memref  # type: ignore[attr-defined]
        return (buffer, PRODUCT, canonical_layout(offset, [dims[i] for i in perm]))

    def _emit_store(self, op: affine.StoreOp) -> None:
        if op in self._forwarded:
            self._emit_forwarded(op, self._chain(op))
            return
        view = self._view(op)
        chain = self._chain(op)
        if chain and view.startswith("strided_view"):
            # The elementwise ops computing the value run in place in the
            # target: one pass per op, no temporaries.
            target = self.env.fresh("w")
            self.lines.append(f"{target} = {view}")
            for position, member in enumerate(chain):
                args = [self.value(v) for v in member.operands[1:]]
                first = target if position else self.value(member.operands[0])
                function = self.env.add_global(scalar_function(member), "f")
                self.lines.append(
                    f"{function}({', '.join([first, *args])}, out={target})"
                )
            return
        value = self.value(op.value)
        target = f"{view}[...]" if view.startswith("strided_view") else view
        self.lines.append(f"{target} = {value}")

    def _chain(self, store: affine.StoreOp) -> list[Operation]:
        """The ufuncs that can compute the stored value in place in its target,
        first first: each the only use of its result, of the target's shape
        and dtype, the next one's first operand."""
        shape = self.nest.shape(self.nest.ix_deps(self.nest.access_index(store)))
        dtype = numpy_dtype(store.memref.type)
        chain: list[Operation] = []
        value = store.value
        while value in self.nest.inside and value not in self._names:
            op = value.owner
            if (
                not isinstance(op, Operation)
                or not isinstance(ELEMENTWISE.get(op.name), np.ufunc)
                or not value.has_one_use()
                or self.nest.shape(self.nest.live(value)) != shape
                or numpy_dtype(value.type) != dtype
            ):
                break
            chain.append(op)
            value = op.operands[0]
        return chain[::-1]

    def _invariant(self, value: SSAValue) -> bool:
        """Whether `value` is the same on every call (read from weights only)."""
        if value not in self.nest.inside:
            return value in self.env.invariant or value in self.env.constants
        if value in self.nest.symbols:
            return True
        op = value.owner
        if isinstance(op, affine.LoadOp):
            return self.env.root(op.memref) in self.env.invariant
        if isinstance(op, arith.ConstantOp):
            return True
        return isinstance(op, Operation) and all(
            self._invariant(v) for v in op.operands
        )


@dataclass(frozen=True)
class Merged:
    """An access with split dims merged: `index` into the buffer transposed
    by `perm` and reshaped to `shape`."""

    index: list[Ix]
    shape: tuple[int, ...]
    perm: tuple[int, ...]


def canonical_layout(offset: int, dims: Sequence[tuple[int, int]]) -> tuple:
    """`(offset, ((extent, stride), ...))` of a strided view in C order, with
    extent-1 dims dropped and dims one stride walks merged: two views with
    the same key see the same elements in the same order."""
    merged: list[tuple[int, int]] = []
    for extent, stride in dims:
        if extent == 1:
            continue
        if merged and merged[-1][1] == stride * extent:
            outer, _ = merged.pop()
            merged.append((outer * extent, stride))
        else:
            merged.append((extent, stride))
    return (offset, tuple(merged))


def merge_split_dims(index: Sequence[Ix], shape: Sequence[int]) -> Merged | None:
    """Make an access linear by merging the two dims a blocked layout splits.

    A dim `a` indexed `q + e floordiv k` (`q`, `e` linear) and a dim `b` of
    size `k` indexed `e mod k` are one dim of size `shape[a] * k` indexed
    `q * k + e` once `a` is moved right before `b`: an NC1HWC0 buffer seen as
    NHWC, where a channel range crossing C0 blocks is a slice. None if the
    access has no such pair or stays non-linear.
    """
    for b, ix_b in enumerate(index):
        if ix_b.const or len(ix_b.terms) != 1:
            continue
        ((mod, coefficient),) = ix_b.terms
        if not isinstance(mod, Mod) or coefficient != 1 or shape[b] != mod.k:
            continue
        for a, ix_a in enumerate(index):
            div = Div(mod.arg, mod.k)
            if a == b or dict(ix_a.terms).get(div) != 1:
                continue
            quotient = Ix._make(
                {atom: c for atom, c in ix_a.terms if atom != div}, ix_a.const
            )
            perm = [d for d in range(len(shape)) if d != a]
            perm.insert(perm.index(b), a)
            merged_index, merged_shape = [], []
            for d in perm:
                if d == a:
                    continue
                if d == b:
                    merged_index.append(quotient * mod.k + mod.arg)
                    merged_shape.append(shape[a] * shape[b])
                else:
                    merged_index.append(index[d])
                    merged_shape.append(shape[d])
            if all(is_linear(ix) for ix in merged_index):
                return Merged(merged_index, tuple(merged_shape), tuple(perm))
    return None
