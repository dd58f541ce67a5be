"""The JIT's driver: loop-level MLIR (func/memref/affine/scf/arith/math) -> Python.

`compile_module` turns a `func.func` into Python source over NumPy arrays
and `exec`s it. Each `affine.for` nest becomes a C kernel call or NumPy
calls (`schedule.kernels`: `emit.c`, or `emit.numpy_nest`: strided views,
GEMMs planned at compile time, ufuncs in place); a nest neither takes, and
every other op, goes through the exact scalar path (`emit.scalar`);
`scf.if` / `scf.index_switch` / `scf.while` become Python control flow
around them. The source has two functions:
`prepare` holds what depends only on the weight arguments (`ge.weight`) and
constants, moved out of the call by `schedule.hoist` (weights packed into the
matrices the GEMMs read), and `jitted` the rest; `CompiledFunction.bind`
runs `prepare` once for fixed weights. Buffers the function allocates at
its top level (the arena, scratch) are made once per thread and reused by
every call, as a runtime keeps its workspace (a fresh large buffer per call
costs a page fault per page); calls return copies of the results, so a
later call never overwrites them (`copy=False` for a caller that copies them
out at once). With `poison` every call allocates fresh NaN-filled buffers
instead. Compiled functions are cached in memory by the module text, and on
disk by a caller's key (`cache.entries`). `GraphRunner` lowers a `ge` graph
(`convert-ge-to-loops`), compiles it and binds its weights once; each call
lays the origin-layout inputs out in their storage formats, runs it and
converts the outputs back to origin layout (`run_graph` does it once).

```python
compiled = compile_module(loop_module_text)
(y,) = compiled(x_storage, w_storage)
print(compiled.source)           # the generated Python
bound = compiled.bind({1: w_storage})    # weights packed once
(y,) = bound(x_storage)
runner = GraphRunner.build(graph, weights)   # once
outputs = runner({"x": x})                   # per inference
```
"""

from __future__ import annotations

import hashlib
import marshal
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, cf, func, math, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    MemRefType,
    ModuleOp,
    NameLoc,
)
from xdsl.ir import Operation, Region, SSAValue

from ge_dialect.constants import dense_to_numpy
from ge_dialect.locations import error_at, location_text
from ge_dialect.ops import GraphOp, attribute_to_python
from ge_dialect.parsing import parse_module
from ge_dialect.relayout import ValueLayout
from ge_dialect.scalar import RemFOp
from ge_dialect.value_layout import value_layout
from ge_runtime.graph_io import bind_inputs, find_graph, input_specs, storage_weights
from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.c_runtime import kernel_build, kernel_choice
from ge_runtime.jit.cache import entries as cache
from ge_runtime.jit.emit.scalar import CodeEnv, ScalarEmitter
from ge_runtime.jit.function import (
    Argument,
    BoundFunction,
    CompiledFunction,
    loaded_function,
    workspace_pool,
)
from ge_runtime.jit.ops import (
    JITError,
    LocatedJITError,
    caller_dtype,
    jit_failure,
    numpy_dtype,
)
from ge_runtime.jit.schedule import c_regions
from ge_runtime.jit.schedule.hoist import (
    drop_unread,
    hoist_invariants,
    hoist_views,
    names_read,
)
from ge_runtime.jit.schedule.kernel_calls import (
    addresses,
    merge_kernel_calls,
    shared_addresses,
)
from ge_runtime.jit.schedule.kernels import nest_source
from ge_runtime.offline import progress
from ge_runtime.run_inputs import (
    InputKey,
    InputSpec,
    Weights,
    iteration_budget,
    runaway_loop,
)
from passes.lowering.convert_ge_to_loops import (
    WEIGHT_ATTR,
    ConvertGeToLoopsPass,
    graph_constants,
    weight_key,
)

CONTROL_FLOW = (scf.IfOp, scf.IndexSwitchOp, scf.WhileOp)
STORES = frozenset({affine.StoreOp.name, memref.StoreOp.name})
CALL = func.CallOp.name
UNGROUPED = (affine.ForOp, scf.ConditionOp, scf.YieldOp)
"""Region candidates left out of runs (`FunctionCompiler._runs`)."""

