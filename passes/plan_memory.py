"""`plan-memory`: every intermediate value gets a byte offset in one arena.

SPEC §9 (InfiniTensor's `GraphObj::dataMalloc`). On each graph of static
shapes, in block order (a topological order): a result is
allocated at the step of its op and freed after its last use; graph outputs
live to the end; `ge.data`, `ge.const` and `ge.variable` results are pinned
outside the arena. Sizes are storage bytes (padding included), rounded up to
`ALIGNMENT` (32). Two rules let values share bytes:

- a view (`ge.identity` with an unchanged type) is its operand's buffer;
- in place (`in-place=true`, the default): an elementwise op's result takes
  the buffer of an operand of the same type, no padding, that dies at the op.

All strategies of `passes.memory_planning` run (InfiniTensor's first-fit free
list is the baseline) and the smallest arena wins, unless `strategy=NAME`.

```mlir
ge.graph @main {
  %0 = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %1 = ge.relu %0 : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %2 = ge.exp %1 : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  ge.netoutput %2 : tensor<1x16x8x8xf32>
}
// after plan-memory (%2 overwrites %1 in place):
ge.graph @main attributes {ge.arena_size = 4096 : i64, ge.memory_report = {...}} {
  %1 = ge.relu %0 {ge.mem_offset = array<i64: 0>} : ...
  %2 = ge.exp %1 {ge.mem_offset = array<i64: 0>} : ...
```

Streams (`assign-streams`): ops of different streams may run at the same
time, so liveness follows the happens-before order of the events
(`passes.stream_planning.StreamOrder`) rather than the block order: a buffer
stays live until the last step of an op not ordered after all of its
accesses, and an op overwrites an operand in place only if every other
access of that operand is ordered before it. The plan is then valid in
every interleaving the events allow (`passes.stream_planning.check_stream_plan`).

Engine subgraphs (`ge.partitioned_call` from `partition-engines`) are seen
inlined, as the scheduler sinks them; their ops get offsets in the one
arena. So do the values of control-flow subgraphs (`ge.if`, `ge.case`,
`ge.while` branches and bodies), at their steps in the order the graph runs
(`memory_planning.program_order`): a subgraph runs between its op's step
and its op's last step, the op's operands and results live through all of
it, and a while body's values (rewritten each iteration) live within one.
Graphs with dynamic shapes are left without a plan: their dynamic ops run
one by one on the host, and the static parts the scheduler sinks between
them are planned then, each as a graph (`plan_sunk_graph`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.limits import INT64_MAX
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    FusedOp,
    GraphOp,
    NetOutputOp,
    PartitionedCallOp,
    enclosing_target,
)
from ge_dialect.traits import MayRunInPlace, ViewOp
from passes.memory_planning import (
    ARENA_ATTRIBUTE,
    NOT_IN_ARENA,
    OFFSET_ATTRIBUTE,
    PINNED_OPS,
    REPORT_ATTRIBUTE,
    STRATEGIES,
    Buffer,
    MemoryReport,
    align,
    plan_buffers,
    program_order,
    value_bytes,
)
from passes.options import check_choice_option
from passes.outlining import inline_partitioned_calls
from passes.stream_planning import StreamOrder, stream_order


@dataclass
class GraphPlan:
    """The plan of one graph: each arena value's offset, and the report."""

    offsets: dict[SSAValue, int]
    report: MemoryReport

    @property
    def arena_size(self) -> int:
        """Bytes of the arena."""
        return self.report.peak_bytes


def unplanned_reason(graph: GraphOp) -> str | None:
    """Why the graph's values cannot be planned (None: they can): a value of
    a dynamic shape or not a tensor, subgraphs of control flow included."""
    for op in program_order(graph)[0]:
        for value in op.results:
            tensor = value.type
            if not isinstance(tensor, TensorType):
                return f"'{op.name}' has a non-tensor result"
            if any(d < 0 for d in tensor.get_shape()):
                return f"'{op.name}' has a dynamic shape"
    return None


