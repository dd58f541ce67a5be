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
from xdsl.dialects import affine, arith, cf, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    Accumulation,
    LoopNest,
    Statement,
    axis_coefficient,
    canonical_index,
    common_prefix,
    element_strides,
    is_linear,
)
from ge_runtime.jit.emit.relayouts import Merge
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import (
    ELEMENTWISE,
    REDUCTIONS,
    SUMS,
    UNSIGNED_COMBINERS,
    constant_value,
    numpy_dtype,
    scalar_function,
    unsigned_array,
)
from ge_runtime.jit.runtime import (
    add_into,
    copy_into,
    merge_dims,
    pack,
    strided_view,
)
from passes.lowering.index import Div, Ix, Mod

UNROLLED = (np.maximum, np.minimum, np.fmax, np.fmin)
"""Exact reductions a small window applies tap by tap."""
MAX_UNROLLED_TAPS = 64
MAX_UNROLLED_COLUMNS = 1
"""A contraction whose GEMM would have this few columns multiplies and adds
tap by tap instead (no packing of the operands)."""


PRODUCT = "product"
"""The middle of a relayout cache key for a GEMM product laid out into a
buffer (a merge's has the permutation there)."""


@dataclass(frozen=True)
class Contraction:
    """A product of two operands summed over their shared axes not kept, as
    one BLAS call: `left (batch, M, K) @ right (batch, K, N)`.

    Planned at compile time from the operands' axes (`plan_contraction`);
    `first` says which operand is on the left (OpenBLAS is far faster with
    the larger free dimension there).
    """

    first: int
    left_perm: tuple[int, ...]
    left_shape: tuple[int, ...]
    right_perm: tuple[int, ...]
    right_shape: tuple[int, ...]
    product_shape: tuple[int, ...]
    order_shape: tuple[int, ...]
    out_perm: tuple[int, ...]


def plan_contraction(
    a_axes: Sequence[int],
    b_axes: Sequence[int],
    sizes: dict[int, int],
    out_axes: Sequence[int],
) -> Contraction:
    """How to compute `einsum(a[a_axes], b[b_axes] -> out_axes)` as one GEMM
    (every axis of an operand is in the other operand or in `out_axes`)."""
    kept = set(out_axes)
    shared = [x for x in a_axes if x in b_axes]
    batch = [x for x in shared if x in kept]
    summed = [x for x in shared if x not in kept]
    a_free = [x for x in a_axes if x not in shared]
    b_free = [x for x in b_axes if x not in shared]

    def count(axes: list[int]) -> int:
        return math.prod(sizes[x] for x in axes)

    first = 1 if count(a_free) < count(b_free) else 0
    (left_axes, left_free), (right_axes, right_free) = (
        ((a_axes, a_free), (b_axes, b_free))
        if first == 0
        else ((b_axes, b_free), (a_axes, a_free))
    )
    left_order = batch + left_free + summed
    right_order = batch + summed + right_free
    rows, inner, columns = count(left_free), count(summed), count(right_free)
    if batch:
        left_shape = (count(batch), rows, inner)
        right_shape = (count(batch), inner, columns)
        product_shape = (count(batch), rows, columns)
    else:
        left_shape, right_shape = (rows, inner), (inner, columns)
        product_shape = (rows, columns)
    order = batch + left_free + right_free
    return Contraction(
        first,
        tuple(list(left_axes).index(x) for x in left_order),
        left_shape,
        tuple(list(right_axes).index(x) for x in right_order),
        right_shape,
        product_shape,
        tuple(sizes[x] for x in order),
        tuple(order.index(x) for x in out_axes),
    )