_CACHE: dict[str, CompiledFunction] = {}
_LOWERED: dict[str, str] = {}
_GRAPHS: dict[str, CompiledFunction] = {}
_COMPILE_LOCK = threading.RLock()


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
        cf.Cf,
    ):
        ctx.load_dialect(dialect)
    ctx.load_op(RemFOp)
    return ctx


def compile_module(
    module: ModuleOp | str,
    function: str | None = None,
    *,
    poison: bool = False,
    vectorize: bool = True,
    kernels: str | None = None,
) -> CompiledFunction:
    """Compile `function` (default: the module's first function) to Python.

    With `poison`, new float buffers start as NaN, so reading memory the IR
    never wrote shows up in the results; without `vectorize` every nest takes
    the scalar path; `kernels` says which native kernels take the nests they
    can (`KERNELS`; default: `kernel_choice`). Results are cached by module
    text and options.
    """
    text = module if isinstance(module, str) else str(module)
    kernels = kernel_choice(kernels)
    origins = (  # in the messages of the loops' runaway checks
        ""
        if isinstance(module, str)
        else ";".join(
            source_location(op) or ""
            for op in module.walk()
            if isinstance(op, scf.WhileOp)
        )
    )
    options = f"{function}|{poison}|{vectorize}|{kernel_build(kernels)}|{origins}"
    key = hashlib.sha256(f"{options}|{text}".encode()).hexdigest()
    with _COMPILE_LOCK:  # CPython's `ast` is not safe to use from two threads
        if key not in _CACHE:
            parsed = (
                parse_module(loop_context(), text, "<jit>")
                if isinstance(module, str)
                else module
            )
            _CACHE[key] = _compile_new(parsed, function, poison, vectorize, kernels)
        return _CACHE[key]


def _compile_new(
    module: ModuleOp,
    function: str | None,
    poison: bool,
    vectorize: bool,
    kernels: str,
) -> CompiledFunction:
    """`compile_module` without its cache: for a caller that keys the
    result itself (printing a lowered model's module for a key took a tenth
    of its code generation)."""
    with _COMPILE_LOCK:
        target = _find_function(module, function)
        return FunctionCompiler(module, target, poison, vectorize, kernels).run()


def source_location(op: Operation) -> str | None:
    """`FILE:LINE:COL` (or node name) of the source op `op` was lowered from,
    if the lowering gave it that op's location."""
    if isinstance(op.location, FileLineColLoc | NameLoc):
        return location_text(op)
    return None


def source_origins(root: Operation) -> str:
    """The source locations of the ops under `root`, which the generated
    code's run-time errors name: part of every key the code is cached by
    (printed IR leaves locations out, so two files' identical graphs would
    otherwise share the first one's messages)."""
    return ";".join(location_text(op) for op in root.walk())


def _find_function(
    module: ModuleOp, name: str | None, *, private: bool = False
) -> func.FuncOp:
    """Function `name` (None: the first public one; `private`: callees too)."""
    functions = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp)
        and op.body.blocks
        and (
            private or op.sym_visibility is None or op.sym_visibility.data != "private"
        )
    ]
    for op in functions:
        if name is None or op.sym_name.data == name:
            return op
    missing = f"no function @{name}" if name else "no ge.graph or function to run"
    raise LocatedJITError(f"{location_text(module)}: error: {missing} in the module")


