"""Sink vs host scheduling: how a compiled model executes (SPEC §8).

GE has two ways to run a model, and so does `compile_model`:

- **Sink scheduling** (every dim static). The engine subgraphs of
  `partition-engines` are inlined and the graph is compiled *whole* by the
  JIT (`ge_runtime.jit.compiler`) into one function executed by a single call, as a
  model sunk to the device runs from one launch. An op marked `aclnn_only`
  (`mark-fallback`) cannot be sunk: the graph is split into sunk parts
  around it and the op runs through its host fallback between them
  (`sunk part 0 -> fallback -> sunk part 1`). A `support_aclnn` op sinks
  with the rest. A part the JIT cannot lower (control flow, an op without
  a loop lowering) runs whole in the reference evaluator, and the trace
  says so.
- **Host scheduling** (a dim is dynamic, `?`, or an op's parameters are
  run-time values). As GE splits such a graph into static and dynamic
  subgraphs, only the ops that need the run's values run on the host
  (`needs_run_time_values`: a dynamic dim among their operands or
  results, run-time parameters, `aclnn_only`); the static subgraphs
  between them are sunk, one compiled part each, as above
  (`sunk part 0 -> host ops -> sunk part 1`). The host ops run one by one:
  before each op its shape function (`ge_dialect.shape_inference`) runs on
  the concrete input shapes (an op whose result shape is data-dependent
  reads it from the operands' values: `value_shapes`), then its kernel is
  dispatched: the JIT compiles the op for exactly those shapes (cached per
  op and shape, so the results it allocates have the inferred shapes) or,
  for an op the JIT cannot lower, its NumPy kernel runs and the trace says
  why. A part the JIT cannot compile runs op by op the same way. Control
  flow on the host (`ge.if`, `ge.case`, `ge.while`) is compiled whole with
  its subgraphs for the shapes its operands have (`KernelCache.
  subgraph_kernel`), and walked op by op only where a dim stays unknown
  or an op inside needs the host.
  `support_aclnn` ops on the host run through their host single-op function
  (`ge_runtime.engines.fallback`). The same compiled model serves any batch
  size. An op whose parameters are run-time tensors (`ge.dynamic_attrs`:
  reduce axes, slice bounds, pads, ...) has its parameter values read and
  bound before it runs (`DynamicAttrsOp.specialise`), and the static op
  they give is inferred and JIT-compiled (cached per op, shapes and
  parameter values).

Why fallback exists: a multi-kernel op (a matmul implemented as several
kernels) launches a number of kernels only known at run time, so a sunk
model cannot plan it; GE dispatches it from the host instead.

A sunk part with several streams (`assign-streams`; the part is assigned
again, as the source graph was, and planned) runs its streams concurrently
through `ge_runtime.engines.streams.StreamRuntime`, one thread per stream.

Each run records a trace: per op, its node name, engine (from its
`ge.partitioned_call`, else the op-information library) and path (`sunk`,
`host kernel`, `fallback`), and for a part with several streams the stream
and when the op ran; `ge-run --trace` prints it.

```python
model = compile_model(module, weights)          # once
model.mode, model.describe()   # "host", "host scheduling (...): 2 sunk part(s), ..."
(y,) = model.run({"x": x_batch_7})             # any batch size
for entry in model.trace: print(entry.line())
```
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation

from ge_dialect.adapters import (
    call_kernel,
    check_results,
    operand_format_keywords,
    run_numpy_kernel,
)
from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.layout import shape_of
from ge_dialect.limits import (
    LimitError,
    check_claimed_memory,
    over_budget,
    tensor_bytes,
)
from ge_dialect.locations import error_at
from ge_dialect.naming import node_labels
from ge_dialect.ops import (
    DataOp,
    GraphOp,
    PartitionedCallOp,
)
from ge_dialect.ops.base import enclosing_target
from ge_dialect.shape_inference import (
    ShapeError,
    has_shape_function,
    infer_shapes,
    shape_function_attributes,
)
from ge_runtime.engines.fallback import execute_fallback, runs_on_host, single_op_api
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.single_op import KernelCache, Shape, Specialised, needs_host
from ge_runtime.engines.walker import (
    GraphWalker,
    Held,
    operand_origins,
    runs_subgraphs,
)
from ge_runtime.graph_io import bind_inputs, find_graph, input_specs, storage_weights
from ge_runtime.jit.compiler import GraphRunner, compile_graph
from ge_runtime.jit.function import CompiledFunction
from ge_runtime.jit.ops import JITError, UnusableSetup
from ge_runtime.offline.timing import Profiler
from ge_runtime.run_inputs import InputKey, InputSpec, Weights
from passes.memory_planning import ARENA_ATTRIBUTE, REPORT_ATTRIBUTE, check_graph_plan
from passes.outlining import inline_partitioned_calls
from passes.partition_engines import (
    STRUCTURAL_OPS,
    build_partitioned_call,
    owned_constants,
    placed_engine,
)
from passes.plan_memory import plan_sunk_graph

if TYPE_CHECKING:  # the runtime of several streams (threads, the kernel
    # runtime) is loaded when a part has several streams
    from ge_runtime.engines.streams import OpTiming, StreamRuntime


class ExecutionPath(enum.StrEnum):
    """How an op ran."""

    SUNK = "sunk"
    """Inside a graph part compiled whole and run by one call."""
    HOST_KERNEL = "host kernel"
    """Dispatched on its own under host scheduling."""
    FALLBACK = "fallback"
    """Through its host single-op function (`ge_runtime.engines.fallback`)."""


class Executor(enum.StrEnum):
    """What computed an op."""

    JIT = "jit"
    """Loops lowered from the graph, run by the JIT (what `--check` verifies)."""
    NUMPY_KERNEL = "numpy kernel"
    """A host fallback op (`support_aclnn`/`aclnn_only`): its single-op API
    runs the NumPy kernel library, by design."""
    REFERENCE = "reference"
    """The reference evaluator's kernel: the JIT could not lower the op."""


