"""`partition-engines`: group same-engine ops into `ge.partitioned_call` subgraphs.

GE's engine placement and graph partition (SPEC §8): the op-information
library (`ge_dialect/opinfo.py`, user-extensible with `ge-opt --opinfo FILE`)
says which engine runs each op, AI Core or AI CPU. Every maximal connected
run of ops on one engine becomes the subgraph of a `ge.partitioned_call`
with an `engine` attribute:

```mlir
%r = ge.relu %x : tensor<1x1x2x3xf32> -> tensor<1x1x2x3xf32>      // AICore
%t = ge.resize %r {sizes = ..., scales = ...} : ... -> tensor<1x1x4x6xf32>  // AICPU
%y = ge.neg %t : tensor<1x1x4x6xf32> -> tensor<1x1x4x6xf32>        // AICore
```
becomes
```mlir
%0 = ge.partitioned_call %x {engine = "AICore"}
    : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32> {
  %a = ge.data {parent_index = 0 : i64} : tensor<1x1x2x3xf32>
  %r = ge.relu %a : tensor<1x1x2x3xf32> -> tensor<1x1x2x3xf32>
  ge.netoutput %r : tensor<1x1x2x3xf32>
}
%1 = ge.partitioned_call %0 {engine = "AICPU"} : ... { ... ge.resize ... }
%2 = ge.partitioned_call %1 {engine = "AICore"} : ... { ... ge.neg ... }
```

- **Groups** grow along producer-consumer edges between ops of one engine.
  Two groups merge only if the contraction keeps the graph acyclic: no path
  leaves the merged group and re-enters it (through ops or groups of another
  engine). So `a -> cpu -> c` with a direct edge `a -> c` keeps `a` and `c`
  apart even though both run on AI Core.
- **Boundaries**: a subgraph `ge.data` has exactly the type of the parent
  operand it mirrors (shape, dtype and `#ge.layout`), and each call result
  has the type of the value it carries out, so formats agree across every
  boundary. A `ge.const`/`ge.variable` whose users all fall in one group
  moves into that subgraph; one shared by several groups is passed in.
- `ge.data`, constants, `ge.netoutput` and control-flow ops stay in the
  parent (GE runs them itself); the subgraphs of `ge.if`/`ge.case`/
  `ge.while` (and of a `ge.partitioned_call` without `engine`) are
  partitioned in turn. Subgraphs that already have an engine are left
  alone, so the pass is idempotent.
- **AI CPU dtypes**: an AI CPU op whose operand or result dtype its kernel
  does not support is an error naming the op, the node and the dtypes,
  unless `insert-aicpu-cast` ran first (ATC's AutoCastMode).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.locations import error_at
from ge_dialect.naming import node_label
from ge_dialect.opinfo import Engine, op_info
from ge_dialect.ops import (
    ConstOp,
    DataOp,
    FusedOp,
    GraphOp,
    NetOutputOp,
    PartitionedCallOp,
    VariableOp,
)
from passes.transop_utils import dtype_of

ENGINE_ATTRIBUTE = "engine"
"""The `ge.partitioned_call` attribute naming the engine of its subgraph."""

STRUCTURAL_OPS = (DataOp, ConstOp, VariableOp, NetOutputOp)
"""Ops that no engine runs: graph inputs, constants and terminators."""

MOVABLE_OPS = (ConstOp, VariableOp)
"""Ops that move into the one subgraph that uses them."""

AUTO_CAST_HINT = (
    "enable AI CPU Cast insertion (ge-opt --insert-aicpu-cast, "
    "ge-atc --auto_cast_mode=1)"
)


def op_engine(op: Operation) -> Engine | None:
    """The engine the op-information library assigns to `op`.

    None for structural and control-flow ops, which GE runs itself (a
    `ge.fused` group is one AI Core op).
    """
    if isinstance(op, STRUCTURAL_OPS) or (op.regions and not isinstance(op, FusedOp)):
        return None
    return op_info(op).engine


def placed_engine(op: Operation) -> Engine | None:
    """The engine that runs `op`: its partition's `engine`, else `op_engine`."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, PartitionedCallOp) and parent.engine is not None:
            return Engine(parent.engine.data)
        parent = parent.parent_op()
    return op_engine(op)