class FunctionCompiler:
    """Generates and executes the Python source of one function."""

    def __init__(
        self,
        module: ModuleOp,
        function: func.FuncOp,
        poison: bool,
        vectorize: bool,
        kernels: str,
    ):
        self.module = module
        self.function = function
        self.vectorize = vectorize
        self.kernels = kernels
        self.env = CodeEnv(poison=poison)
        self.scalar = ScalarEmitter(self.env)
        self.vectorised = 0
        self.native_nests = 0
        self.reasons: list[str] = []
        """Why each nest that runs in the scalar path was not vectorised."""
        self.python_loops: list[str] = []
        """Why each loop whose iterations Python drives is not one C call."""
        self.calling: list[str] = []
        """The functions whose inlined bodies are being emitted (`func.call`)."""

    def run(self) -> CompiledFunction:
        """Compile the function and return it ready to call."""
        block = self.function.body.block
        args = [self.env.name(a) for a in block.args]
        arg_attrs = [_python_attrs(d) for d in _attr_dicts(self.function.arg_attrs)]
        arg_attrs = arg_attrs or [{} for _ in block.args]
        outputs = self.function.function_type.outputs.data
        result_attrs = [_python_attrs(d) for d in _attr_dicts(self.function.res_attrs)]
        result_dtypes: list[np.dtype | None] = []
        for position, type_ in enumerate(outputs):
            attrs = result_attrs[position] if result_attrs else {}
            dtype = caller_dtype(type_, attrs)  # type: ignore[arg-type]
            result_dtypes.append(dtype if dtype != numpy_dtype(type_) else None)
        written = _written_roots(self.module, self.function)
        invariant_args = tuple(
            i
            for i, (arg, attrs) in enumerate(zip(block.args, arg_attrs, strict=True))
            if WEIGHT_ATTR in attrs and arg not in written
        )
        self.env.invariant |= {block.args[i] for i in invariant_args}
        body = self.emit_block(list(block.ops), "    ", top=True)
        self.env.place_kept()
        namespace = self.env.namespace
        pool_name = ""
        if self.env.workspace_specs:
            pool = workspace_pool(self.env.workspace_specs, self.env.scratch_size)
            pool_name = self.env.add_global(pool, "workspace")
            self.env.mutable_globals.add(pool_name)
            body.insert(0, f"    _workspace = {pool_name}()")
        invariant = {args[i] for i in invariant_args} | (
            set(namespace) - self.env.mutable_globals
        )
        weights = frozenset(args[i] for i in invariant_args)
        split = hoist_invariants(body, invariant, self.env.writes, weights)
        prepare_args = ", ".join(args[i] for i in invariant_args)
        # the packed weights' addresses: the same on every call of a binding
        bound = addresses(split.prepare) & set(split.names)
        views_function: list[str] = []
        given_views: list[str] = []
        if pool_name:  # views of this thread's buffers: made once per thread
            assert split.body[0].startswith("    _workspace = ")
            constants = set(namespace) - self.env.mutable_globals
            rest = split.rest.without(split.rest.statements[:1])
            views = hoist_views(rest, set(split.names), frozenset(constants))
            # the tables hold addresses of the thread's buffers only: the
            # views are made once per thread, whatever weights are bound
            fixed = frozenset(views.names)
            body = shared_addresses(drop_unread(views.rest))
            merged = merge_kernel_calls(body, self.env, fixed, bound)
            setup = [*views.setup, *merged.tables.values()]
            read = names_read(merged.body)
            made = [name for name in [*views.names, *merged.tables] if name in read]
            prefix = [split.body[0]]
            if made:
                returned = "".join(f"{name}, " for name in made)
                views_function = [
                    f"def views({', '.join(['_workspace', *views.free])}):",
                    *setup,
                    f"    return ({returned})",
                ]
                given_views = views.free
                free = "".join(f", {name}" for name in views.free)
                prefix.append(f"    ({returned}) = _workspace.views(views{free})")
            per_call = [*prefix, *merged.body]
            read |= names_read(prefix)  # the body's own reads found above
        else:
            per_call = shared_addresses(drop_unread(split.rest))
            merged = merge_kernel_calls(per_call, self.env, bound=bound)
            per_call = merged.body
            read = names_read(per_call)
        prepared = [*split.prepare, *merged.bound_tables.values()]
        read |= set(given_views)
        given = [n for n in [*split.names, *merged.bound_tables] if n in read]
        hoisted = "".join(f"{name}, " for name in given)
        for finish in self.env.deferred:
            finish()
        lines = [
            f"def prepare({prepare_args}):",
            *prepared,
            f"    return ({hoisted})",
            *views_function,
            f"def jitted({', '.join([*args, *given])}):",
            *(per_call or ["    pass"]),
        ]
        source = "\n".join(lines) + "\n"
        name = self.function.sym_name.data
        try:
            code = compile(source, f"<jit @{name}>", "exec")
        except SyntaxError as error:  # Python's limits: 20 nested loops
            raise JITError(f"@{name} cannot become Python code: {error.msg}") from None
        except RecursionError:  # an expression nested too deeply to compile
            raise JITError(f"@{name} nests too deeply to compile") from None
        exec(code, namespace)
        return CompiledFunction(
            self.function.sym_name.data,
            namespace["jitted"],
            source,
            marshal.dumps(code),
            [
                Argument(
                    tuple(arg.type.get_shape()),  # type: ignore[attr-defined]
                    caller_dtype(arg.type, attrs),  # type: ignore[arg-type]
                    numpy_dtype(arg.type),
                )
                for arg, attrs in zip(block.args, arg_attrs, strict=True)
            ],
            arg_attrs,
            result_dtypes,
            self.vectorised,
            self.native_nests,
            self.reasons,
            self.python_loops,
            bool(self.env.workspace_specs),
            namespace["prepare"],
            invariant_args,
            (self.env.workspace_specs, self.env.scratch_size, pool_name),
        )

    def emit_block(
        self, ops: Sequence[Operation], indent: str, top: bool = False
    ) -> list[str]:
        """Source for a block's ops: nests vectorised where they can be, runs
        of scalar work and control flow one C call where they can be
        (`c_regions`), else Python statements around the nests' calls; at
        the top level, allocations reuse this thread's workspace; merged
        copies of buffers are reused from nest to nest at the top level only
        (`relayouts`)."""
        relayouts = self.env.relayouts
        top_level = top and not self.calling
        enabled = relayouts.enabled
        relayouts.enabled = enabled and top_level
        lines: list[str] = []
        try:
            for run, region in self._runs(ops):
                lines += self._emit_run(run, region, indent, top)
                if top_level:
                    for op in run:
                        relayouts.commit(op, self.env.constants)
        finally:
            relayouts.enabled = enabled
        return lines

    def _runs(self, ops: Sequence[Operation]) -> list[tuple[list[Operation], bool]]:
        """`ops` in runs, each with whether to try it as a C region: every
        maximal run of region candidates with work in it, and every other op
        on its own (nests, whose calls `kernel_calls` merges as they are; a
        block's terminator, its control flow's)."""
        if not (self.vectorize and self.kernels == "c"):
            return [([op], False) for op in ops]
        runs: list[tuple[list[Operation], bool]] = []
        pending: list[Operation] = []

        def flush() -> None:
            if c_regions.worth_a_region(pending):
                runs.append((list(pending), True))
            else:
                runs.extend(([op], False) for op in pending)
            pending.clear()

        for op in ops:
            if c_regions.candidate(op) and not isinstance(op, UNGROUPED):
                pending.append(op)
            else:
                flush()
                runs.append(([op], False))
        flush()
        return runs

    def _emit_run(
        self, run: list[Operation], region: bool, indent: str, top: bool
    ) -> list[str]:
        """A run's source: one C call (`CRegion`) if `region` and it can be;
        else, if it is several ops, each control-flow op of it tried as a
        region alone; Python statements for the rest. A loop that stays
        Python is recorded with why (`python_loops`)."""
        if region:
            try:
                return self._region(run, indent, top)
            except Unsupported as reason:
                if len(run) == 1 and isinstance(run[0], scf.WhileOp):
                    self.python_loops.append(str(reason))
                if len(run) > 1:
                    return [
                        line
                        for op in run
                        for line in self._emit_run(
                            [op], isinstance(op, CONTROL_FLOW), indent, top
                        )
                    ]
        return self._emit_ops(run, indent, top)

    def _region(self, run: list[Operation], indent: str, top: bool) -> list[str]:
        """`run` as one C call (`CRegion`), what it binds made as at its
        level (`top`: the workspace); `Unsupported` if it cannot be (the
        nests it emitted are not counted then: they are emitted again)."""
        counts = self.vectorised, self.native_nests

        def bind(made: Operation, at: str) -> list[str]:
            return self._emit_ops([made], at, top)

        try:
            region = c_regions.CRegion(self.env, self._nest, bind)
            return region.emit(run, indent, self._runaway)
        except Unsupported:
            self.vectorised, self.native_nests = counts
            raise

    def _emit_ops(self, ops: Sequence[Operation], indent: str, top: bool) -> list[str]:
        lines: list[str] = []
        for op in ops:
            if isinstance(op, func.ReturnOp):
                names = "".join(f"{self.env.name(v)}, " for v in op.operands)
                lines.append(f"{indent}return ({names})")
            elif top and self._reusable(op):
                buffer_type = op.results[0].type
                assert isinstance(buffer_type, MemRefType)
                shape = tuple(buffer_type.get_shape())
                dtype = numpy_dtype(buffer_type.element_type)
                lines.append(
                    f"{indent}{self.env.name(op.results[0])} = "
                    f"{self.env.workspace(shape, dtype)}"
                )
            elif isinstance(op, affine.ForOp) and self.vectorize:
                try:
                    lines += self._nest(op, indent)[0]
                except Unsupported as reason:
                    self.reasons.append(str(reason))
                    lines += self.scalar.emit(op, indent)
            elif isinstance(op, memref.GetGlobalOp):
                array = self._global(op)
                name = self.env.add_global(array, "m")
                if array.flags.writeable:
                    self.env.mutable_globals.add(name)
                else:
                    self.env.invariant.add(op.memref)
                    self.env.constant_arrays[op.memref] = array
                    if array.size == 1:
                        self.env.scalars[op.memref] = array.reshape(-1)[0]
                lines.append(f"{indent}{self.env.name(op.memref)} = {name}")
            elif isinstance(op, CONTROL_FLOW):
                lines += self._control_flow(op, indent)
            elif isinstance(op, func.CallOp):
                lines += self._call(op, indent, top)
            elif isinstance(op, scf.YieldOp | scf.ConditionOp) and not (
                op.args if isinstance(op, scf.ConditionOp) else op.operands
            ):
                continue
            else:
                lines += self.scalar.emit(op, indent)
        return lines

    def _control_flow(
        self, op: scf.IfOp | scf.IndexSwitchOp | scf.WhileOp, indent: str
    ) -> list[str]:
        """`scf.if` / `scf.index_switch` / `scf.while` (no values carried in
        SSA form: the lowering keeps them in buffers) as Python statements."""
        inner = indent + "    "
        if op.results or (isinstance(op, scf.WhileOp) and op.arguments):
            raise JITError(f"'{op.name}' carrying values is not supported")
        if isinstance(op, scf.IfOp):
            lines = [f"{indent}if {self.env.name(op.cond)}:"]
            lines += self._body(op.true_region, inner)
            if op.false_region.blocks:
                lines += [f"{indent}else:", *self._body(op.false_region, inner)]
            return lines
        if isinstance(op, scf.IndexSwitchOp):
            value = self.env.name(op.arg)
            lines = []
            for number, (case, region) in enumerate(
                zip(op.cases.get_values(), op.case_regions, strict=True)
            ):
                keyword = "if" if number == 0 else "elif"
                lines.append(f"{indent}{keyword} {value} == {case}:")
                lines += self._body(region, inner)
            if lines:
                lines.append(f"{indent}else:")
                return lines + self._body(op.default_region, inner)
            return self._body(op.default_region, indent)
        condition = op.before_region.block.last_op
        assert isinstance(condition, scf.ConditionOp)
        count = self.env.fresh("n")
        limit = self.env.add_global(iteration_budget, "c")  # read per run
        lines = [f"{indent}{count} = 0", f"{indent}while True:"]
        lines += self._body(op.before_region, inner)
        lines += [
            f"{inner}if not {self.env.name(condition.condition)}:",
            f"{inner}    break",
            f"{inner}{count} += 1",
            f"{inner}if {count} > {limit}():",
            f"{inner}    {self._runaway(op)}",
        ]
        return lines + self._body(op.after_region, inner)

    def _runaway(self, op: scf.WhileOp) -> str:
        """The statement raising that loop `op` ran out of its budget."""
        runaway = self.env.add_global(runaway_loop, "m")
        if (origin := source_location(op)) is not None:
            prefix = f"{origin}: error: 'ge.while' op "
            error = self.env.add_global(LocatedJITError, "e")
        else:
            prefix = "scf.while "
            error = self.env.add_global(JITError, "e")
        return f"raise {error}({prefix!r} + {runaway}())"

    def _nest(self, op: affine.ForOp, indent: str) -> tuple[list[str], str | None]:
        """A nest's source (`nest_source`), counted as vectorised."""
        lines, not_native = nest_source(op, self.env, self.kernels, indent)
        self.vectorised += 1
        self.native_nests += not_native is None
        return lines, not_native

    def _call(self, op: func.CallOp, indent: str, top: bool) -> list[str]:
        """`func.call`: a fresh copy of the callee's body, inline (its
        arguments bound to the call's operands, its results to the call's)."""
        name = op.callee.root_reference.data
        if name in self.calling:
            raise JITError(f"recursive call of @{name}")
        callee = _find_function(self.module, name, private=True).clone()
        block = callee.body.block
        lines = []
        for arg, operand in zip(block.args, op.arguments, strict=True):
            lines.append(f"{indent}{self.env.name(arg)} = {self.env.name(operand)}")
            if operand in self.env.invariant:
                self.env.invariant.add(arg)
        returned = block.last_op
        assert isinstance(returned, func.ReturnOp)
        self.calling.append(name)
        lines += self.emit_block(list(block.ops)[:-1], indent, top)
        self.calling.pop()
        for result, value in zip(op.results, returned.operands, strict=True):
            lines.append(f"{indent}{self.env.name(result)} = {self.env.name(value)}")
        return lines

    def _body(self, region: Region, indent: str) -> list[str]:
        return self.emit_block(list(region.block.ops), indent) or [f"{indent}pass"]

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