@dataclass(frozen=True)
class TraceEntry:
    """One executed op: node name, op, engine, path, how, result shapes, and
    on a part with several streams: its stream, start and end (ms from the
    part's start)."""

    node: str
    op: str
    engine: str
    path: ExecutionPath
    detail: str
    shapes: tuple[Shape, ...]
    executor: Executor = Executor.JIT
    stream: int | None = None
    start_ms: float | None = None
    end_ms: float | None = None

    def line(self) -> str:
        """`conv1 ge.conv2d AICore sunk (part 0, jit) -> 1x4x8x8`, or with a
        stream `... sunk (part 0, 2 streams) stream 1 at 0.250-1.500 ms -> ...`."""
        shapes = ", ".join("x".join(map(str, s)) or "scalar" for s in self.shapes)
        when = (
            ""
            if self.stream is None
            else f" stream {self.stream} at {self.start_ms:.3f}-{self.end_ms:.3f} ms"
        )
        return (
            f"{self.node} {self.op} {self.engine} {self.path} ({self.detail}){when} "
            f"-> {shapes}"
        )


@dataclass(frozen=True)
class NodeInfo:
    """What the trace says about an op: its node name and engine."""

    label: str
    engine: str


def describe_nodes(graph: GraphOp) -> dict[Operation, NodeInfo]:
    """Node name and engine of every op of `graph`."""
    labels = node_labels(graph)
    return {
        op: NodeInfo(labels[op], str(placed_engine(op) or "GE")) for op in graph.walk()
    }


def has_dynamic_dims(graph: GraphOp) -> bool:
    """Whether any value of `graph` (subgraphs included) has an unknown dim."""
    return any(
        isinstance(value.type, TensorType) and -1 in shape_of(value.type)
        for op in graph.walk()
        for value in op.results
    )


def has_run_time_parameters(graph: GraphOp) -> bool:
    """Whether an op of `graph` has parameters known only at run time
    (`ge.dynamic_attrs`, `ge.dynamic_reshape`: ops that `specialise`):
    run-time shape inference must read them first."""
    return any(hasattr(op, "specialise") for op in graph.walk())


