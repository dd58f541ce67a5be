"""The NumPy JIT: loop-level MLIR (func/memref/affine/scf/arith/math) -> Python.

`compile_module` turns a `func.func` into the source of one Python function
over NumPy arrays and `exec`s it. Each top-level `affine.for` nest goes
through the vectoriser (`jit_vectorize`: strided views, einsum, ufunc
reductions); a nest it does not take, and every other op, goes through the
exact scalar path (`jit_scalar`). Buffers the function allocates at its
top level (the arena, scratch) are made once per thread and reused by every
call, as a runtime keeps its workspace (a fresh large buffer per call costs
a page fault per page); calls return copies of the results, so a later
call never overwrites them (`copy=False` for a caller that copies them out
at once). With `poison` every call allocates fresh NaN-filled
buffers instead. Compiled functions are cached by the hash of the module
text. `run_graph` lowers a `ge` graph (`convert-ge-to-loops`),
compiles it, lays the origin-layout inputs out in their storage formats,
runs it and converts the outputs back to origin layout.

```python
compiled = compile_module(loop_module_text)
(y,) = compiled(x_storage, w_storage)
print(compiled.source)           # the generated Python
outputs = run_graph(graph_module, {"x": x}, weights)
```
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, math, memref, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, ModuleOp
from xdsl.ir import Operation

from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import dense_to_numpy, derive_storage_weights
from ge_dialect.diagnostics import GEError, error_at, parse_module
from ge_dialect.ops import ConstOp, GraphOp, attribute_to_python
from ge_dialect.value_layout import value_layout
from ge_runtime.jit_ops import JITError, numpy_dtype
from ge_runtime.jit_scalar import CodeEnv, ScalarEmitter
from ge_runtime.jit_vectorize import NestVectoriser, Unsupported
from ge_runtime.reference import InputKey, Weights, bind_inputs, find_graph
from passes.lowering.convert_ge_to_loops import ConvertGeToLoopsPass, weight_key

_CACHE: dict[str, CompiledFunction] = {}
_LOWERED: dict[str, str] = {}
_GRAPHS: dict[str, CompiledFunction] = {}


@dataclass
class CompiledFunction:
    """A `func.func` compiled to Python; call it with storage-layout arrays."""

    name: str
    function: Callable[..., tuple[np.ndarray, ...]]
    source: str
    arg_types: list[MemRefType]
    arg_attrs: list[dict[str, Any]]
    vectorised: int = 0
    scalar_nests: list[str] = field(default_factory=list)
    """Why each top-level nest that runs in the scalar path was not vectorised."""
    reuses_workspace: bool = False
    """Whether results may be views of buffers the next call overwrites."""

    def __call__(self, *args: np.ndarray, copy: bool = True) -> tuple[np.ndarray, ...]:
        """Run on storage-layout arrays; with `copy=False` the results may be
        views of this thread's workspace, valid until its next call."""
        if len(args) != len(self.arg_types):
            raise JITError(
                f"@{self.name} takes {len(self.arg_types)} arguments, got {len(args)}"
            )
        arrays = [self._prepare(i, a) for i, a in enumerate(args)]
        with np.errstate(all="ignore"):
            results = self.function(*arrays)
        if copy and self.reuses_workspace:
            return tuple(result.copy() for result in results)
        return results

    def _prepare(self, position: int, array: Any) -> np.ndarray:
        memref_type = self.arg_types[position]
        dtype = numpy_dtype(memref_type.element_type)
        array = np.asarray(array)
        shape = tuple(memref_type.get_shape())
        if array.dtype != dtype or array.shape != shape:
            raise JITError(
                f"argument #{position} of @{self.name} is "
                f"{array.dtype}{list(array.shape)}, "
                f"expected {dtype}{list(shape)}"
            )
        return np.require(array, requirements="C")  # keeps 0-d arrays 0-d


def loop_context() -> Context:
    """A context with the dialects of loop-level modules."""
    ctx = Context()
    for dialect in (
        builtin.Builtin,
        func.Func,
        memref.MemRef,
        affine.Affine,
        arith.Arith,
        math.Math,
        scf.Scf,
    ):
        ctx.load_dialect(dialect)
    return ctx


