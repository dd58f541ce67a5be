"""The stream plan: its form in the IR, happens-before and a race checker
(GE's stream allocation; `assign-streams` writes the plan,
`ge_runtime.engines.streams` runs it).

The plan lives in the IR. Each computing op of a sunk graph has a stream;
an op that must wait for an op of another stream waits for an event that
op records when it has finished (GE's Send/Recv pairs, one event per pair):

```mlir
ge.graph @main attributes {ge.stream_count = 2 : i64, ge.event_count = 1 : i64} {
  %a = ge.relu %x {ge.stream_id = 0 : i64, ge.record_events = array<i64: 0>} : ...
  %b = ge.exp %x {ge.stream_id = 1 : i64} : ...
  %c = ge.add %a, %b {ge.stream_id = 1 : i64, ge.wait_events = array<i64: 0>} : ...
  ge.netoutput %c : ...
}
```

Semantics: a stream runs its ops in block order; an op starts once every
event of its `ge.wait_events` is recorded, and records its
`ge.record_events` when it has finished; the graph's outputs are read after
every stream has finished. Contract (checked by `read_streams`): each event
is recorded by one op, before (in block order) every op waiting for it, so
the block order is one legal execution order and no plan can deadlock.

An op *happens before* another when a chain of stream-order and event edges
leads from one to the other. `StreamOrder` answers that by vector clocks;
the memory planner (`passes.plan_memory`) uses it to keep a buffer live
until every later op is ordered after all of its accesses, and
`assign-streams` to leave out events already implied by others.

`check_stream_plan` is the independent checker: its own reachability over
the explicit edge graph (bitsets) proves that (1) every operand is written
before it is read, and (2) two values sharing arena bytes never interleave:
the second writer is ordered after every access of the first value, or
before its writer (an elementwise op may overwrite the operand it reads,
the in-place rule). Ordered pairs are then the same in every interleaving
the events allow, so a plan it accepts computes the same bytes on every
run; a plan it rejects has an interleaving that reads a clobbered value.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr
from xdsl.ir import Operation, SSAValue

from ge_dialect.diagnostics import GEError
from ge_dialect.locations import error_at
from ge_dialect.naming import node_labels
from ge_dialect.ops import GraphOp, NetOutputOp, PartitionedCallOp
from ge_dialect.traits import MayRunInPlace, ViewOp
from passes.memory_planning import (
    PINNED_OPS,
    read_plan,
    value_bytes,
)
from passes.outlining import inline_partitioned_calls

STREAM_ATTRIBUTE = "ge.stream_id"
"""Per computing op: the stream that runs it."""
RECORD_ATTRIBUTE = "ge.record_events"
"""Per op: the events it records when it has finished."""
WAIT_ATTRIBUTE = "ge.wait_events"
"""Per op: the events it waits for before it starts."""
STREAM_COUNT_ATTRIBUTE = "ge.stream_count"
"""Per graph: the number of streams."""
EVENT_COUNT_ATTRIBUTE = "ge.event_count"
"""Per graph: the number of events."""

OP_ATTRIBUTES = (STREAM_ATTRIBUTE, RECORD_ATTRIBUTE, WAIT_ATTRIBUTE)
GRAPH_ATTRIBUTES = (STREAM_COUNT_ATTRIBUTE, EVENT_COUNT_ATTRIBUTE)


# ---------------------------------------------------------------------------
# The plan in the IR
# ---------------------------------------------------------------------------


def scheduled_ops(graph: GraphOp) -> list[Operation]:
    """The ops a stream runs, in block order (not inputs, weights, the output)."""
    return [
        op
        for op in graph.body.block.ops
        if not isinstance(op, (*PINNED_OPS, NetOutputOp))
    ]


@dataclass(frozen=True)
class StreamPlan:
    """A graph's streams and events, as read from its attributes."""

    count: int
    events: int
    stream: Mapping[Operation, int]
    records: Mapping[Operation, tuple[int, ...]]
    waits: Mapping[Operation, tuple[int, ...]]
    recorder: Mapping[int, Operation]


def stream_count(graph: GraphOp) -> int | None:
    """The graph's `ge.stream_count` (None: it has no stream plan)."""
    attr = graph.attributes.get(STREAM_COUNT_ATTRIBUTE)
    if attr is None:
        return None
    return _count(graph, STREAM_COUNT_ATTRIBUTE, minimum=1)