# ---------------------------------------------------------------------------
# Sink scheduling: inline engine subgraphs, split around aclnn_only ops
# ---------------------------------------------------------------------------


def runs_through_fallback(op: Operation) -> bool:
    """Whether a static graph runs `op` on the host: an `aclnn_only` op."""
    return runs_on_host(op, host_scheduled=False)


def needs_run_time_values(op: Operation) -> bool:
    """Whether `op` can run only once the run's values are known, so on the
    host: a dynamic dim among its operands or results (its shape is the
    run's), an op that `needs_host` (`aclnn_only`, run-time parameters), or
    such an op in its subgraphs."""
    return any(
        needs_host(inner)
        or any(
            isinstance(value.type, TensorType) and -1 in shape_of(value.type)
            for value in (*inner.operands, *inner.results)
        )
        for inner in op.walk()
    )


def split_around_host_ops(
    block: Block, on_host: Callable[[Operation], bool] = runs_through_fallback
) -> list[list[Operation] | Operation]:
    """The block's ops as steps: sunk parts (lists) and the ops `on_host`
    says run on the host (by default the `aclnn_only` ops of a static graph;
    under host scheduling, `needs_run_time_values`).

    Each part takes, in block order, every sinkable op whose producers have
    run, so a host op splits the graph only where it must.
    """
    ops = [op for op in block.ops if not isinstance(op, STRUCTURAL_OPS)]
    compute = set(ops)
    producers = {op: {v.owner for v in op.operands if v.owner in compute} for op in ops}
    done: set[Operation] = set()
    steps: list[list[Operation] | Operation] = []
    while len(done) < len(ops):
        part: list[Operation] = []
        for op in ops:
            if op in done or on_host(op):
                continue
            if producers[op] <= done:
                part.append(op)
                done.add(op)
        if part:
            steps.append(part)
        ready = [op for op in ops if op not in done and producers[op] <= done]
        steps.extend(ready)
        done.update(ready)
    return steps


def graph_of_call(call: PartitionedCallOp, name: str) -> GraphOp:
    """A standalone `ge.graph` with the call's subgraph (`parent_index` -> `index`)."""
    region = call.f.clone()
    for op in region.block.ops:
        if isinstance(op, DataOp):
            op.attributes["index"] = IntegerAttr(op.index_value, i64)
            del op.attributes["parent_index"]
    return GraphOp(name, region)


@dataclass
class SunkPart:
    """A piece of a static graph compiled whole and executed by one call."""

    number: int
    call: PartitionedCallOp
    """The part in the scheduled graph."""
    graph: GraphOp
    """The part as a standalone graph, what the JIT compiles."""
    ops: list[Operation]
    jit_failure: str | None = None
    """Why the JIT could not compile the part (it runs in the reference evaluator)."""
    compiled: CompiledFunction | None = None
    cache_key: str | None = None
    """What its code is kept on disk under (`compile_graph`'s), if it is."""
    runner: GraphRunner | None = None
    """The compiled part bound to its weights, once run."""
    streams: StreamRuntime | None = None
    """The part's concurrent runtime, once run, if it has several streams."""

    @property
    def stream_count(self) -> int:
        """Streams of the part (1: compiled whole)."""
        from passes.stream_planning import stream_count

        return stream_count(self.graph) or 1

    @property
    def how(self) -> str:
        """`jit`, `N streams`, or `reference: <why>`; with what the JIT runs
        element by element or iteration by iteration in Python, if anything
        (`jit, 1 nest(s) element by element: a store through computed
        indices (a scatter) (C kernel: element type float16 is left to
        NumPy)`: a part that may run hundreds of times slower than its
        kernels would; `CompiledFunction.slow_paths`)."""
        if self.stream_count > 1:
            return f"{self.stream_count} streams"
        if self.jit_failure is not None:
            return f"reference: {self.jit_failure}"
        slow = "" if self.compiled is None else self.compiled.slow_paths()
        return f"jit, {slow}" if slow else "jit"


