"""The kernel runtime: a static graph op by op, in one memory arena (SPEC §9).

InfiniTensor's `CpuRuntimeObj::run` with its data allocation: every
intermediate value is a view into one arena at the offset of the graph's
memory plan (`plan-memory`'s attributes, or planned now if the graph has
none); graph inputs (laid out in their storage formats) and weights are
pinned outside it. Each op runs one kernel of the registry
(`ge_runtime.engines.kernels`) on storage-layout arrays, chosen per op:

1. the user's selection, by node name or op type (`{"conv1": "jit",
   "ge.conv2d": "im2col"}`);
2. else the performance engine (`ge_runtime.engines.tuning.PerfEngine`), if given;
3. else the default (first) candidate.

An identity that views its operand runs no kernel. With a `Profiler` each
kernel call is timed by op type; with a `DumpWriter` every result (and each
graph input) is dumped in origin layout as it is produced.

```python
runtime = Runtime(graph, weights, selection={"ge.conv2d": "im2col"})
(y,) = runtime.run({"x": x})
```

Graphs with control flow or dynamic shapes are rejected (the scheduler runs
them); `ge.partitioned_call` engine subgraphs are inlined first.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr, StringType
from ge_dialect.constants import inline_stored_array
from ge_dialect.diagnostics import GEError
from ge_dialect.limits import check_claimed_memory, over_budget
from ge_dialect.locations import error_at
from ge_dialect.naming import node_labels
from ge_dialect.ops import ConstOp, DataOp, GraphOp, NetOutputOp, VariableOp
from ge_dialect.relayout import ValueLayout
from ge_dialect.traits import ViewOp
from ge_dialect.value_layout import value_layout
from ge_runtime.engines.dump import INPUT_OP, DumpWriter
from ge_runtime.engines.kernels import KERNELS, KernelCall, KernelInfo, KernelRegistry
from ge_runtime.engines.tuning import PerfEngine
from ge_runtime.graph_io import bind_inputs
from ge_runtime.offline.timing import Profiler
from ge_runtime.run_inputs import InputKey, Weights
from passes.memory_planning import (
    check_graph_plan,
    read_plan,
    value_storage_shape,
)
from passes.outlining import inline_partitioned_calls
from passes.plan_memory import plan_graph, unsunk_reason


@dataclass
class Step:
    """One op as the runtime executes it: layouts, shapes, node name, kernel."""

    op: Operation
    label: str
    input_layouts: list[ValueLayout]
    output_layouts: list[ValueLayout]
    input_shapes: list[tuple[int, ...]]
    output_shapes: list[tuple[int, ...]]
    output_buffers: list[Buffer]
    views_operand: bool
    kernel: KernelInfo | None = None


@dataclass(frozen=True)
class Buffer:
    """Where a result lives: storage shape, dtype, arena offset (None: own array)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    offset: int | None

    @property
    def nbytes(self) -> int:
        """Bytes of the result."""
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def new(self) -> np.ndarray:
        """A fresh array for the result."""
        return np.empty(self.shape, self.dtype)

    def view(self, arena: np.ndarray) -> np.ndarray:
        """The result's array: its view of the arena (a fresh one if unplanned)."""
        if self.offset is None:
            return self.new()
        return (
            arena[self.offset : self.offset + self.nbytes]
            .view(self.dtype)
            .reshape(self.shape)
        )


def runnable_graph(graph: GraphOp) -> GraphOp:
    """The graph as the runtime runs it: a clone with engine subgraphs inlined.

    GEError if it has control flow or dynamic shapes.
    """
    clone = graph.clone()
    inline_partitioned_calls(clone.body.block)
    reason = unsunk_reason(clone) or _string_reason(clone)
    if reason is not None:
        raise error_at(graph, f"cannot run on the kernel runtime: {reason}")
    return clone


def _string_reason(graph: GraphOp) -> str | None:
    """Why string values keep the graph off the runtime's one arena."""
    for op in graph.body.block.ops:
        for value in op.results:
            if isinstance(value.type, TensorType) and isinstance(
                value.type.element_type, StringType
            ):
                return f"'{op.name}' makes strings, which have no place in its arena"
    return None


def _shape(value: SSAValue) -> tuple[int, ...]:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tuple(tensor.get_shape())


