"""`assign-streams`: GE's stream allocation — independent branches on streams.

Every computing op of a sunk graph (static shapes, no control flow; engine
subgraphs seen inlined, as the scheduler sinks them) gets a stream, so that
independent branches (Inception's towers, ResNet's shortcut convolutions)
run concurrently, and every dependency across streams gets an event: the
producer records it when it has finished, the consumer waits for it before
it starts (GE's Send/Recv pairs). The plan's attributes and semantics are
those of `ge_runtime.engines.streams`.

```mlir
ge.graph @main {
  %a = ge.conv2d %x, %w1 {data_format = "NCHW"} ...   // branch 1
  %b = ge.conv2d %x, %w2 {data_format = "NCHW"} ...   // branch 2
  %c = ge.add %a, %b ...
  ge.netoutput %c ...
}
// after assign-streams{max-streams=2}:
ge.graph @main attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64} {
  %a = ge.conv2d %x, %w1 {..., ge.stream_id = 0 : i64} ...
  %b = ge.conv2d %x, %w2 {..., ge.stream_id = 1 : i64, ge.record_events = array<i64: 0>}
  %c = ge.add %a, %b {ge.stream_id = 0 : i64, ge.wait_events = array<i64: 0>} ...
  ge.netoutput %c ...
}
```

Streams come from list scheduling in block order on a static cost model
(each op's `work()`, `LAUNCH_US`, `EVENT_US`): each op goes to the stream where it
could start first (an operand from another stream costs an event), ties
to a producer's stream, then the lowest stream; so a chain stays on one
stream and only ops that really overlap are spread. `ge.stream_count` is
the number of streams used (at most `max-streams`; one stream is the
sequential block order, with no events).

Events are only added where needed: none within a stream, and none for a
dependency already implied by stream order and other events (vector
clocks, `passes.stream_planning.StreamOrder`; the latest producer is waited
for first, as it implies the most). Removing any event lets some consumer
run before its producer.

Run `plan-memory` after this pass: its buffers then stay live until every
later op is ordered after their last access, so the plan is valid under
every interleaving the events allow (`passes.stream_planning.check_stream_plan`).
Graphs that are not sunk are left unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.ops import GEOperation, GraphOp
from ge_dialect.traits import ViewOp
from passes.options import check_range_option
from passes.plan_memory import sunk_view, unsunk_reason
from passes.stream_planning import (
    EVENT_COUNT_ATTRIBUTE,
    RECORD_ATTRIBUTE,
    STREAM_ATTRIBUTE,
    STREAM_COUNT_ATTRIBUTE,
    WAIT_ATTRIBUTE,
    StreamOrder,
    scheduled_ops,
    without_streams,
)

LAUNCH_US = 20.0
"""Estimated time to dispatch one kernel, in microseconds."""
EVENT_US = 50.0
"""Estimated cost of an event (record, wake the waiting stream)."""
WORK_PER_US = 1000.0
"""Multiply-adds (or elements visited) per microsecond."""


def _elements(value: SSAValue) -> int:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return math.prod(tensor.get_shape())


def cost_us(op: Operation) -> float:
    """The estimated run time of `op` in microseconds (a view runs nothing)."""
    if op.has_trait(ViewOp) and op.operands[0].type == op.results[0].type:
        return 0.0
    if isinstance(op, GEOperation):
        return LAUNCH_US + op.work() / WORK_PER_US
    values = [*op.operands, *op.results]
    return LAUNCH_US + sum(_elements(v) for v in values) / WORK_PER_US


def producers(op: Operation, placed: Mapping[Operation, int]) -> list[Operation]:
    """The placed ops whose results `op` reads, each once, in `placed` order."""
    found = {v.owner for v in op.operands if v.owner in placed}
    return sorted(found, key=placed.__getitem__)  # type: ignore[arg-type]


def schedule(
    ops: Sequence[Operation], max_streams: int
) -> tuple[dict[Operation, int], float]:
    """Each op's stream, by list scheduling on `cost_us` (module docstring),
    and the estimated time until the last op finishes."""
    stream: dict[Operation, int] = {}
    finish: dict[Operation, float] = {}
    free = [0.0] * max_streams
    for op in ops:
        inputs = producers(op, stream)
        start = [
            max([free[s], *(finish[p] + EVENT_US * (stream[p] != s) for p in inputs)])
            for s in range(max_streams)
        ]
        own = {stream[p] for p in inputs}
        chosen = min(range(max_streams), key=lambda s: (start[s], s not in own, s))
        stream[op] = chosen
        finish[op] = free[chosen] = start[chosen] + cost_us(op)
    return stream, max(free)


def events(
    ops: Sequence[Operation], stream: Mapping[Operation, int], count: int
) -> list[tuple[Operation, Operation]]:
    """The (recorder, waiter) pairs the schedule needs, none implied by others."""
    order = StreamOrder(count)
    position = {op: i for i, op in enumerate(ops)}
    pairs: list[tuple[Operation, Operation]] = []
    for op in ops:
        waits: list[Operation] = []
        for producer in reversed(producers(op, position)):
            if stream[producer] == stream[op]:
                continue
            if not order.before(producer, order.next_clock(stream[op], waits)):
                waits.append(producer)
        order.add(op, stream[op], waits)
        pairs += [(producer, op) for producer in reversed(waits)]
    return pairs


@dataclass(frozen=True)
class StreamAssignment:
    """Streams and events of one graph."""

    count: int
    """Streams used."""
    stream: dict[Operation, int]
    events: list[tuple[Operation, Operation]]
    """(recorder, waiter) of each event, by event id."""
    makespan_us: float
    """The cost model's estimate of the run time."""