def keep_plan(graph: GraphOp, part: GraphOp, target: str | None) -> None:
    """`part`, all of `graph`'s ops, keeps the memory plan `graph` carries (the
    pipeline's `plan-memory`, or the one an offline model was written with):
    its ops' offsets came with them; the arena size and report are copied.
    It is the plan `plan_sunk_graph` would make of the part (the same ops in
    the same order; CRNN, DenseNet-121, MobileViT, ShuffleNet, YOLOv8); a
    plan that does not fit the part (edited, stale) is refused here, at its
    op (`check_graph_plan`), not left to the lowering, whose refusal would
    run the part in the reference evaluator."""
    for name in (ARENA_ATTRIBUTE, REPORT_ATTRIBUTE):
        if name in graph.attributes:
            part.attributes[name] = graph.attributes[name]
    check_graph_plan(part, target)


def sink_graph(
    graph: GraphOp,
    target: str | None,
    cache_key: str | None = None,
    on_host: Callable[[Operation], bool] = runs_through_fallback,
) -> list[SunkPart]:
    """Turn `graph` (in place) into sunk-part calls and host ops, in order.

    Engine subgraphs are inlined, the ops split around the ops `on_host`
    says run on the host (`split_around_host_ops`), and each part moved into
    a `ge.partitioned_call` (with the constants only it reads), assigned
    streams as `graph` was, planned and compiled (its code kept on disk
    under `cache_key` and the part's number, if given). A graph run whole
    on one stream keeps the plan it carries, if it has one (`keep_plan`).
    """
    from passes.assign_streams import assign_sunk_graph
    from passes.stream_planning import stream_count

    streams = stream_count(graph)
    block = graph.body.block
    inline_partitioned_calls(block)
    terminator = block.last_op
    assert terminator is not None
    steps = split_around_host_ops(block, on_host)
    part_of = {
        op: n for n, step in enumerate(steps) if isinstance(step, list) for op in step
    }
    owned = owned_constants(list(block.ops), part_of)
    parts: list[SunkPart] = []
    for number, step in enumerate(steps):
        if isinstance(step, Operation):
            step.detach()
            block.insert_op_before(step, terminator)
            continue
        constants = [c for c, n in owned.items() if n == number]
        call = build_partitioned_call(step, constants, None)
        block.insert_op_before(call, terminator)
        part_graph = graph_of_call(call, f"{graph.sym_name.data}_part{len(parts)}")
        if streams is not None:
            assign_sunk_graph(part_graph, streams)
        if len(steps) == 1 and streams is None and ARENA_ATTRIBUTE in graph.attributes:
            keep_plan(graph, part_graph, target)
        else:
            plan_sunk_graph(part_graph, target)  # the part's intermediates: one arena
        part = SunkPart(len(parts), call, part_graph, step)
        if part.stream_count == 1:
            if cache_key is not None:
                part.cache_key = f"{cache_key}|part{part.number}"
            try:
                part.compiled = compile_graph(
                    part_graph, target, cache_key=part.cache_key
                )
            except UnusableSetup:
                raise
            except (GEError, JITError) as error:
                part.jit_failure = str(error).partition("error: ")[2] or str(error)
        parts.append(part)
    return parts


# ---------------------------------------------------------------------------
# The executor
# ---------------------------------------------------------------------------


def _shapes_agree(got: Sequence[Shape], expected: Sequence[Shape]) -> bool:
    """Kernel result shapes match the shape function's (where it said -1,
    the shape is data-dependent: the kernel says)."""
    return len(got) == len(expected) and all(
        len(g) == len(e) and all(d in (-1, k) for k, d in zip(g, e, strict=True))
        for g, e in zip(got, expected, strict=True)
    )


