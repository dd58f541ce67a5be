"""Memory planning: arena allocation strategies, the plan in the IR, a checker.

A *buffer* is a block of bytes live from the step that produces it to the step
of its last use, both inclusive (at a step the op's operands and results
coexist). A strategy gives every buffer an offset in one arena so that no two
buffers live at the same step share a byte:

- `first-fit`, the baseline: InfiniTensor's online walk (`GraphObj::
  dataMalloc` driving its `LazyAllocator` free list): steps in order,
  allocate each new buffer at the lowest free block that fits (or grow the
  arena at its end), then release the buffers whose last use was this step;
  freed neighbours merge.
- `best-fit`: the same walk taking the smallest free block that fits (the
  allocator keyed by block size, as `LazyAllocator`'s free set is).
- `greedy-by-size`: offline interval packing (as TFLite's greedy-by-size
  planner): place buffers largest first, each at the smallest gap between
  the buffers already placed that are live at the same time, else above
  them all.
- `lowest-offset`: offline bottom-up packing (the canonical order of exact
  solvers such as minimalloc, without their search): repeatedly place the
  buffer that can sit lowest, never below the previous one; ties go to the
  buffer live longest into the future.

`plan_buffers` runs them all and keeps the smallest arena. `lower_bound` is
the largest total of simultaneously live bytes: no plan can be smaller. It
is computed on the buffers as planned (aligned sizes, after views and
in-place reuse have merged values into one buffer).

The plan lives in the IR (written by the `plan-memory` pass):

```mlir
ge.graph @main attributes {ge.arena_size = 4096 : i64, ge.memory_report = {...}} {
  %1 = ge.relu %0 {ge.mem_offset = array<i64: 0>} : ...
```

`ge.mem_offset` has one byte offset per result (-1: not in the arena, e.g.
an identity view of a graph input). `read_plan` reads it back for the
lowering and the runtime, and `check_graph_plan` verifies it independently
of the planner: its own liveness from the IR, then no two simultaneously
live results may overlap, except an identity result that views its operand
and an in-place result that reuses an operand dying at its op.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.layout import storage_shape_of
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    CONTROL_FLOW_OPS,
    ConstOp,
    DataOp,
    GraphOp,
    NetOutputOp,
    PartitionedCallOp,
    VariableOp,
    attribute_to_python,
)
from ge_dialect.relayout import transfer_shape
from ge_dialect.traits import MayRunInPlace, ViewOp
from ge_dialect.value_layout import value_layout
from passes.outlining import inline_partitioned_calls

ALIGNMENT = 32
"""Byte alignment of every offset and buffer size in the arena."""

OFFSET_ATTRIBUTE = "ge.mem_offset"
"""Per op: the arena byte offset of each result (-1: not in the arena)."""
ARENA_ATTRIBUTE = "ge.arena_size"
"""Per graph: the arena size in bytes."""
REPORT_ATTRIBUTE = "ge.memory_report"
"""Per graph: the memory report (`MemoryReport.as_dict`)."""
PLAN_ATTRIBUTES = frozenset({OFFSET_ATTRIBUTE, ARENA_ATTRIBUTE, REPORT_ATTRIBUTE})
"""What `plan-memory` writes: no op's verifier reads them (a
`StageVerifier`'s annotations), the plan is checked where it is used
(`check_graph_plan`)."""
NOT_IN_ARENA = -1


PINNED_OPS = (DataOp, ConstOp, VariableOp)
"""Their results live outside the arena (graph inputs and weights)."""


def program_order(graph: GraphOp) -> tuple[list[Operation], dict[Operation, int]]:
    """The graph's ops in the order they run, with the last step of each.

    An op's step is its position. The subgraphs of a control-flow op (its
    branches, a loop's cond and body) follow it, so they run at steps after
    its own and before its last step; a fused group is one op. Values of a
    while body are rewritten each iteration, which never overlaps a use
    across iterations: loop variables are the loop's results.
    """
    order: list[Operation] = []
    last: dict[Operation, int] = {}

    def visit(block: Block) -> None:
        for op in block.ops:
            order.append(op)
            if isinstance(op, CONTROL_FLOW_OPS):
                for region in op.regions:
                    visit(region.block)
            last[op] = len(order) - 1

    visit(graph.body.block)
    return order, last


def last_uses(
    order: Sequence[Operation], last: Mapping[Operation, int]
) -> dict[SSAValue, int]:
    """The last step each value is live at: its last use (a control-flow op
    uses its operands through its last step; the graph's outputs live past
    the end), and at least its op's last step (a control-flow op's results
    are written by its subgraphs)."""
    uses: dict[SSAValue, int] = {}
    for op in order:
        outer = isinstance(op, NetOutputOp) and isinstance(op.parent_op(), GraphOp)
        step = len(order) if outer else last[op]
        for value in op.operands:
            uses[value] = max(uses.get(value, step), step)
    for op in order:
        for value in op.results:
            uses[value] = max(uses.get(value, last[op]), last[op])
    return uses


def align(size: int, alignment: int = ALIGNMENT) -> int:
    """`size` rounded up to a multiple of `alignment`."""
    return -(-size // alignment) * alignment


def value_storage_shape(value: SSAValue, target: str | None = None) -> tuple[int, ...]:
    """The storage shape of a tensor value (padding included).

    FRACTAL_Z(_3D) values take the `groups` the reference evaluator gives
    them (that of a `ge.transdata` producing or reading them).
    """
    tensor = value.type
    assert isinstance(tensor, TensorType)
    layout = value_layout(value, target)
    if layout.groups == 1:
        return storage_shape_of(tensor, target)
    return transfer_shape(
        tuple(tensor.get_shape()),
        layout.origin,
        layout.storage,
        layout.dtype,
        reshape_type=layout.reshape_type,
        groups=layout.groups,
        target=target,
    )


def value_bytes(value: SSAValue, target: str | None = None) -> int:
    """Bytes of a tensor value in its storage layout (padding included)."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    itemsize = numpy_dtype(dtype_name(tensor.element_type)).itemsize
    return math.prod(value_storage_shape(value, target)) * itemsize