def _attr_dicts(attrs: builtin.ArrayAttr | None) -> list[builtin.DictionaryAttr]:
    """A function's `arg_attrs`/`res_attrs` (none: an empty list)."""
    return list(attrs.data) if attrs is not None else []  # type: ignore[arg-type]


def _python_attrs(attrs: builtin.DictionaryAttr) -> dict[str, Any]:
    """An argument's or result's attributes as Python values."""
    return {k: attribute_to_python(v) for k, v in attrs.data.items()}


def _written_roots(
    module: ModuleOp, function: func.FuncOp, calling: frozenset[str] = frozenset()
) -> set[SSAValue]:
    """The buffers `function` stores to, through views and calls too."""
    written: set[SSAValue] = set()
    calling |= {function.sym_name.data}
    for op in function.walk():
        targets: list[SSAValue] = []
        kind = op.name  # cheaper than `isinstance` on each op of the function
        if kind in STORES:
            targets = [op.memref]  # type: ignore[attr-defined]
        elif kind == CALL and isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            if name in calling:
                raise JITError(f"recursive call of @{name}")
            callee = _find_function(module, name, private=True)
            stored = _written_roots(module, callee, calling)
            args = callee.body.block.args
            targets = [
                v for v, a in zip(op.arguments, args, strict=True) if a in stored
            ]
        for target in targets:
            while isinstance(target.owner, memref.ViewOp | memref.SubviewOp):
                target = target.owner.source
            written.add(target)
    return written