def unsupported_dtypes(op: Operation) -> list[str]:
    """The operand and result dtypes of `op` that its kernels do not take."""
    info = op_info(op)
    dtypes = [dtype_of(v) for v in (*op.operands, *op.results)]
    return sorted({d for d in dtypes if not info.supports_dtype(d)})


def check_aicpu_dtypes(op: Operation) -> None:
    """Raise a one-line error if `op` runs on AI CPU in a dtype it lacks."""
    if op_engine(op) is not Engine.AICPU:
        return
    missing = unsupported_dtypes(op)
    if not missing:
        return
    supported = ", ".join(sorted(op_info(op).dtypes or ()))
    raise error_at(
        op,
        f"(node '{node_label(op)}') runs on AICPU, which does not support "
        f"{', '.join(missing)} (supported: {supported}); {AUTO_CAST_HINT}",
    )


# ---------------------------------------------------------------------------
# Grouping with the contraction check
# ---------------------------------------------------------------------------


@dataclass
class EngineGroups:
    """Union-find over the ops of one block, merged along same-engine edges.

    Ops are numbered in block order, which is a topological order. The
    quotient graph (one node per group) stays acyclic: `merge` refuses a
    merge when a path leaves the merged group and comes back. Each group
    keeps a place in a topological order of the quotient graph
    (`position`), so that path is searched for only among the groups placed
    between the two (the dynamic topological order of Pearce and Kelly).
    """

    ops: list[Operation]
    engines: list[Engine | None]
    users: list[set[int]] = field(init=False)
    parent: list[int] = field(init=False)
    members: dict[int, set[int]] = field(init=False)
    reached: dict[int, set[int]] = field(init=False)
    """Per group, the ops (or groups) its members' values are used by: the
    union of its members' `users`, kept through merges (`group_users`)."""
    sourced: dict[int, set[int]] = field(init=False)
    """Per group, the ops (or groups) whose values its members use, kept
    like `reached` (`group_sources`)."""
    position: list[int] = field(init=False)
    """Per group, its place in a topological order of the quotient graph:
    every edge goes to a group placed later."""

    def __post_init__(self) -> None:
        index = {op: i for i, op in enumerate(self.ops)}
        self.users = [
            {
                index[owner]
                for result in op.results
                for use in result.uses
                if (owner := _ancestor_in(use.operation, op.parent_block())) in index
            }
            for op in self.ops
        ]
        self.parent = list(range(len(self.ops)))
        self.members = {i: {i} for i in range(len(self.ops))}
        self.reached = {i: set(users) for i, users in enumerate(self.users)}
        self.sourced = {i: set() for i in range(len(self.ops))}
        for i, users in enumerate(self.users):
            for user in users:
                self.sourced[user].add(i)
        self.position = list(range(len(self.ops)))

    def find(self, i: int) -> int:
        """The representative of op `i`'s group."""
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def group_users(self, group: int) -> set[int]:
        """The groups that use a value of `group` (itself excluded)."""
        return self._linked(group, self.reached)

    def group_sources(self, group: int) -> set[int]:
        """The groups whose values `group` uses (itself excluded)."""
        return self._linked(group, self.sourced)

    def _linked(self, group: int, links: dict[int, set[int]]) -> set[int]:
        found = {self.find(linked) for linked in links[group]}
        found.discard(group)
        links[group] = found  # the same groups, found faster next time
        return found

    def _between(
        self, start: int, end: int, step: Callable[[int], set[int]]
    ) -> set[int] | None:
        """The groups placed between `start` and `end` that `start` reaches
        along `step` (`group_users` or `group_sources`), or None if one of
        them reaches `end`. Every edge goes to a later place, so a path from
        `start` to `end` passes only groups placed between them."""
        low, high = sorted((self.position[start], self.position[end]))
        frontier = [
            group
            for group in step(start)
            if group != end and low < self.position[group] < high
        ]
        seen = set(frontier)
        while frontier:
            for group in step(frontier.pop()):
                if group == end:
                    return None
                if group not in seen and low < self.position[group] < high:
                    seen.add(group)
                    frontier.append(group)
        return seen

    def merge(self, a: int, b: int) -> bool:
        """Merge group `b` into group `a` unless the quotient graph would
        have a cycle: a path from one to the other through a third group.

        The merged group takes a place after the groups between the two
        that reach the later one and before those the earlier one reaches;
        the other groups keep theirs.
        """
        first, last = sorted((a, b), key=self.position.__getitem__)
        after = self._between(first, last, self.group_users)
        if after is None:
            return False
        before = self._between(last, first, self.group_sources)
        assert before is not None, "the quotient graph had a cycle"
        places = sorted(self.position[g] for g in (*before, *after, first, last))
        ordered = [
            *sorted(before, key=self.position.__getitem__),
            a,
            *sorted(after, key=self.position.__getitem__),
        ]
        for group, place in zip(ordered, places, strict=False):
            self.position[group] = place
        self.parent[b] = a
        self.members[a] |= self.members.pop(b)
        self.reached[a] |= self.reached.pop(b)
        self.sourced[a] |= self.sourced.pop(b)
        return True

    def merge_all(self) -> None:
        """Merge same-engine neighbours until no merge is possible."""
        changed = True
        while changed:
            changed = False
            for i, engine in enumerate(self.engines):
                if engine is None:
                    continue
                for j in sorted(self.users[i]):
                    a, b = self.find(i), self.find(j)
                    if a != b and self.engines[j] == engine and self.merge(a, b):
                        changed = True

    def groups(self) -> list[list[int]]:
        """The groups of engine ops, each in block order."""
        return [
            sorted(members)
            for group, members in self.members.items()
            if self.engines[group] is not None
        ]