@dataclass
class ScheduledEvaluator:
    """Runs a scheduled graph: sunk parts, fallback ops, or op by op on the
    host. The graph walk (held values, constants, control flow) is a
    `GraphWalker`'s; this evaluates the ops it meets."""

    weights: Weights = field(default_factory=dict)
    target: str | None = None
    host_scheduled: bool = False
    parts: dict[Operation, SunkPart] = field(default_factory=dict)
    nodes: dict[Operation, NodeInfo] = field(default_factory=dict)
    kernels: KernelCache = field(default_factory=lambda: KernelCache(None))
    trace: list[TraceEntry] = field(default_factory=list)
    part_traces: dict[int, list[TraceEntry]] = field(default_factory=dict)
    """What a run of each part adds to `trace` (by part number; made once)."""
    profiler: Profiler | None = None
    """Times each sunk part, fallback op and host kernel while set."""
    walker: GraphWalker = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.walker = GraphWalker(self.evaluate_op, self.weights, self.target)

    def run(self, graph: GraphOp, inputs: Mapping[int, np.ndarray]) -> list[Held]:
        """Run the scheduled graph on inputs bound by index (`bind_inputs`)."""
        return self.walker.run(graph, inputs)

    def evaluate_op(self, op: Operation, operands: Sequence[Held]) -> list[np.ndarray]:
        """One op the walk meets: a sunk part's call, control flow (walked),
        a fallback op or, host-scheduled, the op's kernel for its shapes.
        With a `profiler`, each part, fallback op and kernel is timed."""
        if (part := self.parts.get(op)) is not None:
            if part.jit_failure is not None and self.host_scheduled:
                # op by op, each on its own kernel (or its reference kernel)
                return self.walker.run_subgraphs(op, operand_origins(op, operands))
            step = f"sunk part {part.number} ({part.how})"
            return self._timed(step, lambda: self._run_part(op, part, operands))
        if runs_subgraphs(op):
            if self.host_scheduled and not isinstance(op, PartitionedCallOp):
                step = f"host kernel {op.name}"
                return self._timed(step, lambda: self._run_subgraphs(op, operands))
            return self.walker.run_subgraphs(op, operand_origins(op, operands))
        if runs_on_host(op, host_scheduled=self.host_scheduled):
            step = f"fallback {op.name}"
            return self._timed(step, lambda: self._run_fallback(op, operands))
        if not self.host_scheduled:
            raise error_at(op, "is neither in a sunk part nor a fallback op")
        step = f"host kernel {op.name}"
        return self._timed(step, lambda: self._run_kernel(op, operands))

    def _timed(
        self, step: str, run: Callable[[], list[np.ndarray]]
    ) -> list[np.ndarray]:
        if self.profiler is None:
            return run()
        start = time.perf_counter()
        results = run()
        self.profiler.record(step, time.perf_counter() - start)
        return results

    def _run_fallback(
        self, op: Operation, operands: Sequence[Held]
    ) -> list[np.ndarray]:
        results = execute_fallback(op, [held.origin for held in operands])
        detail = f"{single_op_api(op)}, NumPy kernel library"
        self._record(op, ExecutionPath.FALLBACK, detail, results, Executor.NUMPY_KERNEL)
        return results

    def _run_part(
        self, call: Operation, part: SunkPart, operands: Sequence[Held]
    ) -> list[np.ndarray]:
        inputs: dict[InputKey, np.ndarray] = {
            index: held.origin for index, held in enumerate(operands)
        }
        if part.stream_count > 1:
            return self._run_streams(call, part, inputs)
        if part.jit_failure is None:
            if part.runner is None:
                part.runner = GraphRunner.build(
                    part.graph, self.weights, self.target, compiled=part.compiled
                )
            try:
                results = part.runner(inputs)
            except GEError as error:  # data-dependent (an index): at its graph
                message = str(error)
                graph = call.parent_op()
                if not message.startswith("error: ") or graph is None:
                    raise
                raise error_at(graph, message.removeprefix("error: ")) from None
        else:
            results = evaluate(
                part.graph, inputs, weights=self.weights, target=self.target
            )
        check_results(call, results)
        entries = self.part_traces.get(part.number)
        if entries is None:
            start = len(self.trace)
            detail = f"part {part.number}, {part.how}"
            executor = Executor.JIT if part.jit_failure is None else Executor.REFERENCE
            for op in part.ops:
                self._record(op, ExecutionPath.SUNK, detail, executor=executor)
            self.part_traces[part.number] = self.trace[start:]
        else:
            self.trace += entries
        return results

    def _run_streams(
        self, call: Operation, part: SunkPart, inputs: Mapping[InputKey, np.ndarray]
    ) -> list[np.ndarray]:
        """A part with several streams: each on its own thread, waiting on events."""
        if part.streams is None:
            from ge_runtime.engines.streams import StreamRuntime

            part.streams = StreamRuntime(part.graph, self.weights, self.target)
        results = part.streams.run(inputs)
        check_results(call, results)
        assert isinstance(call, PartitionedCallOp)
        ops = dict(
            zip(part.streams.graph.body.block.ops, call.f.block.ops, strict=True)
        )
        for timing in part.streams.timings:
            detail = f"part {part.number}, {part.how}"
            self._record(ops[timing.op], ExecutionPath.SUNK, detail, timing=timing)
        return results

    def _run_kernel(self, op: Operation, operands: Sequence[Held]) -> list[np.ndarray]:
        """Shape function on the concrete shapes, then the op's kernel; an op
        with run-time parameters first becomes its static op for their values
        (the parameter operands are read here, not passed to the kernel)."""
        specialised = None
        if hasattr(op, "specialise"):
            specialised = self._specialise(op, operands)
            operands = operands[: op.data_operand_count]
        shapes = tuple(held.shape for held in operands)
        inferred = self._infer(op, operands, specialised)
        if inferred is not None and hasattr(op, "value_shapes"):
            # Data-dependent dims: the op computes them from the operands'
            # values, then a kernel is compiled for those result shapes.
            try:
                found = op.value_shapes([held.origin for held in operands])
            except (ShapeError, LimitError) as error:
                raise error_at(op, f"host kernel failed: {error}") from None
            inferred = [
                (tuple(s), dtype) for s, (_, dtype) in zip(found, inferred, strict=True)
            ]
        kernel = (
            None
            if inferred is None
            else self.kernels.kernel(op, shapes, inferred, specialised)
        )
        if kernel is not None:
            results = kernel(dict(enumerate(held.origin for held in operands)))
            detail = "jit kernel for " + ", ".join(
                "x".join(map(str, s)) or "scalar" for s in shapes
            )
            if specialised is not None:
                detail += f" as {specialised.describe()}"
            executor = Executor.JIT
        elif specialised is not None:
            results = call_kernel(
                specialised.op_class,
                *[held.origin for held in operands],
                **specialised.attributes,
            )
            results = list(results) if isinstance(results, list | tuple) else [results]
            reason = self.kernels.failures.get(op, "no shape function")
            detail = f"reference kernel of {specialised.describe()}: {reason}"
            executor = Executor.REFERENCE
        else:
            results = run_numpy_kernel(op, [held.origin for held in operands])
            reason = self.kernels.failures.get(op, "no shape function")
            detail = f"reference kernel: {reason}"
            executor = Executor.REFERENCE
        if inferred is not None:
            got = [tuple(r.shape) for r in results]
            expected = [tuple(s) for s, _ in inferred]
            if not _shapes_agree(got, expected):
                raise error_at(
                    op,
                    f"kernel results have shapes {[list(s) for s in got]}, the "
                    f"shape function says {[list(s) for s in expected]}",
                )
        check_results(op, results)
        self._record(op, ExecutionPath.HOST_KERNEL, detail, results, executor)
        return results

    def _run_subgraphs(
        self, op: Operation, operands: Sequence[Held]
    ) -> list[np.ndarray]:
        """Control flow under host scheduling: compiled whole with its
        subgraphs for the operands' shapes (`KernelCache.subgraph_kernel`),
        else walked, each op inside dispatched on its own."""
        origins = operand_origins(op, operands)
        shapes = tuple(held.shape for held in operands)
        found = self.kernels.subgraph_kernel(op, shapes)
        if found is None:
            return self.walker.run_subgraphs(op, origins)
        kernel, _ = found
        results = kernel(dict(enumerate(origins)))
        check_results(op, results)
        detail = "jit kernel for " + ", ".join(
            "x".join(map(str, s)) or "scalar" for s in shapes
        )
        self._record(
            op, ExecutionPath.HOST_KERNEL, detail + " with its subgraphs", results
        )
        return results

    def _specialise(self, op: Any, operands: Sequence[Held]) -> Specialised:
        """The static op `op` (`ge.dynamic_attrs`, `ge.dynamic_reshape`) is
        for the values of its run-time parameter operands."""
        count = op.data_operand_count
        values = [np.asarray(held.origin) for held in operands[count:]]
        shapes = [held.shape for held in operands[:count]]
        try:
            op_class, attributes = op.specialise(shapes, values)
        except ShapeError as error:
            given = ", ".join(
                f"{name}={np.asarray(v).tolist()}"
                for name, v in zip(op.run_time_parameter_names(), values, strict=True)
            )
            raise error_at(op, f"at run time, with {given}: {error}") from None
        return Specialised(op_class, attributes)

    def _infer(
        self,
        op: Operation,
        operands: Sequence[Held],
        specialised: Specialised | None = None,
    ) -> list[tuple[Shape, str]] | None:
        """The op's shape function (or that of the static op it is
        `specialised` to) on the concrete operands (None: it has none)."""
        shapes = [held.shape for held in operands]
        dtypes = [held.layout.dtype for held in operands]
        if specialised is not None:
            target: Operation | type[Operation] = specialised.op_class
            attributes = {
                **operand_format_keywords(
                    specialised.op_class, [v.type for v in op.operands][: len(shapes)]
                ),
                **specialised.attributes,
            }
        else:
            target, attributes = op, {}
        if not has_shape_function(target):
            return None
        if specialised is None:
            attributes = shape_function_attributes(op)
        try:
            inferred = infer_shapes(target, shapes, dtypes, attributes)
            for index, (shape, dtype) in enumerate(inferred):
                if -1 in shape:  # data-dependent: the kernel says
                    continue
                nbytes = tensor_bytes(shape, numpy_dtype(dtype).itemsize)
                if (reason := over_budget(nbytes, f"result #{index}")) is not None:
                    raise ShapeError(reason)
        except (ShapeError, LimitError) as error:
            shown = ", ".join(str(list(s)) for s in shapes)
            raise error_at(op, f"at run time, on shapes {shown}: {error}") from None
        return inferred

    def _record(
        self,
        op: Operation,
        path: ExecutionPath,
        detail: str,
        results: Sequence[np.ndarray] | None = None,
        executor: Executor = Executor.JIT,
        timing: OpTiming | None = None,
    ) -> None:
        info = self.nodes.get(op) or NodeInfo(op.name, str(placed_engine(op)))
        shapes = (
            tuple(tuple(r.shape) for r in results)
            if results is not None
            else tuple(shape_of(v.type) for v in op.results)
        )
        when = (
            ()
            if timing is None
            else (timing.stream, 1e3 * timing.start, 1e3 * timing.end)
        )
        self.trace.append(
            TraceEntry(
                info.label, op.name, info.engine, path, detail, shapes, executor, *when
            )
        )