def unsunk_reason(graph: GraphOp) -> str | None:
    """Why the graph runs op by op instead of sunk (None: it is sunk)."""
    for op in graph.body.block.ops:
        if op.regions and not isinstance(op, FusedOp):  # a fused group is one op
            return f"'{op.name}' has subgraphs (control flow)"
        for value in op.results:
            tensor = value.type
            if not isinstance(tensor, TensorType):
                return f"'{op.name}' has a non-tensor result"
            if any(d < 0 for d in tensor.get_shape()):
                return f"'{op.name}' has a dynamic shape"
    return None


@dataclass
class Liveness:
    """Buffers of a graph's values in block order, with views and in-place reuse."""

    target: str | None
    in_place: bool
    order: StreamOrder | None = None
    """Happens-before of the graph's streams (None: the block order)."""
    last_use: dict[SSAValue, int] = field(default_factory=dict)
    buffer_of: dict[SSAValue, int] = field(default_factory=dict)
    buffers: list[list[int]] = field(default_factory=list)  # [size, first, last]
    accesses: list[list[Operation]] = field(default_factory=list)
    """Per buffer: the ops writing or reading it (graph outputs excepted)."""

    def run(self, graph: GraphOp) -> None:
        """Assign every arena value of `graph` to a buffer (the values of
        control-flow subgraphs included, at their steps in `program_order`)."""
        ops, last = program_order(graph)
        for op in ops:
            for value in op.operands:
                is_output = isinstance(op, NetOutputOp) and op.parent_op() is graph
                self.last_use[value] = len(ops) if is_output else last[op]
        for step, op in enumerate(ops):
            if not isinstance(op, (*PINNED_OPS, NetOutputOp)):
                for value in op.results:
                    self._place(op, step, value, last[op])
        if self.order is not None:
            for buffer, accesses in zip(self.buffers, self.accesses, strict=True):
                buffer[2] = max(buffer[2], self.order.release_step(accesses))

    def _place(self, op: Operation, step: int, value: SSAValue, end: int) -> None:
        """Place `value`, produced at `step` by `op` (which runs until `end`:
        a control-flow op's results are written by its subgraphs)."""
        last = max(self.last_use.get(value, end), end)
        accesses = [op, *(u.operation for u in value.uses)]
        accesses = [a for a in accesses if not isinstance(a, NetOutputOp)]
        shared = self._viewed(op, value)
        if shared is None and self.in_place:
            shared = self._reusable(op, step, value)
        if shared is not None:
            if shared in self.buffer_of:
                index = self.buffer_of[shared]
                self.buffer_of[value] = index
                self.buffers[index][2] = max(self.buffers[index][2], last)
                self.accesses[index] += accesses
            return  # a view of a pinned value stays outside the arena
        self.buffer_of[value] = len(self.buffers)
        self.buffers.append([align(value_bytes(value, self.target)), step, last])
        self.accesses.append(accesses)

    @staticmethod
    def _viewed(op: Operation, value: SSAValue) -> SSAValue | None:
        if op.has_trait(ViewOp) and op.operands[0].type == value.type:
            return op.operands[0]
        return None

    def _reusable(self, op: Operation, step: int, value: SSAValue) -> SSAValue | None:
        """An operand whose buffer dies at this op and fits `value` exactly."""
        if not op.has_trait(MayRunInPlace) or len(op.results) != 1:
            return None
        if value_bytes(value, self.target) != _unpadded_bytes(value):
            return None  # the lowering zero-fills padding when it allocates
        for operand in op.operands:
            index = self.buffer_of.get(operand)
            if index is not None and operand.type == value.type:
                if self.buffers[index][2] == step and self._ordered_before(index, op):
                    return operand
        return None

    def _ordered_before(self, index: int, op: Operation) -> bool:
        """Whether every access of buffer `index` happens before `op` (or is it)."""
        return self.order is None or self.order.all_before(self.accesses[index], op)


def _unpadded_bytes(value: SSAValue) -> int:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    itemsize = numpy_dtype(dtype_name(tensor.element_type)).itemsize
    return math.prod(tensor.get_shape()) * itemsize