def compile_module(
    module: ModuleOp | str,
    function: str | None = None,
    *,
    poison: bool = False,
    vectorize: bool = True,
) -> CompiledFunction:
    """Compile `function` (default: the module's first function) to Python.

    With `poison`, new float buffers start as NaN, so reading memory the IR
    never wrote shows up in the results; without `vectorize` every nest takes
    the scalar path. Results are cached by module text and options.
    """
    text = module if isinstance(module, str) else str(module)
    key = hashlib.sha256(f"{function}|{poison}|{vectorize}|{text}".encode()).hexdigest()
    if key not in _CACHE:
        parsed = (
            parse_module(loop_context(), text, "<jit>")
            if isinstance(module, str)
            else module
        )
        target = _find_function(parsed, function)
        _CACHE[key] = FunctionCompiler(parsed, target, poison, vectorize).run()
    return _CACHE[key]


def _find_function(module: ModuleOp, name: str | None) -> func.FuncOp:
    functions = [
        op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks
    ]
    for op in functions:
        if name is None or op.sym_name.data == name:
            return op
    raise JITError(
        f"no function @{name} in the module" if name else "no function to compile"
    )


class FunctionCompiler:
    """Generates and executes the Python source of one function."""

    def __init__(
        self, module: ModuleOp, function: func.FuncOp, poison: bool, vectorize: bool
    ):
        self.module = module
        self.function = function
        self.vectorize = vectorize
        self.env = CodeEnv(poison=poison)
        self.scalar = ScalarEmitter(self.env)

    def run(self) -> CompiledFunction:
        """Compile the function and return it ready to call."""
        block = self.function.body.block
        args = [self.env.name(a) for a in block.args]
        lines = [f"def jitted({', '.join(args)}):"]
        vectorised, reasons = 0, []
        workspace: list[MemRefType] = []
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                names = "".join(f"{self.env.name(v)}, " for v in op.operands)
                lines.append(f"    return ({names})")
            elif self._reusable(op):
                buffer_type = op.results[0].type
                assert isinstance(buffer_type, MemRefType)
                lines.append(
                    f"    {self.env.name(op.results[0])} = _workspace[{len(workspace)}]"
                )
                workspace.append(buffer_type)
            elif isinstance(op, affine.ForOp) and self.vectorize:
                try:
                    lines += NestVectoriser(op, self.env).compile("    ")
                    vectorised += 1
                except Unsupported as reason:
                    reasons.append(str(reason))
                    lines += self.scalar.emit(op, "    ")
            elif isinstance(op, memref.GetGlobalOp):
                array = self._global(op)
                lines.append(
                    f"    {self.env.name(op.memref)} = "
                    f"{self.env.add_global(array, 'm')}"
                )
            else:
                lines += self.scalar.emit(op, "    ")
        if workspace:
            pool = self.env.add_global(workspace_pool(workspace), "workspace")
            lines.insert(1, f"    _workspace = {pool}()")
        source = "\n".join(lines) + "\n"
        namespace = self.env.namespace
        exec(
            compile(source, f"<jit @{self.function.sym_name.data}>", "exec"), namespace
        )
        arg_attrs = self.function.arg_attrs
        return CompiledFunction(
            self.function.sym_name.data,
            namespace["jitted"],
            source,
            [a.type for a in block.args],  # type: ignore[misc]
            [
                {k: attribute_to_python(v) for k, v in d.data.items()}
                for d in (arg_attrs.data if arg_attrs is not None else [])
            ]
            or [{} for _ in block.args],
            vectorised,
            reasons,
            bool(workspace),
        )

    def _reusable(self, op: Operation) -> bool:
        """A top-level allocation of static shape, outside poison mode."""
        if self.env.poison or not isinstance(op, memref.AllocOp):
            return False
        buffer_type = op.results[0].type
        return isinstance(buffer_type, MemRefType) and all(
            d >= 0 for d in buffer_type.get_shape()
        )

    def _global(self, op: memref.GetGlobalOp) -> np.ndarray:
        name = op.name_.root_reference.data
        for candidate in self.module.ops:
            if (
                isinstance(candidate, memref.GlobalOp)
                and candidate.sym_name.data == name
            ):
                value = candidate.initial_value
                if not isinstance(value, DenseIntOrFPElementsAttr):
                    raise JITError(f"memref.global @{name} has no initial value")
                array = dense_to_numpy(value)
                array.flags.writeable = not candidate.constant
                return array
        raise JITError(f"no memref.global @{name}")