# ---------------------------------------------------------------------------
# The compiled model
# ---------------------------------------------------------------------------


@dataclass
class CompiledModel:
    """A graph ready to run any number of times (see the module docstring)."""

    graph: GraphOp
    """The graph as executed: split into sunk parts, or as given (host)."""
    evaluator: ScheduledEvaluator
    parts: list[SunkPart]
    specs: list[InputSpec] = field(default_factory=list)
    """The graph's inputs (`input_specs`), what each run is checked against."""
    host_reason: str = "dynamic dims"
    """Why the graph is host-scheduled: dynamic dims, or run-time parameters."""

    def __post_init__(self) -> None:
        self.specs = input_specs(self.graph)

    @property
    def mode(self) -> str:
        """`sink` or `host`."""
        return "host" if self.evaluator.host_scheduled else "sink"

    @property
    def trace(self) -> list[TraceEntry]:
        """What the last run did, op by op."""
        return self.evaluator.trace

    def steps(self) -> list[str]:
        """The schedule as step kinds, in order: `sunk` (a part), `fallback`
        and, under host scheduling, `host kernel`."""
        kinds = []
        host_scheduled = self.evaluator.host_scheduled
        for op in self.graph.body.block.ops:
            if op in self.evaluator.parts:
                kinds.append(ExecutionPath.SUNK.value)
            elif isinstance(op, STRUCTURAL_OPS):
                continue
            elif runs_on_host(op, host_scheduled=host_scheduled) or not host_scheduled:
                kinds.append(ExecutionPath.FALLBACK.value)
            else:
                kinds.append(ExecutionPath.HOST_KERNEL.value)
        return kinds

    def describe(self) -> str:
        """One line: the scheduling mode and, for a sunk graph, its split."""
        if self.evaluator.host_scheduled:
            if not self.parts:
                return f"host scheduling ({self.host_reason}): op by op"
            host_ops = len(self.steps()) - len(self.parts)
            return (
                f"host scheduling ({self.host_reason}): {len(self.parts)} sunk "
                f"part(s), {host_ops} host op(s)"
            )
        fallbacks = self.steps().count(ExecutionPath.FALLBACK.value)
        streams = max((part.stream_count for part in self.parts), default=1)
        return (
            f"sink scheduling: {len(self.parts)} sunk part(s), "
            f"{fallbacks} fallback op(s)"
            + (f", {streams} streams" if streams > 1 else "")
        )

    def part_lines(self) -> list[str]:
        """Per sunk part: its op count and what runs it (`jit`, `N streams`,
        `reference: why`)."""
        return [
            f"part {part.number}: {len(part.ops)} ops, {part.how}"
            for part in self.parts
        ]

    def run(self, inputs: Mapping[InputKey, np.ndarray]) -> list[np.ndarray]:
        """Run on origin-layout inputs (by `ge.data` name or index); origin outputs."""
        self.evaluator.trace = []
        bound = bind_inputs(self.graph, inputs, self.specs)
        held = self.evaluator.run(self.graph, bound)
        return [np.asarray(h.origin) for h in held]


