"""Loop nests compiled to native code by numba: one call instead of many.

The vectoriser (`jit_vectorize`) runs a nest as NumPy calls over strided
views: a fill, a padding copy or an elementwise chain is a few calls, but a
depthwise convolution is two calls per tap, a pooling window one per tap,
and an access through a blocked layout's `floordiv`/`mod` a relayout copy.
When numba is importable, `NumbaNest` compiles such a nest as it is written
(the loops in their order, one element at a time) into one native function,
so it runs in one call without temporaries. Nests whose accumulation is a
real matrix product stay with the vectoriser, which hands them to BLAS.

What numba computes is what the vectoriser computes, bit for bit, for the
ops it takes: IEEE `+ - * /`, `sqrt`, comparisons, selects, float casts,
and max/min written as NumPy's (NaN propagates, the second operand on a tie,
so `max(0.0, -0.0)` is `-0.0`); transcendental functions, gathers and
float16 stay with NumPy. Only the order of a sum's terms may differ, as
between the vectoriser's reductions and the scalar path.

Kernels are shared by structure: every loop extent, index coefficient and
offset is a parameter (`P`), so the nests of all convolutions of one shape
of code reuse one function; each is a file under the code cache
(`jit_cache.cache_dir()/numba`) compiled with `cache=True`, so a later
process loads the machine code instead of compiling it.

```python
for t0 in range(P[0]):                  # generated for a ReLU nest
    for t1 in range(P[1]):
        x0 = a0[t0 * P[2] + P[3], t1]
        a1[t0, t1] = x0 if (x0 > c0 or x0 != x0) else c0
```

Only nests with a reduction (a window, a sum: what NumPy runs tap by
tap) become kernels, and nests the vectoriser cannot take. It is off
unless `GE_XDSL_NUMBA=1`: numba and LLVM add about 120 MB to a process
and a second to its start, which for a small model is more than the
model (MobileNetV2: 1.7x faster, peak RSS 205 MB instead of 85 MB).
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Operation, OpResult, SSAValue

from ge_runtime import jit_cache
from ge_runtime.jit_ops import JITError, constant_value, numpy_dtype
from ge_runtime.jit_runtime import strided_view
from ge_runtime.jit_scalar import CodeEnv
from ge_runtime.jit_vectorize import (
    NestVectoriser,
    Unsupported,
    axis_coefficient,
    element_strides,
)
from passes.lowering.index import Div, Ix, Mod, Var

NUMBA_TYPES = frozenset(
    np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int32, np.int64, bool)
)
"""Element types numba computes exactly as NumPy does."""

BINARY = {
    "arith.addf": "({0} + {1})",
    "arith.addi": "({0} + {1})",
    "arith.subf": "({0} - {1})",
    "arith.subi": "({0} - {1})",
    "arith.mulf": "({0} * {1})",
    "arith.muli": "({0} * {1})",
    "arith.divf": "({0} / {1})",
    "arith.maximumf": "({0} if ({0} > {1} or {0} != {0}) else {1})",
    "arith.minimumf": "({0} if ({0} < {1} or {0} != {0}) else {1})",
    "arith.maxnumf": "({0} if ({0} > {1} or {1} != {1}) else {1})",
    "arith.minnumf": "({0} if ({0} < {1} or {1} != {1}) else {1})",
    "arith.maxsi": "({0} if {0} > {1} else {1})",
    "arith.minsi": "({0} if {0} < {1} else {1})",
    "arith.andi": "({0} & {1})",
    "arith.ori": "({0} | {1})",
    "arith.xori": "({0} ^ {1})",
}
"""Binary ops as Python expressions, NumPy's semantics (see the module doc)."""

UNARY = {
    "arith.negf": "(-{0})",
    "math.absf": "abs({0})",
    "math.sqrt": "np.sqrt({0})",
}

