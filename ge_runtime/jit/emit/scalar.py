"""The JIT's exact scalar path: MLIR ops as plain Python statements.

Any op no other emitter takes becomes Python source here, one element
at a time, with NumPy scalars so float16/float32 arithmetic rounds exactly as
in the vectorised path (both use `ops`):

```python
for v3 in range(0, 4, 1):
    v4 = m0[v3, (v3 // 2)]
    v5 = f_addf(v4, c1)
    m1[v3] = v5
```

`CodeEnv` holds what both paths share: SSA value names, compile-time
constants, the namespace of precomputed objects, and aliasing roots.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith, cf, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from ge_runtime.jit.emit.relayouts import RelayoutCache
from ge_runtime.jit.ops import (
    JITError,
    LocatedJITError,
    constant_value,
    numpy_dtype,
    scalar_function,
)


@dataclass
class CodeEnv:
    """Names and precomputed objects of one generated Python function."""

    namespace: dict[str, Any] = field(default_factory=lambda: {"np": np})
    names: dict[SSAValue, str] = field(default_factory=dict)
    constants: dict[SSAValue, Any] = field(default_factory=dict)
    roots: dict[SSAValue, SSAValue] = field(default_factory=dict)
    poison: bool = False
    invariant: set[SSAValue] = field(default_factory=set)
    """Buffers every call reads the same (weights, constant globals)."""
    scalars: dict[SSAValue, Any] = field(default_factory=dict)
    """The element of each one-element constant global (a power's exponent):
    a native kernel reads it as a literal, which its compiler folds."""
    constant_arrays: dict[SSAValue, np.ndarray] = field(default_factory=dict)
    """The values of the constant globals: a native kernel reads a gather's
    indices from them at compile time (a resize's source rows)."""
    mutable_globals: set[str] = field(default_factory=set)
    """Namespace names of objects the generated code changes."""
    writes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Namespace functions that write positional arguments, and which ones."""
    relayouts: RelayoutCache = field(default_factory=RelayoutCache)
    """Merged copies of buffers still valid at this point of the code."""
    workspace_specs: list[tuple[tuple[int, ...], np.dtype, int | None]] = field(
        default_factory=list
    )
    """Per-thread buffers: shape, dtype, and offset in the scratch (or None)."""
    scratch_size: int = 0
    deferred: list[Callable[[], None]] = field(default_factory=list)
    """What runs once the function's code is complete (a C library's build)."""
    extensions: dict[type, Any] = field(default_factory=dict)
    """Per-function state of a code generator, by its class (`c.CLibrary`)."""
    _scratch_used: int = 0
    _counter: int = 0
    _nests: int = 0
    _born: dict[int, int] = field(default_factory=dict)
    """Scratch slot -> the nest it was allocated in."""
    _kept: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Scratch slot read by a later nest -> first and last nest it lives in."""

    def fresh(self, prefix: str = "t") -> str:
        """A new unique Python name."""
        self._counter += 1
        return f"{prefix}{self._counter}"

    def name(self, value: SSAValue) -> str:
        """The Python name of an SSA value (created on first use)."""
        if value not in self.names:
            self.names[value] = self.fresh("v")
        return self.names[value]

    def add_global(self, obj: Any, prefix: str = "g") -> str:
        """Bind a precomputed object in the namespace under a new name."""
        name = self.fresh(prefix)
        self.namespace[name] = obj
        return name

    def assertion(self, op: cf.AssertOp, holds: str, indent: str) -> list[str]:
        """Lines raising the `cf.assert`'s message (a whole diagnostic) where
        the Python expression `holds` is false."""
        error = self.add_global(LocatedJITError, "e")
        return [
            f"{indent}if not {holds}:",
            f"{indent}    raise {error}({op.msg.data!r})",
        ]

    def workspace(self, shape: tuple[int, ...], dtype: np.dtype) -> str:
        """A buffer of this thread kept from call to call (`_workspace[i]`)."""
        self.workspace_specs.append((tuple(shape), np.dtype(dtype), None))
        return f"_workspace[{len(self.workspace_specs) - 1}]"

    def scratch(self, shape: tuple[int, ...], dtype: np.dtype) -> str:
        """A buffer of this thread valid until the next `begin_nest`; every
        nest's scratch buffers share one allocation (with `poison`: a new
        buffer per call)."""
        dtype = np.dtype(dtype)
        if self.poison:
            return f"np.empty({tuple(shape)}, {self.add_global(dtype, 'dt')})"
        offset = -(-self._scratch_used // 64) * 64
        self._scratch_used = offset + math.prod(shape) * dtype.itemsize
        self.scratch_size = max(self.scratch_size, self._scratch_used)
        self.workspace_specs.append((tuple(shape), dtype, offset))
        self._born[len(self.workspace_specs) - 1] = self._nests
        return f"_workspace[{len(self.workspace_specs) - 1}]"

    def keep(self, slot: int) -> None:
        """Keep the scratch buffer `_workspace[slot]` alive up to the
        current nest, which reads it (`place_kept` finds it a place)."""
        self._kept[slot] = (self._born[slot], self._nests)

    def place_kept(self) -> None:
        """Move the kept scratch buffers after the nests' scratch area, two
        sharing bytes only if no nest uses both (first fit by birth)."""
        base = -(-self.scratch_size // 64) * 64
        placed: list[tuple[int, int, int, int]] = []  # offset, end, born, last
        for slot, (born, last) in sorted(self._kept.items(), key=lambda k: k[1]):
            shape, dtype, _ = self.workspace_specs[slot]
            size = -(-math.prod(shape) * dtype.itemsize // 64) * 64
            offset = 0
            for start, end, b, e in sorted(placed):
                if b <= last and born <= e and start < offset + size and offset < end:
                    offset = end
            placed.append((offset, offset + size, born, last))
            self.workspace_specs[slot] = (shape, dtype, base + offset)
            self.scratch_size = max(self.scratch_size, base + offset + size)

    def begin_nest(self) -> None:
        """Start a nest: the scratch buffers of the previous one are dead."""
        self._scratch_used = 0
        self._nests += 1

    def root(self, value: SSAValue) -> SSAValue:
        """The buffer a memref value views (itself unless it is a view)."""
        return self.roots.get(value, value)

    def alloc_code(self, memref_type: MemRefType) -> str:
        """Source allocating a buffer of a memref type."""
        shape = tuple(memref_type.get_shape())
        if any(d < 0 for d in shape):
            raise JITError(f"dynamic memref shape {list(shape)} is not supported")
        dtype = self.add_global(numpy_dtype(memref_type.element_type), "dt")
        if self.poison and numpy_dtype(memref_type.element_type).kind == "f":
            return f"np.full({shape}, np.nan, {dtype})"
        return f"np.empty({shape}, {dtype})"

    def view_code(
        self,
        name: str,
        memref_type: MemRefType,
        source: str,
        shift: str,
        indent: str,
    ) -> list[str]:
        """Source binding `name` to a `memref.view`: the bytes of an i8 buffer
        from `shift` on, seen as `memref_type`. Never poisoned: a view may
        reuse in place the bytes of a value still being read."""
        shape = tuple(memref_type.get_shape())
        dtype = numpy_dtype(memref_type.element_type)
        size = math.prod(shape) * dtype.itemsize
        type_name = self.add_global(dtype, "dt")
        return [
            f"{indent}{name} = {source}[{shift}:{shift} + {size}]"
            f".view({type_name}).reshape({shape})"
        ]


def affine_source(expr: AffineExpr, dims: Sequence[str], symbols: Sequence[str]) -> str:
    """A Python expression computing an affine expression (MLIR semantics)."""
    match expr:
        case AffineConstantExpr():
            return str(expr.value)
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return symbols[expr.position]
        case AffineBinaryOpExpr():
            lhs = affine_source(expr.lhs, dims, symbols)
            rhs = affine_source(expr.rhs, dims, symbols)
            match expr.kind:
                case AffineBinaryOpKind.Add:
                    return f"({lhs} + {rhs})"
                case AffineBinaryOpKind.Mul:
                    return f"({lhs} * {rhs})"
                case AffineBinaryOpKind.FloorDiv:
                    return f"({lhs} // {rhs})"
                case AffineBinaryOpKind.CeilDiv:
                    return f"(-((-{lhs}) // {rhs}))"
                case AffineBinaryOpKind.Mod:
                    return f"({lhs} % {rhs})"
    raise JITError(f"unsupported affine expression {expr}")


def map_sources(map_: AffineMap, operands: Sequence[str]) -> list[str]:
    """The Python expressions of each result of an affine map."""
    dims, symbols = operands[: map_.num_dims], operands[map_.num_dims :]
    return [affine_source(r, dims, symbols) for r in map_.results]


class ScalarEmitter:
    """Emits Python source for ops, one element at a time."""

    def __init__(self, env: CodeEnv):
        self.env = env

    def _operands(self, op: Operation) -> list[str]:
        return [self.env.name(v) for v in op.operands]

    def _index(self, exprs: Sequence[str]) -> str:
        return f"[{', '.join(exprs)}]" if exprs else "[()]"

    def emit_block(self, ops: Sequence[Operation], indent: str) -> list[str]:
        """Source for a sequence of ops (terminators without results are skipped)."""
        lines: list[str] = []
        for op in ops:
            lines.extend(self.emit(op, indent))
        return lines or [f"{indent}pass"]

    def emit(self, op: Operation, indent: str) -> list[str]:
        """Source for one op (nested regions included)."""
        env = self.env
        match op:
            case affine.ForOp():
                if op.inits:
                    raise JITError("affine.for with iter_args is not supported")
                operands = self._operands(op)
                lower_operands = operands[: len(op.lowerBoundOperands)]
                upper_operands = operands[
                    len(op.lowerBoundOperands) : len(op.lowerBoundOperands)
                    + len(op.upperBoundOperands)
                ]
                lows = map_sources(op.lowerBoundMap.data, lower_operands)
                highs = map_sources(op.upperBoundMap.data, upper_operands)
                low = lows[0] if len(lows) == 1 else f"max({', '.join(lows)})"
                high = highs[0] if len(highs) == 1 else f"min({', '.join(highs)})"
                iv = env.name(op.body.block.args[0])
                head = (
                    f"{indent}for {iv} in range({low}, {high}, {op.step.value.data}):"
                )
                return [
                    head,
                    *self.emit_block(list(op.body.block.ops), indent + "    "),
                ]
            case scf.ForOp():
                if op.iter_args:
                    raise JITError("scf.for with iter_args is not supported")
                low, high, step = self._operands(op)[:3]
                iv = env.name(op.body.block.args[0])
                head = f"{indent}for {iv} in range({low}, {high}, {step}):"
                return [
                    head,
                    *self.emit_block(list(op.body.block.ops), indent + "    "),
                ]
            case scf.IfOp() if not op.results:
                lines = [f"{indent}if {env.name(op.cond)}:"]
                lines += self.emit_block(
                    list(op.true_region.block.ops), indent + "    "
                )
                if op.false_region.blocks:
                    lines.append(f"{indent}else:")
                    lines += self.emit_block(
                        list(op.false_region.block.ops), indent + "    "
                    )
                return lines
            case affine.YieldOp() | scf.YieldOp() if not op.operands:
                return []
            case affine.LoadOp():
                operands = self._operands(op)
                index = self._index(map_sources(op.map.data, operands[1:]))
                return [f"{indent}{env.name(op.result)} = {operands[0]}{index}"]
            case affine.StoreOp():
                operands = self._operands(op)
                index = self._index(map_sources(op.map.data, operands[2:]))
                return [f"{indent}{operands[1]}{index} = {operands[0]}"]
            case affine.ApplyOp():
                (source,) = map_sources(op.map.data, self._operands(op))
                return [f"{indent}{env.name(op.result)} = {source}"]
            case memref.LoadOp():
                memref_name, *indices = self._operands(op)
                return [
                    f"{indent}{env.name(op.res)} = {memref_name}{self._index(indices)}"
                ]
            case cf.AssertOp():
                return env.assertion(op, env.name(op.arg), indent)
            case memref.StoreOp():
                value, memref_name, *indices = self._operands(op)
                return [f"{indent}{memref_name}{self._index(indices)} = {value}"]
            case memref.AllocOp() | memref.AllocaOp():
                code = env.alloc_code(op.results[0].type)
                return [f"{indent}{env.name(op.results[0])} = {code}"]
            case memref.ViewOp():
                source, shift = self._operands(op)
                result = op.result
                assert isinstance(result.type, MemRefType)
                return env.view_code(
                    env.name(result), result.type, source, shift, indent
                )
            case memref.DeallocOp():
                return []
            case arith.ConstantOp():
                value = constant_value(op)
                env.constants[op.result] = value
                return [f"{indent}{env.name(op.result)} = {env.add_global(value, 'c')}"]
        if op.regions or len(op.results) != 1:
            raise JITError(f"unsupported op '{op.name}'")
        function = env.add_global(scalar_function(op), "f")
        args = ", ".join(self._operands(op))
        return [f"{indent}{env.name(op.results[0])} = {function}({args})"]