# ---------------------------------------------------------------------------
# Buffers and strategies
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    """`size` bytes live from step `first` to step `last`, both inclusive."""

    size: int
    first: int
    last: int

    def meets(self, other: Buffer) -> bool:
        """Whether the two buffers are live at a common step."""
        return self.first <= other.last and other.first <= self.last


Strategy = Callable[[Sequence[Buffer]], list[int]]


class FreeList:
    """Free blocks of a growing arena, sorted by address and merged."""

    def __init__(self, choose: Callable[[list[tuple[int, int]], int], int | None]):
        self.blocks: list[tuple[int, int]] = []  # (start, size)
        self.top = 0
        self.peak = 0
        self._choose = choose

    def allocate(self, size: int) -> int:
        """The offset of a new block of `size` bytes."""
        index = self._choose(self.blocks, size)
        if index is not None:
            start, free = self.blocks.pop(index)
            if free > size:
                self.blocks.insert(index, (start + size, free - size))
            return start
        if self.blocks and sum(self.blocks[-1]) == self.top:
            start, _ = self.blocks.pop()  # the free tail grows into the new block
        else:
            start = self.top
        self.top = start + size
        self.peak = max(self.peak, self.top)
        return start

    def release(self, start: int, size: int) -> None:
        """Give a block back, merging it with free neighbours."""
        index = bisect.bisect(self.blocks, (start, size))
        end = start + size
        if index < len(self.blocks) and self.blocks[index][0] == end:
            end += self.blocks.pop(index)[1]
        if index > 0 and sum(self.blocks[index - 1]) == start:
            start = self.blocks.pop(index - 1)[0]
            index -= 1
        if end == self.top:
            self.top = start
        else:
            self.blocks.insert(index, (start, end - start))


def _first_fitting(blocks: list[tuple[int, int]], size: int) -> int | None:
    return next((i for i, (_, free) in enumerate(blocks) if free >= size), None)


def _best_fitting(blocks: list[tuple[int, int]], size: int) -> int | None:
    fitting = [(free, i) for i, (_, free) in enumerate(blocks) if free >= size]
    return min(fitting)[1] if fitting else None


def _online(choose: Callable[[list[tuple[int, int]], int], int | None]) -> Strategy:
    """An allocator walking the steps: allocate new buffers, then free dead ones."""

    def strategy(buffers: Sequence[Buffer]) -> list[int]:
        arena = FreeList(choose)
        offsets = [0] * len(buffers)
        born: dict[int, list[int]] = {}
        dying: dict[int, list[int]] = {}
        for index, buffer in enumerate(buffers):
            born.setdefault(buffer.first, []).append(index)
            dying.setdefault(buffer.last, []).append(index)
        for step in sorted(born.keys() | dying.keys()):
            for index in born.get(step, ()):
                offsets[index] = arena.allocate(buffers[index].size)
            for index in dying.get(step, ()):
                arena.release(offsets[index], buffers[index].size)
        return offsets

    return strategy