CMPF = {
    0: "False",
    1: "({0} == {1})",
    2: "({0} > {1})",
    3: "({0} >= {1})",
    4: "({0} < {1})",
    5: "({0} <= {1})",
    6: "({0} < {1} or {0} > {1})",
    7: "({0} == {0} and {1} == {1})",
    8: "(not ({0} < {1} or {0} > {1}))",
    9: "(not ({0} <= {1}))",
    10: "(not ({0} < {1}))",
    11: "(not ({0} >= {1}))",
    12: "(not ({0} > {1}))",
    13: "({0} != {1})",
    14: "({0} != {0} or {1} != {1})",
    15: "True",
}
"""arith.cmpf predicates (ordered ones are false on NaN, unordered true)."""

CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}
"""Signed (and equality) arith.cmpi predicates."""

FLOAT_CASTS = frozenset({"arith.extf", "arith.truncf", "arith.sitofp"})
"""Casts numba rounds as NumPy's `astype` does."""

Element = tuple[SSAValue, tuple[Ix, ...]]
"""A buffer element: the memref and its index expressions."""

UNROLLED = 8
"""Loops at most this long (a window's taps) get a literal extent: LLVM
unrolls them, and vectorises the loop around them (a depthwise convolution
runs 3-4x faster than with the extent as a parameter)."""

_LOCK = threading.Lock()


@cache
def installed() -> bool:
    """Whether numba can be imported."""
    return importlib.util.find_spec("numba") is not None


def enabled() -> bool:
    """Whether nests are compiled by numba by default: asked for with
    `GE_XDSL_NUMBA=1`, and installed."""
    return os.environ.get("GE_XDSL_NUMBA") == "1" and installed()


def status() -> str:
    """How loop nests run in this process by default, for a user to read."""
    if enabled():
        return "numba kernels for nests with a reduction, NumPy calls elsewhere"
    if os.environ.get("GE_XDSL_NUMBA") == "1":
        return "NumPy calls only (GE_XDSL_NUMBA=1, but numba is not installed)"
    return "NumPy calls only (GE_XDSL_NUMBA=1 adds numba kernels)"


_KERNELS: dict[str, Callable[..., None]] = {}
_SOURCES: dict[int, str] = {}
"""id of a kernel -> its source (how the code cache saves kernels)."""


def reduce_kernel(obj: Any) -> tuple[Any, ...] | None:
    """How to pickle `obj` if it is a kernel: by its source (loading it
    again finds numba's machine-code cache); None for anything else."""
    source = _SOURCES.get(id(obj))
    return None if source is None else (kernel, (source,))


def kernel_directory() -> Path:
    """Where kernel files (and numba's cache beside them) live."""
    directory = jit_cache.cache_dir()
    if directory is None:  # private too: numba's cache files are pickles
        directory = jit_cache.private_folder(
            Path(tempfile.gettempdir()) / f"ge-xdsl-numba-{os.getuid()}"
        )
    return directory / "numba"


def kernel(source: str) -> Callable[..., None]:
    """The numba function of a kernel's source, compiled (or loaded) once."""
    with _LOCK:
        if source in _KERNELS:
            return _KERNELS[source]
        digest = hashlib.sha256(source.encode()).hexdigest()[:20]
        directory = kernel_directory()
        path = directory / f"k{digest}.py"
        if not path.is_file() or path.read_text() != source:
            directory.mkdir(parents=True, exist_ok=True)
            handle, scratch = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(handle, "w") as stream:
                stream.write(source)
            os.replace(scratch, path)
        name = f"ge_xdsl_numba_k{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _KERNELS[source] = module.kernel
        _SOURCES[id(module.kernel)] = source
        return module.kernel


