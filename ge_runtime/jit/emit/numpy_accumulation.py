"""Accumulations as NumPy calls: `acc[f] = acc[f] (+) x` over reduction loops.

A sum of products becomes `np.einsum` or one BLAS call planned at compile
time (`schedule.contraction`: a convolution is a GEMM of a window view and
the packed weights), its elementwise epilogue forwarded into the GEMM's
output; a small window of an exact reduction (max, min) runs tap by tap,
a separable one axis by axis; any other accumulation is `ufunc.reduce`
over the reduction loops. A mixin of `numpy_nest.NestVectoriser`, whose
state (`nest`, `env`, `lines`) it writes into.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import affine, memref
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import (
    Accumulation,
    canonical_index,
    element_strides,
)
from ge_runtime.jit.emit.relayouts import Merge
from ge_runtime.jit.ops import (
    REDUCTIONS,
    SUMS,
    UNSIGNED_COMBINERS,
    numpy_dtype,
    scalar_function,
    unsigned_array,
)
from ge_runtime.jit.runtime import (
    add_into,
    copy_into,
    pack,
)
from ge_runtime.jit.schedule.contraction import plan_contraction

UNROLLED = (np.maximum, np.minimum, np.fmax, np.fmin)
"""Exact reductions a small window applies tap by tap."""
MAX_UNROLLED_TAPS = 64
MAX_UNROLLED_COLUMNS = 1
"""A contraction whose GEMM would have this few columns multiplies and adds
tap by tap instead (no packing of the operands)."""
"""A contraction whose GEMM would have this few columns multiplies and adds
tap by tap instead (no packing of the operands)."""


class Accumulations:
    """The accumulation statements of a `NestVectoriser`."""

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

    def _hold_product(
        self, op: affine.StoreOp, out_axes: list[int], back: tuple[int, ...]
    ) -> None:
        """Remember that the GEMM product `op` copied into its buffer holds
        that buffer's elements in its own order (valid while nothing else
        writes the buffer: `relayouts`), if `op` is the nest's only store
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