# ---------------------------------------------------------------------------
# Whole graphs
# ---------------------------------------------------------------------------


def lowered_module(graph: GraphOp, target: str | None = None) -> ModuleOp:
    """A new module holding the loop-level function of `graph` (which stays
    as it was)."""
    return ModuleOp(ConvertGeToLoopsPass(target).lowered(graph))


def lower_graph(graph: GraphOp, target: str | None = None) -> str:
    """The loop-level module text of one graph (cached by graph text and target)."""
    key = hashlib.sha256(
        f"{target}|{graph}|{source_origins(graph)}".encode()
    ).hexdigest()
    if key not in _LOWERED:
        _LOWERED[key] = str(lowered_module(graph, target))
    return _LOWERED[key]


def compile_graph(
    graph: GraphOp,
    target: str | None = None,
    *,
    poison: bool = False,
    cache_key: str | None = None,
    kernels: str | None = None,
) -> CompiledFunction:
    """The compiled loop-level function of a graph (cached by graph text).

    With `cache_key` (what determines the graph, e.g. a model file's digest
    and the part) the generated code is also kept on disk (`cache.entries`): a
    later process finds it there and neither lowers nor generates code.
    `kernels` is `compile_module`'s.
    """
    kernels = kernel_choice(kernels)
    if cache_key is not None and not poison:
        disk_key = entry_key(graph, target, cache_key, kernels)
        if (found := loaded_function(disk_key)) is not None:
            return found
        progress.detail("lowering")
        lowered = lowered_module(graph, target)
        progress.detail("generating code")
        compiled = _compile_new(lowered, None, False, True, kernels)
        cache.save(disk_key, compiled.to_entry())
        return compiled
    key = hashlib.sha256(
        f"{target}|{poison}|{kernel_build(kernels)}|{graph}|{source_origins(graph)}".encode()
    ).hexdigest()
    if key not in _GRAPHS:
        lowered = lowered_module(graph, target)
        _GRAPHS[key] = _compile_new(lowered, None, poison, True, kernels)
    return _GRAPHS[key]