class NumbaNest:
    """One top-level `affine.for` nest as a call of a numba kernel.

    Raises `Unsupported` for a nest numba should not take (an op or type
    outside the exact subset, a gather, a GEMM-sized product accumulation).
    """

    def __init__(self, root: affine.ForOp, env: CodeEnv, *, any_nest: bool = False):
        self.env = env
        self.any_nest = any_nest
        """Take nests without a reduction too (NumPy calls do those as well;
        a kernel costs compile time and memory)."""
        self.nest = NestVectoriser(root, env)
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
        self.packing: list[str] = []
        """Lines before the call: weights gathered into the order the kernel
        reads them (once: the function's `prepare` computes them)."""
        self._packed: dict[Element, tuple[str, tuple[int, ...]]] = {}

    def compile(self, indent: str) -> list[str]:
        """The call's source (the kernel is compiled now, or loaded)."""
        nest = self.nest
        nest._collect(self.root, ())
        nest._analyse_values()
        for statement in nest.statements:
            self._check(statement.op)
        self._check_not_a_product()
        if not self.any_nest and not self._reduces():
            raise Unsupported("no reduction: NumPy calls do it as fast")
        for statement in nest.statements:
            op = statement.op
            if isinstance(op, affine.LoadOp | affine.StoreOp) and all(
                nest.axes[a].extent > 0 for a in statement.loops
            ):
                shape = op.memref.type.get_shape()
                nest._check_bounds(op, nest.access_index(op), shape)
        self._emit()
        private = self._private_buffers() - self.read_from_memory
        if private:  # again, without the stores nothing reads
            self.private = frozenset(private)
            self._start()
            self._emit()
        if self.params:
            names = "".join(f"p{i}, " for i in range(len(self.params)))
            self.body.insert(0, f"    ({names}) = P")
        arguments = ", ".join(self._arguments.values())
        source = "\n".join(
            [
                "import numpy as np",
                "from numba import njit",
                "",
                "",
                "@njit(cache=True, nogil=True, error_model='numpy')",
                f"def kernel(P, {arguments}):",
                *self.body,
                "",
            ]
        )
        name = self.env.add_global(kernel(source), "k")
        stored = {self._arguments[m] for m in self.stored}
        self.env.writes[name] = tuple(
            1 + i for i, a in enumerate(self._arguments.values()) if a in stored
        )
        params = self.env.add_global(tuple(self.params), "P")
        call = f"{indent}{name}({params}, {', '.join(self.args)})"
        return [*(indent + line for line in self.packing), call]

    # -- what numba takes ---------------------------------------------------

    def _check(self, op: Operation) -> None:
        for value in [*op.operands, *op.results]:
            try:
                dtype = numpy_dtype(value.type)
            except JITError:
                raise Unsupported(f"type {value.type}") from None
            if dtype not in NUMBA_TYPES:
                raise Unsupported(f"element type {dtype} is left to NumPy")
        if isinstance(op, affine.LoadOp | affine.StoreOp | affine.ApplyOp):
            return
        if isinstance(op, arith.ConstantOp) or op.name in BINARY or op.name in UNARY:
            return
        if op.name == "arith.select" or op.name in FLOAT_CASTS:
            return
        if op.name == "arith.cmpf":
            return
        if op.name == "arith.cmpi" and op.properties["predicate"].value.data in CMPI:  # type: ignore[union-attr]
            return
        raise Unsupported(f"'{op.name}' is left to NumPy")

    def _reduces(self) -> bool:
        """Whether some store repeats over a loop that does not move it (a
        window or a sum: NumPy runs those tap by tap)."""
        nest = self.nest
        for statement in nest.statements:
            if isinstance(statement.op, affine.StoreOp):
                moved = nest._ix_deps(nest.access_index(statement.op))
                looped = {a for a in statement.loops if nest.axes[a].position >= 0}
                if looped - moved:
                    return True
        return False

    def _check_not_a_product(self) -> None:
        """An accumulated product whose factors each have axes of their own
        (a convolution or a matmul, not a depthwise one) is a GEMM: BLAS
        does it better."""
        nest = self.nest
        for statement in nest.statements:
            op = statement.op
            if not isinstance(op, affine.StoreOp):
                continue
            combine = op.value.owner
            if not isinstance(combine, Operation) or combine.name not in (
                "arith.addf",
                "arith.addi",
            ):
                continue
            for term in combine.operands:
                product = term.owner
                if not isinstance(product, Operation) or product.name not in (
                    "arith.mulf",
                    "arith.muli",
                ):
                    continue
                left, right = (nest._live(v) for v in product.operands)
                if left - right and right - left:
                    raise Unsupported("a matrix product: left to BLAS")

    # -- code ---------------------------------------------------------------

    def _param(self, value: int) -> str:
        self.params.append(int(value))
        return f"p{len(self.params) - 1}"

    def _ix(self, ix: Ix) -> str:
        """Source of an index expression (coefficients and offsets as
        parameters; `floordiv`/`mod` divisors literal)."""
        parts = []
        for atom, coefficient in ix.terms:
            match atom:
                case Var():
                    leaf = f"t{atom.id}"
                case Div():
                    leaf = f"(({self._ix(atom.arg)}) // {atom.k})"
                case Mod():
                    leaf = f"(({self._ix(atom.arg)}) % {atom.k})"
                case _:
                    raise Unsupported(f"index atom {atom}")
            parts.append(
                leaf if coefficient == 1 else f"{leaf} * {self._param(coefficient)}"
            )
        if ix.const or not parts:
            parts.append(self._param(ix.const))
        return " + ".join(parts)

    def _argument(self, value: SSAValue) -> str:
        """The kernel's name of a value from outside the nest."""
        return self._argument_for(value, lambda: self.env.name(value))

    def _argument_named(self, name: str) -> str:
        """The kernel's name of an array the call's own lines make."""
        return self._argument_for(name, lambda: name)

    def _argument_for(self, key: SSAValue | str, outer: Callable[[], str]) -> str:
        if key not in self._arguments:
            self._arguments[key] = f"a{len(self._arguments)}"
            self.args.append(outer())
        return self._arguments[key]

    def _local(self, value: SSAValue) -> str:
        if value in self.locals:
            return self.locals[value]
        if value in self.nest.symbols:  # an index used as a value
            return f"({self._ix(self.nest.symbols[value])})"
        if value in self.env.constants:
            return self._literal(self.env.constants[value], value)
        return self._argument(value)

    def _literal(self, constant: Any, value: SSAValue) -> str:
        if isinstance(value.type, IndexType):
            return self._param(int(constant))
        dtype = numpy_dtype(value.type)
        if dtype == np.bool_:
            return "True" if constant else "False"
        if dtype.kind == "f":
            number = float(constant)
            text = repr(number)
            if math.isnan(number):
                text = "np.nan"
            elif math.isinf(number):
                text = "np.inf" if number > 0 else "-np.inf"
            return f"np.{dtype.name}({text})"
        return f"np.{dtype.name}({int(constant)})"

    def _emit(self) -> None:
        self._emit_loop(self.root, iter(range(len(self.nest.axes))), "    ")

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

    def _emit_loop(self, loop: affine.ForOp, axes: Any, indent: str) -> None:
        number = next(axes)
        axis = self.nest.axes[number]
        if axis.extent <= 0:
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
            extent = (
                str(axis.extent)
                if axis.extent <= UNROLLED
                else self._param(axis.extent)
            )
            self.body.append(f"{indent}for t{number} in range({extent}):")
            inner = indent + "    "
        start = len(self.body)
        for op in loop.body.block.ops:
            if isinstance(op, affine.ForOp):
                self._emit_loop(op, axes, inner)
            elif not isinstance(op, affine.YieldOp):
                self._emit_op(op, inner)
        if len(self.body) == start:
            self.body.append(f"{inner}pass")
        if known is not None:  # what the body learnt depends on its variables
            self.known = known
        if register is not None:
            self._release(*register, indent)

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
        buffer = self._argument(memref)
        where = ", ".join(self._ix(ix) for ix in index)
        return f"{buffer}[{where}]" if where else f"{buffer}[()]"

    def _hold(self, memref: SSAValue, index: tuple[Ix, ...], indent: str) -> None:
        name = f"r{self._held}"
        self._held += 1
        self.body.append(f"{indent}{name} = {self._read(memref, index)}")
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
        self.read_from_memory.add(memref)
        packed = self._packed_weight(memref, index)
        if packed is not None:
            return packed
        return self._element(memref, index)

    def _packed_weight(self, memref: SSAValue, index: tuple[Ix, ...]) -> str | None:
        """A load of a weight through a linear index, from a copy of the
        elements it reads laid out by loop variable, the innermost loop's
        last (unit stride: LLVM vectorises that loop); None for other loads.

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
        rolled = [v for v in used if axes[v].extent > UNROLLED]
        order = [v for v in used if not rolled or v != rolled[-1]] + rolled[-1:]
        element = (memref, index)
        if element not in self._packed:
            memref_type = memref.type
            assert isinstance(memref_type, MemRefType)
            shape = tuple(memref_type.get_shape())
            itemsize = numpy_dtype(memref_type.element_type).itemsize
            strides = element_strides(shape)
            offset = sum(ix.const * s for ix, s in zip(index, strides, strict=True))
            view_strides = tuple(
                itemsize
                * sum(
                    axis_coefficient(ix, v) * s
                    for ix, s in zip(index, strides, strict=True)
                )
                for v in order
            )
            view_shape = tuple(axes[v].extent for v in order)
            self.env.namespace["strided_view"] = strided_view
            name = self.env.fresh("w")
            self.packing.append(
                f"{name} = np.ascontiguousarray(strided_view("
                f"{self.env.name(memref)}, {offset}, {view_shape}, {view_strides}))"
            )
            self._packed[element] = (name, tuple(order))
        name, order = self._packed[element]
        buffer = self._argument_named(name)
        return f"{buffer}[{', '.join(f't{v}' for v in order)}]"

    def _write(
        self, memref: SSAValue, index: tuple[Ix, ...], value: str, indent: str
    ) -> None:
        """Store `value` (a local or a literal), unless a register or a
        private buffer takes it."""
        register = self.registers.get((memref, index))
        if register is not None:
            self.body.append(f"{indent}{register} = {value}")
            return
        self._forget(memref)
        self.known[memref, index] = value
        if memref not in self.private:
            self.stored.add(memref)
            self.body.append(f"{indent}{self._element(memref, index)} = {value}")

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
        if isinstance(op, affine.LoadOp):
            element = (op.memref, tuple(nest.access_index(op)))
            if element not in self.registers and element in self.known:
                self.locals[op.result] = self.known[element]  # keeps its value
                return
            expression = self._read(*element)  # a register is copied: it changes
            if element not in self.registers:
                self.known[element] = f"x{len(self.locals)}"
        else:
            operands = [self._local(v) for v in op.operands]
            expression = self._expression(op, operands)
        name = f"x{len(self.locals)}"
        self.locals[op.results[0]] = name
        self.body.append(f"{indent}{name} = {expression}")

    def _expression(self, op: Operation, operands: list[str]) -> str:
        if op.name in BINARY:
            return BINARY[op.name].format(*operands)
        if op.name in UNARY:
            return UNARY[op.name].format(*operands)
        if op.name == "arith.select":
            return f"({operands[1]} if {operands[0]} else {operands[2]})"
        if op.name in FLOAT_CASTS:
            return f"np.{numpy_dtype(op.results[0].type).name}({operands[0]})"
        predicate = op.properties["predicate"].value.data  # type: ignore[union-attr]
        if op.name == "arith.cmpf":
            return CMPF[predicate].format(*operands)
        return f"({operands[0]} {CMPI[predicate]} {operands[1]})"