def _count(graph: GraphOp, name: str, minimum: int) -> int:
    attr = graph.attributes.get(name)
    if not isinstance(attr, IntegerAttr) or attr.value.data < minimum:
        raise error_at(graph, f"'{name}' must be an integer >= {minimum}")
    return attr.value.data


def _event_ids(op: Operation, name: str, events: int) -> tuple[int, ...]:
    attr = op.attributes.get(name)
    if attr is None:
        return ()
    if not isinstance(attr, DenseArrayBase):
        raise error_at(op, f"'{name}' must be an i64 array")
    ids = tuple(int(v) for v in attr.get_values())
    if any(not 0 <= e < events for e in ids):
        raise error_at(op, f"'{name}' has an event outside [0, {events})")
    return ids


def read_streams(graph: GraphOp) -> StreamPlan | None:
    """The graph's stream plan (None: it has none), checked against the contract
    of the module docstring; a one-line GEError names the first violation."""
    count = stream_count(graph)
    if count is None:
        return None
    events = _count(graph, EVENT_COUNT_ATTRIBUTE, minimum=0)
    stream: dict[Operation, int] = {}
    records: dict[Operation, tuple[int, ...]] = {}
    waits: dict[Operation, tuple[int, ...]] = {}
    recorder: dict[int, Operation] = {}
    for op in scheduled_ops(graph):
        attr = op.attributes.get(STREAM_ATTRIBUTE)
        if not isinstance(attr, IntegerAttr) or not 0 <= attr.value.data < count:
            raise error_at(op, f"needs a '{STREAM_ATTRIBUTE}' in [0, {count})")
        stream[op] = attr.value.data
        waits[op] = _event_ids(op, WAIT_ATTRIBUTE, events)
        for event in waits[op]:
            if event not in recorder:
                raise error_at(
                    op, f"waits for event {event} before an earlier op records it"
                )
        records[op] = _event_ids(op, RECORD_ATTRIBUTE, events)
        for event in records[op]:
            if event in recorder:
                raise error_at(op, f"records event {event}, already recorded")
            recorder[event] = op
    return StreamPlan(count, events, stream, records, waits, recorder)


def without_streams(op: Operation) -> None:
    """Remove a stream plan's attributes from `op` (an op or a graph)."""
    for name in (*OP_ATTRIBUTES, *GRAPH_ATTRIBUTES):
        op.attributes.pop(name, None)


# ---------------------------------------------------------------------------
# Happens-before by vector clocks
# ---------------------------------------------------------------------------