def _greedy(key: Callable[[Buffer], Any]) -> Strategy:
    """Offline packing: buffers in `key` order, each in the tightest gap."""

    def strategy(buffers: Sequence[Buffer]) -> list[int]:
        conflicts = _conflicts(buffers)
        offsets = [0] * len(buffers)
        placed = [False] * len(buffers)
        order = sorted(range(len(buffers)), key=lambda i: (key(buffers[i]), i))
        for index in order:
            buffer = buffers[index]
            taken = sorted(
                (offsets[j], offsets[j] + buffers[j].size)
                for j in conflicts[index]
                if placed[j]
            )
            best: tuple[int, int] | None = None  # (gap, offset)
            end = 0
            for start, stop in taken:
                gap = start - end
                if gap >= buffer.size and (best is None or gap < best[0]):
                    best = (gap, end)
                end = max(end, stop)
            offsets[index] = end if best is None else best[1]
            placed[index] = True
        return offsets

    return strategy


def _conflicts(buffers: Sequence[Buffer]) -> list[list[int]]:
    """For each buffer, the buffers live at a common step with it."""
    conflicts: list[list[int]] = [[] for _ in buffers]
    order = sorted(range(len(buffers)), key=lambda i: buffers[i].first)
    for position, i in enumerate(order):
        for j in order[position + 1 :]:
            if buffers[j].first > buffers[i].last:
                break
            conflicts[i].append(j)
            conflicts[j].append(i)
    return conflicts


def _lowest_offset(buffers: Sequence[Buffer]) -> list[int]:
    """Bottom-up packing: next is the buffer that can sit lowest (offsets never
    decrease), ties to the one live longest into the future, then the larger.

    The lowest place of a buffer is `max(floor, level)`: those whose floor
    (the top of the conflicting buffers placed) is at most the level all sit
    at the level and are `ready`, ordered by the ties; the others wait
    (`waiting`) by floor. Both are heaps whose entries a rising floor makes
    stale (skipped when popped): O(conflicts log n), not O(n^2)."""
    conflicts = _conflicts(buffers)
    floor = [0] * len(buffers)
    offsets = [0] * len(buffers)
    placed = [False] * len(buffers)

    def ties(i: int) -> tuple[int, int, int]:
        return -buffers[i].last, -buffers[i].size, i

    waiting = [(0, *ties(i)) for i in range(len(buffers))]
    heapq.heapify(waiting)
    ready: list[tuple[int, int, int]] = []
    level = 0
    for _ in range(len(buffers)):
        while waiting and waiting[0][0] <= level:
            low, *tie = heapq.heappop(waiting)
            if not placed[tie[2]] and low == floor[tie[2]]:
                heapq.heappush(ready, tuple(tie))  # type: ignore[arg-type]
        index = None
        while ready:
            tie = heapq.heappop(ready)
            if not placed[tie[2]] and floor[tie[2]] <= level:
                index = tie[2]
                break
        if index is None:  # none fits at the level: the lowest floor above it
            while index is None:
                low, *tie = heapq.heappop(waiting)
                if not placed[tie[2]] and low == floor[tie[2]]:
                    index = tie[2]
        level = offsets[index] = max(floor[index], level)
        placed[index] = True
        end = level + buffers[index].size
        for other in conflicts[index]:
            if not placed[other] and end > floor[other]:
                floor[other] = end
                heapq.heappush(waiting, (end, *ties(other)))
    return offsets


STRATEGIES: dict[str, Strategy] = {
    "first-fit": _online(_first_fitting),
    "best-fit": _online(_best_fitting),
    "greedy-by-size": _greedy(lambda b: (-b.size, -(b.last - b.first))),
    "lowest-offset": _lowest_offset,
}
"""Strategy name -> offsets of the buffers (`first-fit` is the baseline)."""

BASELINE = "first-fit"