def plan_graph(
    graph: GraphOp,
    target: str | None = None,
    strategy: str | None = None,
    in_place: bool = True,
) -> GraphPlan:
    """Plan a graph's arena (see the module docstring); IR unchanged."""
    liveness = Liveness(target, in_place, stream_order(graph))
    liveness.run(graph)
    total = sum(size for size, _, _ in liveness.buffers)
    if total > INT64_MAX:  # the offsets of any plan are below the total
        raise error_at(graph, f"its buffers take {total} bytes, past int64 offsets")
    buffers = [Buffer(size, first, last) for size, first, last in liveness.buffers]
    offsets, report = plan_buffers(buffers, strategy)
    return GraphPlan(
        {value: offsets[index] for value, index in liveness.buffer_of.items()},
        report,
    )


def annotate(graph: GraphOp, plan: GraphPlan) -> None:
    """Write the plan into the graph's attributes."""
    for op in program_order(graph)[0]:
        if isinstance(op, (*PINNED_OPS, NetOutputOp)) or not op.results:
            continue
        offsets = [plan.offsets.get(v, NOT_IN_ARENA) for v in op.results]
        op.attributes[OFFSET_ATTRIBUTE] = DenseArrayBase.from_list(i64, offsets)
    graph.attributes[ARENA_ATTRIBUTE] = IntegerAttr(plan.arena_size, i64)
    graph.attributes[REPORT_ATTRIBUTE] = _dictionary(plan.report.as_dict())


def _dictionary(values: Mapping[str, object]) -> DictionaryAttr:
    entries: dict[str, Attribute] = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            entries[key] = _dictionary(value)
        elif isinstance(value, str):
            entries[key] = StringAttr(value)
        else:
            assert isinstance(value, int)
            entries[key] = IntegerAttr(value, i64)
    return DictionaryAttr(entries)


def sunk_view(graph: GraphOp) -> tuple[GraphOp, dict[Operation, Operation]]:
    """The graph as sunk: a clone with `ge.partitioned_call` engine subgraphs
    inlined (as the scheduler does), and the original of each cloned op."""
    clone = graph.clone()
    originals = dict(zip(clone.walk(), graph.walk(), strict=True))
    inline_partitioned_calls(clone.body.block)
    return clone, originals


def plan_sunk_graph(
    graph: GraphOp,
    target: str | None = None,
    strategy: str | None = None,
    in_place: bool = True,
) -> GraphPlan | None:
    """Plan `graph` as sunk and write the plan into it (ops inside engine
    and control-flow subgraphs included); None, unchanged, if its values
    cannot be planned (`unplanned_reason`). A graph without engine
    subgraphs (a sunk part) is as sunk: planned as it is, not a copy."""
    calls = any(isinstance(op, PartitionedCallOp) for op in graph.walk())
    view, originals = sunk_view(graph) if calls else (graph, None)
    if unplanned_reason(view) is not None:
        return None
    plan = plan_graph(view, target, strategy, in_place)
    annotate(view, plan)
    if originals is not None:
        for op in view.walk():
            if OFFSET_ATTRIBUTE in op.attributes:
                offsets = op.attributes[OFFSET_ATTRIBUTE]
                originals[op].attributes[OFFSET_ATTRIBUTE] = offsets
        for name in (ARENA_ATTRIBUTE, REPORT_ATTRIBUTE):
            graph.attributes[name] = view.attributes[name]
    return plan


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Give every intermediate value of each sunk graph an offset in one arena."""

    name = "plan-memory"

    strategy: str | None = None
    """Force one strategy of `passes.memory_planning.STRATEGIES` (default: the best)."""

    in_place: bool = True
    """Let elementwise results overwrite an operand that dies at their op."""

    def __post_init__(self) -> None:
        check_choice_option(self, "strategy", self.strategy, STRATEGIES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = enclosing_target(op)
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                plan_sunk_graph(graph, target, self.strategy, self.in_place)