@dataclass
class StreamOrder:
    """Happens-before between ops placed on streams, by vector clocks.

    `clock[op][s]` is how many ops of stream s happen before `op` or are
    `op`; so `a` happens before `b` iff `clock[b][stream(a)] > index(a)`.
    Ops are added in an order where each op's waited ops come first.
    """

    count: int
    steps: Mapping[Operation, int] = field(default_factory=dict)
    """Block position of each op (for `release_step`)."""
    lanes: list[list[Operation]] = field(init=False)
    place: dict[Operation, tuple[int, int]] = field(default_factory=dict)
    clock: dict[Operation, tuple[int, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lanes = [[] for _ in range(self.count)]

    def next_clock(self, stream: int, waits: Iterable[Operation]) -> list[int]:
        """The clock an op appended to `stream` after waiting for `waits` gets."""
        lane = self.lanes[stream]
        clock = list(self.clock[lane[-1]]) if lane else [0] * self.count
        for op in waits:
            clock = [max(a, b) for a, b in zip(clock, self.clock[op], strict=True)]
        clock[stream] = len(lane) + 1
        return clock

    def add(self, op: Operation, stream: int, waits: Iterable[Operation]) -> None:
        """Append `op` to `stream`, after the ops it waits for."""
        self.clock[op] = tuple(self.next_clock(stream, waits))
        self.place[op] = (stream, len(self.lanes[stream]))
        self.lanes[stream].append(op)

    def before(self, a: Operation, clock: Sequence[int]) -> bool:
        """Whether `a` happens before an op with `clock` (or is that op)."""
        stream, index = self.place[a]
        return clock[stream] > index

    def ordered(self, a: Operation, b: Operation) -> bool:
        """Whether `a` happens before `b`, or is `b`."""
        return self.before(a, self.clock[b])

    def all_before(self, ops: Iterable[Operation], op: Operation) -> bool:
        """Whether every op of `ops` happens before `op` (or is `op`)."""
        return all(self.ordered(a, op) for a in ops)

    @functools.cached_property
    def _columns(self) -> list[list[list[int]]]:
        """`[s][u]`: the clocks' entry s along lane u (non-decreasing)."""
        return [
            [[self.clock[op][s] for op in lane] for lane in self.lanes]
            for s in range(self.count)
        ]

    def release_step(self, accesses: Iterable[Operation]) -> int:
        """The last block step of an op not ordered after every op of `accesses`.

        After that step every op happens after all the accesses, so their
        bytes may be reused by any op placed later in block order.
        """
        last = -1
        for access in accesses:
            last = max(last, self.steps[access])
            stream, index = self.place[access]
            for lane, column in zip(self.lanes, self._columns[stream], strict=True):
                unordered = bisect.bisect_right(column, index)
                if unordered:
                    last = max(last, self.steps[lane[unordered - 1]])
        return last


def stream_order(graph: GraphOp) -> StreamOrder | None:
    """The happens-before of the graph's stream plan (None: it has none)."""
    plan = read_streams(graph)
    if plan is None:
        return None
    order = StreamOrder(
        plan.count, {op: step for step, op in enumerate(graph.body.block.ops)}
    )
    for op in scheduled_ops(graph):
        waited = [plan.recorder[event] for event in plan.waits[op]]
        order.add(op, plan.stream[op], waited)
    return order


# ---------------------------------------------------------------------------
# The independent checker
# ---------------------------------------------------------------------------


def _sunk(graph: GraphOp) -> GraphOp:
    """The graph as sunk: engine subgraphs inlined (a clone if it has any)."""
    if not any(isinstance(op, PartitionedCallOp) for op in graph.body.block.ops):
        return graph
    graph = graph.clone()
    inline_partitioned_calls(graph.body.block)
    return graph


@dataclass
class _Data:
    """A value's bytes as one piece of data: its writer, readers, range."""

    value: SSAValue
    writer: int
    start: int
    stop: int
    readers: int = 0
    """Bitset of the ops reading it (through views too)."""
    read_at_end: bool = False
    """A graph output: read after every stream finished."""


class RaceChecker:
    """Proves a graph's stream and memory plan race-free (see the module docstring)."""

    def __init__(
        self,
        graph: GraphOp,
        target: str | None = None,
        offsets: Mapping[SSAValue, int] | None = None,
    ):
        self.graph = _sunk(graph)
        self.target = target
        self.plan = read_streams(self.graph)
        self.ops = scheduled_ops(self.graph)
        self.index = {op: i for i, op in enumerate(self.ops)}
        if offsets is None:
            planned = read_plan(self.graph)
            offsets = {} if planned is None else planned[1]
        self.offsets = offsets
        self.ancestors = self._ancestors()

    def stream(self, op: Operation) -> int:
        """The op's stream (0 without a plan: the block order)."""
        return 0 if self.plan is None else self.plan.stream[op]

    def _ancestors(self) -> list[int]:
        """Per op, the bitset of ops that happen before it (its edge graph's
        ancestors: the previous op of its stream, the recorders it waits for)."""
        ancestors: list[int] = []
        previous: dict[int, int] = {}
        for i, op in enumerate(self.ops):
            preds = (
                []
                if self.plan is None
                else [self.index[self.plan.recorder[e]] for e in self.plan.waits[op]]
            )
            if (last := previous.get(self.stream(op))) is not None:
                preds.append(last)
            previous[self.stream(op)] = i
            bits = 0
            for p in preds:
                bits |= ancestors[p] | 1 << p
            ancestors.append(bits)
        return ancestors

    def happens_before(self, a: int, b: int) -> bool:
        """Whether op `a` happens before op `b` (by index)."""
        return bool(self.ancestors[b] >> a & 1)

    def check(self) -> int:
        """Raise a GEError naming the first race; return the pairs proven."""
        self._check_reads()
        return self._check_sharing(self._data())

    def _check_reads(self) -> None:
        for op in self.ops:
            for value in op.operands:
                producer = self.index.get(value.owner)  # type: ignore[arg-type]
                if producer is not None and not self.happens_before(
                    producer, self.index[op]
                ):
                    raise self._race(
                        f"{self._where(op)} reads the result of "
                        f"{self._where(self.ops[producer])} with no event ordering "
                        "it after its producer"
                    )

    def _root(self, value: SSAValue) -> SSAValue:
        """The value whose bytes `value` views (itself if it is no view)."""
        owner = value.owner
        while (
            isinstance(owner, Operation)
            and owner.has_trait(ViewOp)
            and owner.operands[0].type == value.type
            and self.offsets.get(owner.operands[0]) == self.offsets.get(value)
        ):
            value = owner.operands[0]
            owner = value.owner
        return value

    def _data(self) -> dict[SSAValue, _Data]:
        data: dict[SSAValue, _Data] = {}
        for op in self.ops:
            for value in op.results:
                root = self._root(value)
                if root is value and value in self.offsets:
                    start = self.offsets[value]
                    stop = start + value_bytes(value, self.target)
                    data[value] = _Data(value, self.index[op], start, stop)
        for op in self.graph.body.block.ops:
            for value in op.operands:
                piece = data.get(self._root(value))
                if piece is None:
                    continue
                if isinstance(op, NetOutputOp):
                    piece.read_at_end = True
                elif op in self.index:
                    piece.readers |= 1 << self.index[op]
        return data

    def _check_sharing(self, data: Mapping[SSAValue, _Data]) -> int:
        """Every pair of data sharing bytes is ordered (see the module docstring)."""
        pieces = list(data.values())
        if len(pieces) < 2:
            return 0
        start = np.array([p.start for p in pieces])
        stop = np.array([p.stop for p in pieces])
        overlap = (start[:, None] < stop[None, :]) & (start[None, :] < stop[:, None])
        np.fill_diagonal(overlap, False)
        pairs = np.argwhere(overlap)
        for i, j in pairs:
            self._check_pair(pieces[i], pieces[j])
        return len(pairs) // 2

    def _check_pair(self, old: _Data, new: _Data) -> None:
        """`new`'s writer must not clobber `old` while it may still be read."""
        writer = new.writer
        if self.happens_before(writer, old.writer):
            return  # new's bytes are written before old's: the reverse pair checks
        accesses = old.readers | 1 << old.writer
        if self._in_place(old, new):
            accesses &= ~(1 << writer)
        if old.read_at_end:
            pending = "the graph output"
        elif unordered := accesses & ~self.ancestors[writer]:
            access = self.ops[unordered.bit_length() - 1]
            pending = self._where(access)
        else:
            return
        raise self._race(
            f"{self._where(self.ops[writer])} writes "
            f"{self._describe(new)}, sharing bytes with {self._describe(old)}, "
            f"while {pending} may still access it"
        )

    def _in_place(self, old: _Data, new: _Data) -> bool:
        """The elementwise in-place rule: `new` overwrites `old` exactly, at an
        op reading `old`."""
        op = self.ops[new.writer]
        return (
            op.has_trait(MayRunInPlace)
            and old.readers >> new.writer & 1 == 1
            and (old.start, old.stop) == (new.start, new.stop)
            and old.value.type == new.value.type
        )

    def _where(self, op: Operation) -> str:
        return f"{self._label(op)} (stream {self.stream(op)})"

    def _describe(self, data: _Data) -> str:
        owner = data.value.owner
        assert isinstance(owner, Operation)
        return f"{self._label(owner)} #{data.value.index} [{data.start}, {data.stop})"

    @functools.cached_property
    def _labels(self) -> dict[Operation, str]:
        return node_labels(self.graph)

    def _label(self, op: Operation) -> str:
        return f"'{self._labels.get(op, op.name)}'"

    def _race(self, message: str) -> GEError:
        return error_at(self.graph, f"race: {message}")


def check_stream_plan(
    graph: GraphOp,
    target: str | None = None,
    offsets: Mapping[SSAValue, int] | None = None,
) -> int:
    """Prove the graph's stream plan and memory plan (`offsets`, default the
    IR's `ge.mem_offset`) race-free; return how many pairs of values sharing
    bytes it proved ordered. A GEError names the first race."""
    return RaceChecker(graph, target, offsets).check()