@dataclass
class NestVectoriser:
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
    """The merged copies this nest reads (made or reused: `jit_relayouts`)."""
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
            # the same merge of the same bytes is still held (`jit_relayouts`)
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

    def _forwarded_epilogue(
        self,
        store: affine.StoreOp,
        acc: Accumulation,
        out_axes: list[int],
    ) -> affine.StoreOp | None:
        """The store of an elementwise epilogue the accumulated GEMM product
        can feed directly, skipping the accumulator: the accumulator is used
        by this nest only (else freed), read once more after the
        accumulation, at its index, by the first op of the chain of that
        store, whose other operands live on the output axes."""
        root = self.nest.buffer(store.memref)
        statements = {s.op for s in self.nest.statements}
        if any(
            use.operation not in statements
            and not isinstance(use.operation, memref.DeallocOp)
            for use in root.uses
        ):
            return None
        index = canonical_index(self.nest.access_index(store))
        reads = [
            s.op
            for s in self.nest.statements
            if isinstance(s.op, affine.LoadOp)
            and self.nest.buffer(s.op.memref) == root
            and s.op is not acc.load
        ]
        if (
            len(reads) != 1
            or canonical_index(self.nest.access_index(reads[0])) != index
        ):
            return None
        (read,) = reads
        if not read.result.has_one_use():
            return None
        user = next(iter(read.result.uses)).operation
        for target in self.nest.statements:
            if not isinstance(target.op, affine.StoreOp) or target.op is store:
                continue
            chain = self._chain(target.op)
            if not chain or chain[0] is not user or chain[0].operands[0] != read.result:
                continue
            if frozenset(
                self.nest.ix_deps(self.nest.access_index(target.op))
            ) != frozenset(out_axes) or numpy_dtype(
                target.op.memref.type
            ) != numpy_dtype(read.result.type):
                return None
            others = [v for member in chain for v in member.operands[1:]]
            if all(self.nest.live(v) <= set(out_axes) for v in others):
                return target.op
            return None
        return None

    def _emit_forwarded(self, op: affine.StoreOp, chain: list[Operation]) -> None:
        """An epilogue chain on the GEMM product in its own order, then one
        relayout into the store's target (see `_forwarded_epilogue`)."""
        ordered, out_axes, back = self._forwarded[op]
        out_shape = tuple(self.nest.axes[a].extent for a in out_axes)
        for member in chain:
            args = []
            for value in member.operands[1:]:
                deps = self.nest.live(value)
                shape = tuple(
                    self.nest.axes[a].extent if a in deps else 1 for a in out_axes
                )
                name = self.value(value)
                args.append(  # a value for every element: 0-d, not grid-shaped
                    f"np.reshape({name}, {shape}).transpose({back})"
                    if deps
                    else f"np.reshape({name}, ())"
                )
            function = self.env.add_global(scalar_function(member), "f")
            self.lines.append(
                f"{function}({', '.join([ordered, *args])}, out={ordered})"
            )
        self.env.namespace["copy_into"] = copy_into
        view = self._view(op)
        self.lines.append(
            f"copy_into(np.reshape({view}, {out_shape}).transpose({back}), {ordered})"
        )
        self._hold_product(op, out_axes, back)

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

    def _hold_product(
        self, op: affine.StoreOp, out_axes: list[int], back: tuple[int, ...]
    ) -> None:
        """Remember that the GEMM product `op` copied into its buffer holds
        that buffer's elements in its own order (valid while nothing else
        writes the buffer: `jit_relayouts`), if `op` is the nest's only store
        to the buffer and of the product's dtype."""
        product = self._forward_product.get(op)
        root = self.nest.buffer(op.memref)
        key = self._layout(op, out_axes, back)
        if product is None or key is None or not self.env.relayouts.enabled:
            return
        stores = [
            s
            for s in self.nest.statements
            if isinstance(s.op, affine.StoreOp)
            and self.nest.buffer(s.op.memref) == root
        ]
        slot, dtype = self._slots[product]
        if len(stores) == 1 and dtype == numpy_dtype(op.memref.type):
            self._made.append(Merge(key, product, slot))

    def _held_product(self, factor: SSAValue, perm: Sequence[int]) -> str | None:
        """The GEMM product of an earlier nest that holds this operand packed
        (its view, transposed by `perm`, in C order), if still valid and the
        nest does not store to the operand's buffer."""
        load = factor.owner
        if not isinstance(load, affine.LoadOp) or factor not in self.nest.inside:
            return None
        root = self.nest.buffer(load.memref)
        if self._stores_through(root):
            return None
        key = self._layout(load, self._axes_of(factor), perm)
        valid = None if key is None else self.env.relayouts.lookup(key)
        if valid is None:
            return None
        if valid.slot is not None:
            self.env.keep(valid.slot)
        self.env.relayouts.reused += 1
        return valid.name

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

    def _factors(self, value: SSAValue, multiply: str) -> Iterator[SSAValue]:
        op = value.owner
        if (
            value in self.nest.inside
            and isinstance(op, Operation)
            and op.name == multiply
        ):
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
        multiply = SUMS.get(acc.combine.name)
        factors = list(self._factors(acc.term, multiply)) if multiply else [acc.term]
        covered = frozenset().union(*(self.nest.live(f) for f in factors))
        if multiply and len(factors) > 1 and reduced & covered:
            result = self._einsum(factors, covered - reduced)
        elif self._unrolled(op, acc, initial, covered):
            return
        else:
            term = self._combined(acc, self.value(acc.term))
            axes = tuple(sorted(self.nest.axes[a].position for a in reduced & covered))
            result = self.env.fresh("r")
            ufunc_name = self.env.add_global(ufunc, "u")
            self.lines.append(
                f"{result} = {ufunc_name}.reduce({term}, axis={axes}, keepdims=True)"
            )
        missing = reduced - covered
        if missing:
            count = math.prod(self.nest.axes[a].extent for a in missing)
            if ufunc is np.add:
                self.lines.append(f"{result} = {result} * {count}")
            elif ufunc is np.multiply:
                self.lines.append(f"{result} = {result} ** {count}")
        view = self._view(op)
        ufunc_name = self.env.add_global(ufunc, "u")
        start = (
            None if initial is None else self._combined(acc, self.value(initial.value))
        )
        if view.startswith("strided_view"):
            target = self.env.fresh("w")
            self.lines.append(f"{target} = {self._combined(acc, view)}")
            product = self._products.get(result)
            if product is not None and ufunc is np.add and not missing:
                # add in the GEMM's own (contiguous) order, then one relayout
                name, plan, out_axes = product
                out_shape = tuple(self.nest.axes[a].extent for a in out_axes)
                back = tuple(int(i) for i in np.argsort(plan.out_perm))
                self.env.namespace["add_into"] = add_into
                deps = self.nest.live(initial.value) if initial else frozenset(out_axes)
                start_shape = tuple(
                    self.nest.axes[a].extent if a in deps else 1 for a in out_axes
                )
                first = f"np.reshape({start or target}, {start_shape})"
                ordered = f"{name}.reshape({plan.order_shape})"
                forward = self._forwarded_epilogue(op, acc, out_axes)
                if forward is not None:
                    # the accumulator is this nest's alone and only feeds an
                    # elementwise epilogue: run it in the product's order too
                    self.lines.append(
                        f"np.add({ordered}, {first}.transpose({back}), out={ordered})"
                    )
                    self._forwarded[forward] = (ordered, out_axes, back)
                    self._forward_product[forward] = name
                    return
                self.lines.append(
                    f"add_into({ordered}, {first}.transpose({back}), "
                    f"np.reshape({target}, {out_shape}).transpose({back}))"
                )
                return
            self.lines.append(
                f"{ufunc_name}({start or target}, {result}, out={target})"
            )
        elif acc.combine.name in UNSIGNED_COMBINERS:  # the result's bits, signless
            dtype = self.env.add_global(numpy_dtype(op.memref.type), "dt")
            first = start or self._combined(acc, view)
            self.lines.append(
                f"{view} = np.asarray({ufunc_name}({first}, {result})).view({dtype})"
            )
        else:
            self.lines.append(f"{view} = {ufunc_name}({start or view}, {result})")

    def _combined(self, acc: Accumulation, expression: str) -> str:
        """`expression` as the accumulation's combiner reads it: the bits of
        an integer read as unsigned for `maxui`/`minui` (`unsigned_array`)."""
        if acc.combine.name not in UNSIGNED_COMBINERS:
            return expression
        name = self.env.add_global(unsigned_array, "unsigned")
        return f"{name}({expression})"

    def _unrolled(
        self,
        op: affine.StoreOp,
        acc: Accumulation,
        initial: affine.StoreOp | None,
        covered: frozenset[int],
    ) -> bool:
        """A max/min over a small window (pooling) as one binary ufunc per
        tap, in place in the target; False if the accumulation is not one."""
        ufunc = REDUCTIONS[acc.combine.name]
        window = sorted(acc.reduced & covered, key=lambda a: self.nest.axes[a].position)
        taps = math.prod(self.nest.axes[a].extent for a in window)
        if ufunc not in UNROLLED or not window or taps > MAX_UNROLLED_TAPS:
            return False
        view = self._view(op)
        if not view.startswith("strided_view"):
            return False
        term = self._combined(acc, self.value(acc.term))
        start = (
            None if initial is None else self._combined(acc, self.value(initial.value))
        )
        target = self.env.fresh("w")
        ufunc_name = self.env.add_global(ufunc, "u")
        self.lines.append(f"{target} = {self._combined(acc, view)}")
        unsigned = acc.combine.name in UNSIGNED_COMBINERS  # taps read raw there
        if not unsigned and self._separable(
            acc.term, window, op, ufunc_name, start or target, target
        ):
            return True
        for count, tap in enumerate(
            np.ndindex(*(self.nest.axes[a].extent for a in window))
        ):
            index = [":"] * self.nest.ndim
            for axis, at in zip(window, tap, strict=True):
                index[self.nest.axes[axis].position] = f"{at}:{at + 1}"
            first = (start or target) if count == 0 else target
            self.lines.append(
                f"{ufunc_name}({first}, {term}[{', '.join(index)}], out={target})"
            )
        return True

    def _separable(
        self,
        term: SSAValue,
        window: list[int],
        store: affine.StoreOp,
        ufunc: str,
        first: str,
        target: str,
    ) -> bool:
        """A 2-d max/min window over a strided view (pooling) in two passes:
        along its inner window axis into a buffer of whole input rows, then
        along its outer one into the target (`x[h * s + i]` is row `h * s + i`
        of the buffer); 2 (k - 1) + 1 binary ufuncs for k x k taps instead of
        k * k. The taps are taken in the same order (rows, then within a
        row), so ties and NaNs resolve as one pass does. False (nothing
        emitted) unless each window axis walks the term's buffer at a stride
        an output axis's is a multiple of."""
        load = term.owner
        if (
            len(window) != 2
            or not isinstance(load, affine.LoadOp)
            or load not in self._views
        ):
            return False
        offset, strides = self._views[load]
        itemsize = numpy_dtype(term.type).itemsize
        deps = self.nest.live(term)
        outputs = self.nest.ix_deps(self.nest.access_index(store))
        pairs: list[tuple[int, int, int]] = []  # window axis, output axis, multiple
        for k in window:
            step = strides[self.nest.axes[k].position]
            candidates = [
                (strides[self.nest.axes[o].position] // step, o)
                for o in deps & outputs
                if o not in window
                and step > 0
                and strides[self.nest.axes[o].position] % step == 0
                and strides[self.nest.axes[o].position] > 0
                and all(o != p for _, p, _ in pairs)
            ]
            if k not in deps or k in outputs or not candidates:
                return False
            multiple, o = min(candidates)
            pairs.append((k, o, multiple))
        (outer, outer_out, outer_multiple), (inner, inner_out, _) = pairs
        shape = list(self.nest.shape(deps))
        p_outer, p_outer_out = (
            self.nest.axes[outer].position,
            self.nest.axes[outer_out].position,
        )
        p_inner = self.nest.axes[inner].position
        rows = (self.nest.axes[outer_out].extent - 1) * outer_multiple + self.nest.axes[
            outer
        ].extent
        if rows > 4 * self.nest.axes[outer_out].extent * self.nest.axes[outer].extent:
            return False
        base = self.env.name(load.memref)  # type: ignore[attr-defined]
        # pass 1: along the inner window axis, every input row the outer one needs
        row_shape = list(shape)
        row_shape[p_outer_out], row_shape[p_outer], row_shape[p_inner] = rows, 1, 1
        row_strides = list(strides)
        row_strides[p_outer_out] = strides[p_outer]
        row_strides[p_outer] = row_strides[p_inner] = 0
        buffer = self.env.fresh("s")
        dtype = numpy_dtype(term.type)
        self.lines.append(f"{buffer} = {self.env.scratch(tuple(row_shape), dtype)}")
        inner_step = strides[p_inner] // itemsize
        taps = [
            f"strided_view({base}, {offset + t * inner_step}, {tuple(row_shape)}, "
            f"{tuple(row_strides)})"
            for t in range(self.nest.axes[inner].extent)
        ]
        self.lines.append(f"{ufunc}({taps[0]}, {taps[1]}, out={buffer})")
        self.lines += [f"{ufunc}({buffer}, {tap}, out={buffer})" for tap in taps[2:]]
        # pass 2: along the outer window axis, from the rows into the target
        row_element_strides = element_strides(row_shape)
        out_shape = list(shape)
        out_shape[p_outer] = out_shape[p_inner] = 1
        out_strides = [e * itemsize for e in row_element_strides]
        out_strides[p_outer_out] *= outer_multiple
        out_strides[p_outer] = out_strides[p_inner] = 0
        for t in range(self.nest.axes[outer].extent):
            tap = (
                f"strided_view({buffer}, {t * row_element_strides[p_outer_out]}, "
                f"{tuple(out_shape)}, {tuple(out_strides)})"
            )
            self.lines.append(
                f"{ufunc}({first if t == 0 else target}, {tap}, out={target})"
            )
        return True

    def _einsum(self, factors: list[SSAValue], output: frozenset[int]) -> str:
        """The product of the factors (each on its own axes) summed onto `output`.

        Two factors are one GEMM (`_contract`); more go to `np.einsum`.
        """
        out_axes = sorted(output, key=lambda a: self.nest.axes[a].position)
        if len(factors) == 2:
            return self._contract(factors, out_axes)
        operands: list[str] = []
        dummies: list[Any] = []
        for factor in factors:
            name = self.value(factor)
            axes = self._axes_of(factor)
            shape = tuple(self.nest.axes[a].extent for a in axes)
            operands.append(f"np.reshape({name}, {shape}), {[*axes]}")
            dummies += [
                np.broadcast_to(np.zeros((), numpy_dtype(factor.type)), shape),
                axes,
            ]
        result = self.env.fresh("r")
        path = np.einsum_path(*dummies, out_axes, optimize="greedy")[0]
        path_name = self.env.add_global(path, "p")
        call = f"np.einsum({', '.join(operands)}, {out_axes}, optimize={path_name})"
        self.lines.append(f"{result} = {call}.reshape({self.nest.shape(output)})")
        return result

    def _axes_of(self, value: SSAValue) -> list[int]:
        return sorted(self.nest.live(value), key=lambda a: self.nest.axes[a].position)

    def _contract(self, factors: list[SSAValue], out_axes: list[int]) -> str:
        """Two factors as one BLAS product planned now (`plan_contraction`).

        Each operand is packed into the matrix BLAS reads (no copy when its
        view already is one; into this thread's scratch otherwise); an
        operand every call reads the same (a weight) is packed with no
        scratch, so `hoist_invariants` moves its packing out of the call.
        """
        sizes = {a: self.nest.axes[a].extent for a in range(len(self.nest.axes))}
        kept = set(out_axes)
        operands: list[tuple[str, list[int], SSAValue]] = []
        for factor, other in ((factors[0], factors[1]), (factors[1], factors[0])):
            axes = self._axes_of(factor)
            shape = tuple(sizes[a] for a in axes)
            code = f"np.reshape({self.value(factor)}, {shape})"
            drop = tuple(
                i for i, a in enumerate(axes) if a not in kept | self.nest.live(other)
            )
            if drop:
                code = f"{code}.sum(axis={drop})"
                axes = [a for i, a in enumerate(axes) if i not in drop]
            operands.append((code, axes, factor))
        plan = plan_contraction(operands[0][1], operands[1][1], sizes, out_axes)
        if (
            plan.right_shape[-1] <= MAX_UNROLLED_COLUMNS
            and plan.right_shape[-2] <= MAX_UNROLLED_TAPS
            and all(".sum(" not in code for code, _, _ in operands)
        ):
            return self._multiply_add(factors, out_axes)
        left, right = operands if plan.first == 0 else operands[::-1]
        dtype = np.result_type(numpy_dtype(left[2].type), numpy_dtype(right[2].type))
        self.env.namespace["pack"] = pack
        packed = []
        for (code, _, factor), perm, shape in (
            (left, plan.left_perm, plan.left_shape),
            (right, plan.right_perm, plan.right_shape),
        ):
            name = self.env.fresh("g")
            factor_dtype = numpy_dtype(factor.type)
            held = None if ".sum(" in code else self._held_product(factor, perm)
            if held is not None:
                self.lines.append(f"{name} = {held}.reshape({shape})")
                packed.append(name)
                continue
            scratch = ""
            if not self._invariant(factor):
                scratch = f", {self.env.fresh('s')}"
                self.lines.append(
                    f"{scratch[2:]} = {self.env.scratch(shape, factor_dtype)}"
                )
            self.lines.append(
                f"{name} = pack({code}.transpose({perm}), {shape}{scratch})"
            )
            packed.append(name)
        product = self.env.fresh("s")
        self.lines.append(f"{product} = {self.env.scratch(plan.product_shape, dtype)}")
        self._slots[product] = (
            None if self.env.poison else len(self.env.workspace_specs) - 1,
            dtype,
        )
        function = "np.matmul" if len(plan.product_shape) == 3 else "np.dot"
        result = self.env.fresh("r")
        self._products[result] = (product, plan, out_axes)
        self.lines.append(f"{function}({packed[0]}, {packed[1]}, out={product})")
        self.lines.append(
            f"{result} = {product}.reshape({plan.order_shape})"
            f".transpose({plan.out_perm}).reshape({self.nest.shape(frozenset(out_axes))})"
        )
        return result

    def _multiply_add(self, factors: list[SSAValue], out_axes: list[int]) -> str:
        """A product summed over a few taps into a narrow result (a depthwise
        convolution: per channel, a 3x3 window times 9 weights) as one
        multiply and add per tap, over the operands' views (no packing)."""
        taps = sorted(
            (self.nest.live(factors[0]) & self.nest.live(factors[1])) - set(out_axes),
            key=lambda a: self.nest.axes[a].position,
        )
        a, b = (self.value(f) for f in factors)
        dtype = np.result_type(*(numpy_dtype(f.type) for f in factors))
        shape = self.nest.shape(frozenset(out_axes))
        result, term = self.env.fresh("r"), self.env.fresh("s")
        self.lines.append(f"{result} = {self.env.scratch(shape, dtype)}")
        if len(taps) and math.prod(self.nest.axes[t].extent for t in taps) > 1:
            self.lines.append(f"{term} = {self.env.scratch(shape, dtype)}")
        for count, tap in enumerate(
            np.ndindex(*(self.nest.axes[t].extent for t in taps))
        ):
            index = [":"] * self.nest.ndim
            for axis, at in zip(taps, tap, strict=True):
                index[self.nest.axes[axis].position] = f"{at}:{at + 1}"
            where = f"[{', '.join(index)}]" if taps else ""
            into = result if count == 0 else term
            self.lines.append(f"np.multiply({a}{where}, {b}{where}, out={into})")
            if count:
                self.lines.append(f"np.add({result}, {term}, out={result})")
        return result

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