@dataclass
class Runtime:
    """Runs a static graph op by op through the kernel registry (see above)."""

    graph: GraphOp
    weights: Weights = field(default_factory=dict)
    target: str | None = None
    registry: KernelRegistry = field(default_factory=lambda: KERNELS)
    selection: Mapping[str, str] = field(default_factory=dict)
    engine: PerfEngine | None = None
    profiler: Profiler | None = None
    dumper: DumpWriter | None = None

    def __post_init__(self) -> None:
        self.graph = runnable_graph(self.graph)
        check_claimed_memory(self.graph)
        planned = read_plan(self.graph)
        if planned is not None:
            check_graph_plan(self.graph, self.target)  # a stale plan is an error
        else:
            plan = plan_graph(self.graph, self.target)
            planned = plan.arena_size, plan.offsets
        self.arena_size, self.offsets = planned
        if (reason := over_budget(self.arena_size, "the memory arena")) is not None:
            raise error_at(self.graph, reason)
        self.steps = [self._step(op, label) for op, label in self._labelled_ops()]
        self._check_selection()
        self.pinned = {
            op.results[0]: self._constant(op)
            for op in self.graph.body.block.ops
            if isinstance(op, ConstOp | VariableOp)
        }

    def _check_selection(self) -> None:
        """Every selection key names a node or an op type of the graph."""
        known = {step.label for step in self.steps}
        for step in self.steps:
            known |= {step.op.name, step.op.name.removeprefix("ge.")}
        for key in self.selection:
            if key not in known:
                raise GEError(
                    f"error: kernel selection '{key}' names no node or op type "
                    f"of graph @{self.graph.sym_name.data}"
                )

    def _labelled_ops(self) -> list[tuple[Operation, str]]:
        labels = node_labels(self.graph)
        return [
            (op, labels[op])
            for op in self.graph.body.block.ops
            if not isinstance(op, DataOp | ConstOp | VariableOp | NetOutputOp)
        ]

    def _step(self, op: Operation, label: str) -> Step:
        views = (
            op.has_trait(ViewOp)
            and op.operands[0].type == op.results[0].type
            and self.offsets.get(op.results[0]) == self.offsets.get(op.operands[0])
        )
        return Step(
            op,
            label,
            [value_layout(v, self.target) for v in op.operands],
            [value_layout(v, self.target) for v in op.results],
            [_shape(v) for v in op.operands],
            [_shape(v) for v in op.results],
            [self._buffer(v) for v in op.results],
            views,
        )

    def _buffer(self, value: SSAValue) -> Buffer:
        buffer = Buffer(
            value_storage_shape(value, self.target),
            expected_dtype(value.type),
            self.offsets.get(value),
        )
        if (
            buffer.offset is not None
            and buffer.offset + buffer.nbytes > self.arena_size
        ):
            raise error_at(value.owner, "memory plan: the result overflows the arena")  # type: ignore[arg-type]
        return buffer

    def _constant(self, op: ConstOp | VariableOp) -> np.ndarray:
        if isinstance(op, VariableOp):
            key = op.var_name.data
        elif isinstance(op.value, ExternalDataAttr):
            key = op.value.key.data
        else:
            return inline_stored_array(op, self.target)
        if key not in self.weights:
            raise error_at(op, f"weight '{key}' is not in the weights")
        return np.asarray(self.weights[key])

    # -- running --------------------------------------------------------------

    def run(self, inputs: Mapping[InputKey, np.ndarray]) -> list[np.ndarray]:
        """Run on origin-layout inputs (by `ge.data` name or index)."""
        arena = np.empty(self.arena_size, np.uint8)
        values: dict[SSAValue, np.ndarray] = dict(self.pinned)
        bound = bind_inputs(self.graph, inputs)
        for data in self.graph.inputs():
            array = bound[data.index_value]
            values[data.output] = value_layout(data.output, self.target).store(array)
            if self.dumper is not None:
                name = data.attributes.get("name")
                index = data.index_value
                label = name.data if isinstance(name, StringAttr) else f"input_{index}"
                self.dumper.add(label, INPUT_OP, [array])
        try:
            self._execute_steps(values, arena)
        finally:
            if self.engine is not None:
                self.engine.save()
        outputs = []
        for value in self.graph.output.operands:
            layout = value_layout(value, self.target)
            outputs.append(np.array(layout.load(values[value], _shape(value))))
        return outputs

    def _execute_steps(
        self, values: dict[SSAValue, np.ndarray], arena: np.ndarray
    ) -> None:
        """Run every step, in block order (`engines.streams` runs streams)."""
        for step in self.steps:
            self._execute(step, values, arena)

    def _execute(
        self, step: Step, values: dict[SSAValue, np.ndarray], arena: np.ndarray
    ) -> None:
        op = step.op
        inputs = [values[v] for v in op.operands]
        if step.views_operand:
            values[op.results[0]] = inputs[0]
            outputs = inputs[:1]
        else:
            outputs = [buffer.view(arena) for buffer in step.output_buffers]
            call = self._call(step, inputs, outputs)
            kernel = step.kernel or self._choose(step, inputs)
            start = time.perf_counter()
            kernel.function(call)
            if self.profiler is not None:
                self.profiler.record(op.name, time.perf_counter() - start)
            values.update(zip(op.results, outputs, strict=True))
        if self.dumper is not None:
            origins = [
                layout.load(array, shape)
                for layout, array, shape in zip(
                    step.output_layouts, outputs, step.output_shapes, strict=True
                )
            ]
            self.dumper.add(step.label, op.name, origins, step.output_layouts, outputs)

    def _call(
        self, step: Step, inputs: list[np.ndarray], outputs: list[np.ndarray]
    ) -> KernelCall:
        return KernelCall(
            step.op,
            inputs,
            outputs,
            step.input_layouts,
            step.output_layouts,
            step.input_shapes,
            step.output_shapes,
            self.target,
        )

    def _choose(self, step: Step, inputs: list[np.ndarray]) -> KernelInfo:
        """Pick the step's kernel once: selection, engine, else the default."""
        op = step.op
        wanted = self.selection.get(step.label) or self.selection.get(
            op.name, self.selection.get(op.name.removeprefix("ge."))
        )
        if wanted is not None:
            step.kernel = self.registry.named(op, wanted)
        elif self.engine is not None:
            candidates = self.registry.candidates(op)

            def scratch_call() -> KernelCall:
                outputs = [buffer.new() for buffer in step.output_buffers]
                return self._call(step, inputs, outputs)

            step.kernel = self.engine.choose(op, candidates, scratch_call)
        else:
            step.kernel = self.registry.candidates(op)[0]
        return step.kernel