def _ancestor_in(op: Operation, block: Block | None) -> Operation | None:
    """`op` or its ancestor that sits directly in `block`."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


# ---------------------------------------------------------------------------
# Building the subgraphs
# ---------------------------------------------------------------------------


@dataclass
class BlockPartitioner:
    """Partitions the ops of one block and orders the result topologically."""

    block: Block

    def run(self) -> None:
        """Wrap every engine group of the block into a `ge.partitioned_call`."""
        ops = [op for op in self.block.ops if not isinstance(op, NetOutputOp)]
        for op in ops:
            check_aicpu_dtypes(op)
        engines = [op_engine(op) for op in ops]
        if not any(engines):
            return
        grouping = EngineGroups(ops, engines)
        grouping.merge_all()
        groups = [[ops[i] for i in group] for group in grouping.groups()]
        in_group = {op: n for n, group in enumerate(groups) for op in group}
        movable = owned_constants(ops, in_group)
        units = self._topological_units(ops, groups, in_group, movable)
        terminator = self.block.last_op
        assert terminator is not None
        for unit in units:
            if isinstance(unit, Operation):
                unit.detach()
                self.block.insert_op_before(unit, terminator)
                continue
            group = groups[unit]
            constants = [c for c, n in movable.items() if n == unit]
            engine = op_engine(group[0])
            assert engine is not None
            call = build_partitioned_call(group, constants, engine)
            self.block.insert_op_before(call, terminator)

    @staticmethod
    def _topological_units(
        ops: Sequence[Operation],
        groups: Sequence[Sequence[Operation]],
        in_group: dict[Operation, int],
        movable: dict[Operation, int],
    ) -> list[Operation | int]:
        """Standalone ops and group numbers in a topological order.

        Ties go to the unit whose first op comes first, so the block keeps
        its order wherever it can.
        """
        position = {op: i for i, op in enumerate(ops)}

        def unit_of(op: Operation) -> Operation | int:
            group = in_group.get(op, movable.get(op))
            return op if group is None else group

        units: dict[Operation | int, int] = {}
        for op in ops:
            units.setdefault(unit_of(op), position[op])
        users: dict[Operation | int, set[Operation | int]] = {u: set() for u in units}
        pending = dict.fromkeys(units, 0)
        for op in ops:
            source = unit_of(op)
            for result in op.results:
                for use in result.uses:
                    owner = _ancestor_in(use.operation, op.parent_block())
                    if owner in position and (target := unit_of(owner)) != source:
                        if target not in users[source]:
                            users[source].add(target)
                            pending[target] += 1
        keys = {unit: n for n, unit in enumerate(units)}
        ready = [(units[u], keys[u]) for u, count in pending.items() if count == 0]
        heapq.heapify(ready)
        by_key = list(units)
        order: list[Operation | int] = []
        while ready:
            _, key = heapq.heappop(ready)
            unit = by_key[key]
            order.append(unit)
            for user in users[unit]:
                pending[user] -= 1
                if pending[user] == 0:
                    heapq.heappush(ready, (units[user], keys[user]))
        assert len(order) == len(units), "engine groups formed a cycle"
        return order


def owned_constants(
    ops: Iterable[Operation], group_of: dict[Operation, int]
) -> dict[Operation, int]:
    """Constants and variables whose users all sit in one group -> that group."""
    owned: dict[Operation, int] = {}
    for op in ops:
        if not isinstance(op, MOVABLE_OPS):
            continue
        owners = {group_of.get(use.operation) for use in op.results[0].uses}
        if len(owners) == 1 and (group := owners.pop()) is not None:
            owned[op] = group
    return owned


def build_partitioned_call(
    group: Sequence[Operation],
    constants: Iterable[Operation],
    engine: Engine | None,
) -> PartitionedCallOp:
    """Move `group` (and `constants` only it uses) into a new `ge.partitioned_call`.

    The call gets the `engine` attribute unless `engine` is None.

    The call's operands are the values the group reads from outside, its
    results the group's values used outside. The ops are detached from their
    block; the caller inserts the returned call.
    """
    moved = [*constants, *group]
    inside = set(moved)
    inputs: list[SSAValue] = []
    for op in moved:
        for operand in op.operands:
            if operand.owner not in inside and operand not in inputs:
                inputs.append(operand)
    outputs = [
        result
        for op in group
        for result in op.results
        if any(use.operation not in inside for use in result.uses)
    ]
    body = Block()
    for index, value in enumerate(inputs):
        data = DataOp.create(
            result_types=[value.type],
            attributes={"parent_index": IntegerAttr(index, i64)},
        )
        body.add_op(data)
        data.results[0].name_hint = value.name_hint
        value.replace_uses_with_if(data.results[0], lambda use: use.operation in inside)
    call = PartitionedCallOp.create(
        operands=inputs,
        result_types=[value.type for value in outputs],
        attributes={} if engine is None else {ENGINE_ATTRIBUTE: StringAttr(engine)},
        regions=[Region(body)],
    )
    for value, result in zip(outputs, call.results, strict=True):
        result.name_hint = value.name_hint
        value.replace_uses_with_if(result, lambda use: use.operation not in inside)
    for op in moved:
        op.detach()
        body.add_op(op)
    body.add_op(NetOutputOp(outputs))
    return call


def partition_block(block: Block) -> None:
    """Partition `block`, then the subgraphs of its control-flow ops."""
    for op in list(block.ops):
        if isinstance(op, FusedOp):
            continue  # one AI Core op, its body is not partitioned
        if isinstance(op, PartitionedCallOp) and op.engine is not None:
            continue
        for region in op.regions:
            partition_block(region.block)
    BlockPartitioner(block).run()


@dataclass(frozen=True)
class PartitionEnginesPass(ModulePass):
    """Group maximal same-engine runs of ops into ge.partitioned_call subgraphs."""

    name = "partition-engines"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                partition_block(graph.body.block)