def workspace_pool(
    buffer_types: list[MemRefType],
) -> Callable[[], list[np.ndarray]]:
    """A function giving the calling thread its buffers of `buffer_types`,
    allocated on its first call and the same ones afterwards."""
    local = threading.local()
    specs = [(tuple(t.get_shape()), numpy_dtype(t.element_type)) for t in buffer_types]

    def buffers() -> list[np.ndarray]:
        pool = getattr(local, "buffers", None)
        if pool is None:
            pool = local.buffers = [np.empty(shape, dtype) for shape, dtype in specs]
        return pool

    return buffers


# ---------------------------------------------------------------------------
# Whole graphs
# ---------------------------------------------------------------------------


def lowered_module(graph: GraphOp, target: str | None = None) -> ModuleOp:
    """A new module holding the loop-level function of `graph`."""
    lowered = ModuleOp([graph.clone()])
    ConvertGeToLoopsPass(target).apply(Context(), lowered)
    return lowered


def lower_graph(graph: GraphOp, target: str | None = None) -> str:
    """The loop-level module text of one graph (cached by graph text and target)."""
    key = hashlib.sha256(f"{target}|{graph}".encode()).hexdigest()
    if key not in _LOWERED:
        _LOWERED[key] = str(lowered_module(graph, target))
    return _LOWERED[key]


def compile_graph(
    graph: GraphOp, target: str | None = None, *, poison: bool = False
) -> CompiledFunction:
    """The compiled loop-level function of a graph (cached by graph text)."""
    key = hashlib.sha256(f"{target}|{poison}|{graph}".encode()).hexdigest()
    if key not in _GRAPHS:
        _GRAPHS[key] = compile_module(lowered_module(graph, target), poison=poison)
    return _GRAPHS[key]


def external_keys(graph: GraphOp) -> list[str]:
    """The keys of the graph's `#ge.external` constants."""
    return [
        op.value.key.data
        for op in graph.body.block.ops
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr)
    ]


def graph_arguments(
    graph: GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
    weights: Weights,
    target: str | None,
) -> list[np.ndarray]:
    """The lowered function's arguments: storage-layout inputs, then weights."""
    bound = bind_inputs(graph, inputs)
    arguments = [
        value_layout(data.output, target).store(bound[data.index_value])
        for data in graph.inputs()
    ]
    constants = [op for op in graph.body.block.ops if isinstance(op, ConstOp)]
    for position, op in enumerate(constants):
        key = weight_key(op, position)
        if key is None:
            continue
        if isinstance(op.value, DenseIntOrFPElementsAttr):
            arguments.append(dense_to_numpy(op.value))
        elif key in weights:
            arguments.append(np.asarray(weights[key]))
        else:
            raise error_at(op, f"weight '{key}' is not in the weights")
    return arguments


def run_graph(
    module: ModuleOp | GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
    weights: Weights | None = None,
    *,
    graph: str | None = None,
    target: str | None = None,
    poison: bool = False,
) -> list[np.ndarray]:
    """Lower, JIT-compile and run a graph; inputs and outputs in origin layout.

    `inputs` are keyed by `ge.data` node name or index, `weights` map
    `#ge.external` keys to storage-layout arrays (keys derived by
    `insert-transdata` are computed from the origin-layout ones if missing).
    """
    graph_op = find_graph(module, graph)
    compiled = compile_graph(graph_op, target, poison=poison)
    weights = weights or {}
    if any(key not in weights for key in external_keys(graph_op)):
        weights = derive_storage_weights(ModuleOp([graph_op.clone()]), weights, target)
    arguments = graph_arguments(graph_op, inputs, weights, target)
    try:
        stored = compiled(*arguments)
    except JITError as error:
        raise GEError(f"error: {error}") from None
    outputs = []
    for value, array in zip(graph_op.output.operands, stored, strict=True):
        shape = tuple(value.type.get_shape())  # type: ignore[attr-defined]
        outputs.append(np.asarray(value_layout(value, target).load(array, shape)))
    return outputs