def compile_model(
    module_or_graph: ModuleOp | GraphOp,
    weights: Weights | None = None,
    *,
    graph: str | None = None,
    target: str | None = None,
    cache_key: str | None = None,
    in_place: bool = False,
) -> CompiledModel:
    """Schedule a graph: sunk (static shapes) or host-scheduled (dynamic dims).

    `weights` map `#ge.external` keys to storage-layout arrays (the copies
    the format pipeline's constants read are derived: `storage_weights`);
    `target` (default: the module's `ge.target`) is the SoC whose C0 the
    layouts use. With `cache_key` (what identifies the graph, e.g. its model
    file's digest) the sunk parts' generated code is kept on disk for the
    next process. The graph is scheduled on a copy, or `in_place` (a copy
    the caller made for it and does not read again).
    """
    source = find_graph(module_or_graph, graph)
    check_claimed_memory(source)
    if target is None:
        target = enclosing_target(source)
    nodes = describe_nodes(source)
    laid_out = storage_weights(source, weights, target)
    evaluator = ScheduledEvaluator(laid_out, target, kernels=KernelCache(target))
    if in_place:
        scheduled = source
        evaluator.nodes = nodes
    else:
        scheduled = source.clone()
        copies = dict(zip(source.walk(), scheduled.walk(), strict=True))
        evaluator.nodes = {copies[op]: info for op, info in nodes.items()}
    run_time_parameters = has_run_time_parameters(source)
    if not (has_dynamic_dims(source) or run_time_parameters):
        parts = sink_graph(scheduled, target, cache_key)
        evaluator.parts = {part.call: part for part in parts}
        return CompiledModel(scheduled, evaluator, parts)
    # Host scheduling: only the ops that need the run's values run on the
    # host; the static subgraphs between them are sunk, one part each.
    inputs_known = all(-1 not in spec.shape for spec in input_specs(source))
    why = (
        "run-time parameters"
        if inputs_known and run_time_parameters
        else "dynamic dims"
    )
    evaluator.host_scheduled = True
    parts = sink_graph(scheduled, target, cache_key, needs_run_time_values)
    evaluator.parts = {part.call: part for part in parts}
    return CompiledModel(scheduled, evaluator, parts, host_reason=why)