def assign_graph(graph: GraphOp, max_streams: int) -> StreamAssignment:
    """Assign the (sunk, inlined) graph's ops to streams and events; IR unchanged.

    Streams are used in order (an unused stream is never better than a lower
    unused one), so the streams used are 0 .. count - 1.
    """
    ops = scheduled_ops(graph)
    stream, makespan = schedule(ops, max_streams)
    count = max(stream.values(), default=0) + 1
    return StreamAssignment(count, stream, events(ops, stream, count), makespan)


def annotate(
    graph: GraphOp,
    assignment: StreamAssignment,
    original: Mapping[Operation, Operation],
) -> None:
    """Write the assignment on the ops (`original[op]`) and the graph."""
    records: dict[Operation, list[int]] = {}
    waits: dict[Operation, list[int]] = {}
    for event, (recorder, waiter) in enumerate(assignment.events):
        records.setdefault(recorder, []).append(event)
        waits.setdefault(waiter, []).append(event)
    for op, stream in assignment.stream.items():
        target = original[op]
        target.attributes[STREAM_ATTRIBUTE] = IntegerAttr(stream, i64)
        for name, ids in ((RECORD_ATTRIBUTE, records), (WAIT_ATTRIBUTE, waits)):
            if op in ids:
                target.attributes[name] = DenseArrayBase.from_list(i64, ids[op])
    graph.attributes[STREAM_COUNT_ATTRIBUTE] = IntegerAttr(assignment.count, i64)
    graph.attributes[EVENT_COUNT_ATTRIBUTE] = IntegerAttr(len(assignment.events), i64)


def assign_sunk_graph(graph: GraphOp, max_streams: int) -> StreamAssignment | None:
    """Assign `graph` as sunk and write the plan into it (ops inside engine
    subgraphs included); None, unchanged, if the graph is not sunk."""
    view, originals = sunk_view(graph)
    if unsunk_reason(view) is not None:
        return None
    for op in graph.walk():
        without_streams(op)
    assignment = assign_graph(view, max_streams)
    annotate(graph, assignment, originals)
    return assignment


MAX_STREAMS = 1024
"""The most streams `max-streams` may ask for."""


@dataclass(frozen=True)
class AssignStreamsPass(ModulePass):
    """Put independent ops of each sunk graph on separate streams, with events."""

    name = "assign-streams"

    max_streams: int = 2
    """The most streams a graph may use (1: sequential, the block order), at
    most `MAX_STREAMS`."""

    def __post_init__(self) -> None:
        check_range_option(self, "max_streams", self.max_streams, 1, MAX_STREAMS)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                assign_sunk_graph(graph, self.max_streams)