def arena_size(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The bytes an arena needs for these offsets."""
    return max((o + b.size for o, b in zip(offsets, buffers, strict=True)), default=0)


def lower_bound(buffers: Sequence[Buffer]) -> int:
    """The largest total of bytes live at one step: no arena can be smaller."""
    if not buffers:
        return 0
    steps = max(b.last for b in buffers) + 2
    delta = np.zeros(steps, dtype=np.int64)
    for buffer in buffers:
        delta[buffer.first] += buffer.size
        delta[buffer.last + 1] -= buffer.size
    return int(np.cumsum(delta).max())


@dataclass(frozen=True)
class MemoryReport:
    """What planning one graph achieved, in bytes."""

    peak_bytes: int
    lower_bound_bytes: int
    no_reuse_bytes: int
    strategy: str
    strategy_bytes: Mapping[str, int]
    buffers: int

    @property
    def first_fit_bytes(self) -> int:
        """The arena of InfiniTensor's first-fit allocator (the baseline)."""
        return self.strategy_bytes[BASELINE]

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values."""
        return {
            "peak_bytes": self.peak_bytes,
            "lower_bound_bytes": self.lower_bound_bytes,
            "no_reuse_bytes": self.no_reuse_bytes,
            "first_fit_bytes": self.first_fit_bytes,
            "strategy": self.strategy,
            "strategy_bytes": dict(self.strategy_bytes),
            "buffers": self.buffers,
        }


def check_strategy(strategy: str | None) -> None:
    """GEError unless `strategy` is None or a known strategy name."""
    if strategy is not None and strategy not in STRATEGIES:
        known = ", ".join(STRATEGIES)
        raise GEError(f"error: unknown memory strategy '{strategy}' (known: {known})")


def plan_buffers(
    buffers: Sequence[Buffer], strategy: str | None = None
) -> tuple[list[int], MemoryReport]:
    """Offsets from `strategy` (None: every strategy, the smallest arena wins)."""
    check_strategy(strategy)
    results = {name: STRATEGIES[name](buffers) for name in STRATEGIES}
    sizes = {name: arena_size(buffers, offsets) for name, offsets in results.items()}
    chosen = strategy or min(sizes, key=lambda name: (sizes[name], name != BASELINE))
    report = MemoryReport(
        peak_bytes=sizes[chosen],
        lower_bound_bytes=lower_bound(buffers),
        no_reuse_bytes=sum(b.size for b in buffers),
        strategy=chosen,
        strategy_bytes=sizes,
        buffers=len(buffers),
    )
    return results[chosen], report


# ---------------------------------------------------------------------------
# The plan in the IR
# ---------------------------------------------------------------------------


def result_offsets(op: Operation) -> list[int] | None:
    """The `ge.mem_offset` entries of an op (None: the op has none)."""
    attr = op.attributes.get(OFFSET_ATTRIBUTE)
    if attr is None:
        return None
    if not isinstance(attr, DenseArrayBase) or len(attr) != len(op.results):
        raise error_at(
            op, f"'{OFFSET_ATTRIBUTE}' must be an i64 array with one entry per result"
        )
    return [int(v) for v in attr.get_values()]


def graph_arena_size(graph: GraphOp) -> int | None:
    """The graph's planned arena size (None: the graph has no memory plan)."""
    attr = graph.attributes.get(ARENA_ATTRIBUTE)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data < 0:
        raise error_at(graph, f"'{ARENA_ATTRIBUTE}' must be a non-negative integer")
    return attr.value.data


def read_plan(graph: GraphOp) -> tuple[int, dict[SSAValue, int]] | None:
    """(arena size, arena offset of each planned value, those inside engine
    subgraphs included), or None if unplanned."""
    size = graph_arena_size(graph)
    if size is None:
        return None
    offsets: dict[SSAValue, int] = {}
    for op in graph.body.walk():
        for value, offset in zip(op.results, result_offsets(op) or (), strict=False):
            if offset != NOT_IN_ARENA:
                offsets[value] = offset
    return size, offsets


def memory_reports(ops: Sequence[Operation]) -> dict[str, dict[str, Any]]:
    """The memory report of each planned graph among `ops`, by graph name."""
    return {
        op.sym_name.data: _python(op.attributes[REPORT_ATTRIBUTE])
        for op in ops
        if isinstance(op, GraphOp) and REPORT_ATTRIBUTE in op.attributes
    }


def _python(attr: Attribute) -> Any:
    if isinstance(attr, DictionaryAttr):
        return {key: _python(value) for key, value in attr.data.items()}
    return attribute_to_python(attr)


# ---------------------------------------------------------------------------
# The independent checker
# ---------------------------------------------------------------------------


class _Groups:
    """Union-find over values that legitimately share arena bytes."""

    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def root(self, value: SSAValue) -> SSAValue:
        while (parent := self.parent.get(value, value)) is not value:
            value = parent
        return value

    def join(self, value: SSAValue, into: SSAValue) -> None:
        self.parent[self.root(value)] = self.root(into)


def check_graph_plan(graph: GraphOp, target: str | None = None) -> int:
    """Verify the graph's memory plan; return how many buffers it checked.

    Engine subgraphs are inlined first (the graph as sunk). Liveness is
    recomputed from the IR (`program_order`, control-flow subgraphs
    included; last use; graph outputs live to the end). Every result of a
    computing op must be in the arena
    (an identity view of a pinned value excepted), aligned, inside the arena
    and, unless it views or reuses in place, disjoint from every other value
    live at the same time. Raises a GEError naming the first problem.
    """
    if any(isinstance(op, PartitionedCallOp) for op in graph.walk()):
        graph = graph.clone()
        inline_partitioned_calls(graph.body.block)
    planned = read_plan(graph)
    if planned is None:
        raise error_at(graph, "has no memory plan")
    size, offsets = planned
    ops, last_steps = program_order(graph)
    position = {op: index for index, op in enumerate(ops)}
    last = last_uses(ops, last_steps)
    groups = _Groups()
    span: dict[SSAValue, list[int]] = {}
    for op in ops:
        if isinstance(op, (*PINNED_OPS, NetOutputOp)):
            continue
        for value in op.results:
            _check_placement(op, value, offsets, size, target)
            if value not in offsets:
                continue
            shared = _shared_operand(op, position[op], value, offsets, groups, span)
            live = [position[op], last[value]]
            if shared is None:
                span[value] = live
            else:
                groups.join(value, shared)
                root = span[groups.root(shared)]
                root[1] = max(root[1], live[1])
    _check_disjoint(graph, span, offsets, target)
    return len(span)


def _check_placement(
    op: Operation,
    value: SSAValue,
    offsets: Mapping[SSAValue, int],
    size: int,
    target: str | None,
) -> None:
    if value not in offsets:
        viewed = op.has_trait(ViewOp) and op.operands[0] not in offsets
        if not viewed:
            raise error_at(op, f"result #{value.index} has no arena offset")
        return
    offset = offsets[value]
    if offset % ALIGNMENT:
        raise error_at(op, f"result #{value.index} offset {offset} is not aligned")
    if offset < 0 or offset + value_bytes(value, target) > size:
        raise error_at(
            op, f"result #{value.index} at offset {offset} does not fit the arena"
        )


def _shared_operand(
    op: Operation,
    step: int,
    value: SSAValue,
    offsets: Mapping[SSAValue, int],
    groups: _Groups,
    span: Mapping[SSAValue, list[int]],
) -> SSAValue | None:
    """The operand whose bytes `value` may share: viewed, or dead after `op`."""
    for operand in op.operands:
        if offsets.get(operand) != offsets[value] or operand.type != value.type:
            continue
        if op.has_trait(ViewOp):
            return operand
        if op.has_trait(MayRunInPlace) and span[groups.root(operand)][1] == step:
            return operand
    return None


def _check_disjoint(
    graph: GraphOp,
    span: Mapping[SSAValue, list[int]],
    offsets: Mapping[SSAValue, int],
    target: str | None,
) -> None:
    """No two values live at a common step may share a byte (pairwise, NumPy)."""
    values = list(span)
    if len(values) < 2:
        return
    first = np.array([span[v][0] for v in values])
    last = np.array([span[v][1] for v in values])
    start = np.array([offsets[v] for v in values])
    stop = start + np.array([value_bytes(v, target) for v in values])
    live = (first[:, None] <= last[None, :]) & (first[None, :] <= last[:, None])
    overlap = (start[:, None] < stop[None, :]) & (start[None, :] < stop[:, None])
    clash = np.triu(live & overlap, k=1)
    if clash.any():
        i, j = (int(k) for k in np.argwhere(clash)[0])
        a, b = values[i], values[j]
        raise error_at(
            graph,
            f"memory plan: {_describe(a, offsets, target)} and "
            f"{_describe(b, offsets, target)} overlap while both are live",
        )


def _describe(value: SSAValue, offsets: Mapping[SSAValue, int], target: str | None):
    owner = value.owner
    assert isinstance(owner, Operation)
    name = owner.attributes.get("name")
    label = f"'{name.data}'" if name is not None else owner.name  # type: ignore[attr-defined]
    start = offsets[value]
    return f"{label} #{value.index} [{start}, {start + value_bytes(value, target)})"