def entry_key(
    graph: GraphOp, target: str | None, cache_key: str, kernels: str | None = None
) -> str:
    """The code cache key `compile_graph` keeps `graph`'s code under, given
    the caller's `cache_key` (a served model finds its code by it)."""
    digest = hashlib.sha256(source_origins(graph).encode()).hexdigest()[:16]
    return f"{target}|{kernel_build(kernel_choice(kernels))}|{cache_key}|{digest}"


def weight_arguments(graph: GraphOp, weights: Weights) -> list[np.ndarray]:
    """The lowered function's weight arguments, in order (after the inputs)."""
    arguments = []
    for op in graph_constants(graph):
        key = weight_key(op)
        if key is None:
            continue
        if key not in weights:
            raise error_at(op, f"weight '{key}' is not in the weights")
        arguments.append(np.asarray(weights[key]))
    return arguments


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
    return arguments + weight_arguments(graph, weights)


@dataclass
class GraphRunner:
    """A graph compiled once and bound to its weights: each call only lays
    the inputs out in storage layout, runs the function and loads the
    outputs back to origin layout (no printing, hashing or conversion of
    constants per call)."""

    graph: GraphOp
    compiled: CompiledFunction
    bound: BoundFunction
    inputs: list[tuple[ValueLayout, int]]
    """Per `ge.data` in argument order: its layout and index."""
    outputs: list[tuple[ValueLayout, tuple[int, ...]]]
    """Per output: its layout and origin shape."""
    specs: list[InputSpec]
    """The graph's inputs, what each call's arrays are checked against."""

    @classmethod
    def build(
        cls,
        graph: GraphOp,
        weights: Weights | None = None,
        target: str | None = None,
        *,
        poison: bool = False,
        compiled: CompiledFunction | None = None,
    ) -> GraphRunner:
        """Compile `graph` (unless given `compiled`) and bind its weights
        (storage layout, by key)."""
        if compiled is None:
            compiled = compile_graph(graph, target, poison=poison)
        weights = storage_weights(graph, weights, target)
        data = list(graph.inputs())
        constants = weight_arguments(graph, weights)
        try:  # what depends on constants alone runs now (an index may be off)
            bound = compiled.bind(
                {len(data) + i: array for i, array in enumerate(constants)}
            )
        except JITError as error:
            raise jit_failure(error) from None
        return cls(
            graph,
            compiled,
            bound,
            [(value_layout(op.output, target), op.index_value) for op in data],
            [
                (value_layout(value, target), tuple(value.type.get_shape()))  # type: ignore[attr-defined]
                for value in graph.output.operands
            ],
            input_specs(graph),
        )

    def __call__(self, inputs: Mapping[InputKey, np.ndarray]) -> list[np.ndarray]:
        """Run on origin-layout inputs (by `ge.data` name or index)."""
        bound = bind_inputs(self.graph, inputs, self.specs)
        arguments = [layout.store(bound[index]) for layout, index in self.inputs]
        try:
            stored = self.bound(*arguments)
        except JITError as error:
            raise jit_failure(error) from None
        return [
            np.asarray(layout.load(array, shape))
            for (layout, shape), array in zip(self.outputs, stored, strict=True)
        ]


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
    To run a graph many times, build its `GraphRunner` once.
    """
    graph_op = find_graph(module, graph)
    return GraphRunner.build(graph_op, weights, target, poison=poison)(inputs)
