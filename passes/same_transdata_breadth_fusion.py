"""`same-transdata-breadth-fusion`: share identical TransData reached through casts.

GE's SameTransdataBreadthFusionPass (docs/research/ge_behaviour.md §2.8). From a
head value, paths through Casts only that end at TransData with the same
conversion are merged: one TransData moves right after the head (in the
head's dtype) and the Casts run after it, in its output layout:

```mlir
// %h : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
%c1 = ge.cast %h {dst_type = f16} : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
%t1 = ge.transdata %c1 {src_format = NCHW, dst_format = NC1HWC0}
    : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
%t2 = ge.transdata %h {src_format = NCHW, dst_format = NC1HWC0}
    : ... -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// after (uses of %t1 read %c, uses of %t2 read %t):
%t = ge.transdata %h {src_format = NCHW, dst_format = NC1HWC0}
   : ... -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
%c = ge.cast %t {dst_type = f16}
   : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
```

- Heads: results of ops that are not trans ops, with two or more uses or
  one use by an op with several subgraphs (`ge.if`, `ge.case`).
- Paths: from the head through `ge.cast` to a `ge.transdata` whose result is
  used. They pass into subgraphs (`ge.partitioned_call`, `ge.if`,
  `ge.case`: the subgraph `ge.data` with `parent_index` i mirrors operand
  i) and out of a `ge.partitioned_call` (its `ge.netoutput` operand j is its
  result j). They never leave an if/case branch, whose result is not the
  head's value but one branch's. `ge.while` data change between iterations.
- Groups: TransData with the same attributes (formats, groups,
  `stream_label`) and result layout; the origin shape is the head's.
  A path whose Casts also feed ops off the group's paths is dropped, as are
  paths whose subgraph boundaries change the layout. Grouped TransData
  (groups != 1) are left alone (a type does not carry groups).
- Rewrite for two or more paths: a TransData with the first one's
  attributes reads the head; every Cast is rebuilt on the moved value;
  where a path enters a subgraph, the moved value becomes a new operand
  with a new `ge.data`; where it leaves a `ge.partitioned_call`, a new
  output and result. The old ops go once unused, and so do subgraph inputs
  that lose all their uses.

Differences from GE (docs/GE_DEVIATIONS.md). Probes: GE asks the kernel store
whether the moved TransData and Casts exist. Here every rebuilt type must be
a valid layout (`check_tensor_type`). Control edges: GE groups paths by their
in-control sources, so that hoisting creates no cycle. SSA has no control
edges and the hoisted TransData reads only the head, so it cannot create one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from ge_dialect.layout import check_tensor_type, layout_attr, retyped
from ge_dialect.ops import (
    TRANS_OPS,
    CaseOp,
    CastOp,
    DataOp,
    IfOp,
    NetOutputOp,
    PartitionedCallOp,
    TransDataOp,
)
from passes.layout_requirements import cast_op
from passes.transop_breadth_fusion import NODE_NAME
from passes.transop_utils import has_default_groups

ENTERED_OPS = (PartitionedCallOp, IfOp, CaseOp)
"""Ops whose subgraph data a path follows into."""


@dataclass(frozen=True)
class Enter:
    """A path step into a subgraph: `data` mirrors its parent's operand."""

    data: DataOp


@dataclass(frozen=True)
class Leave:
    """A path step out of a `ge.partitioned_call`: its output `index`."""

    output: NetOutputOp
    index: int


Step = CastOp | Enter | Leave


@dataclass(frozen=True)
class CastPath:
    """The steps from a head to (the operand of) `transdata`."""

    steps: tuple[Step, ...]
    transdata: TransDataOp

    def casts(self) -> list[CastOp]:
        """The casts on the path, in order."""
        return [step for step in self.steps if isinstance(step, CastOp)]


def _mirrors(op: Operation, index: int) -> Iterator[DataOp]:
    for region in op.regions:
        for inner in region.block.ops:
            if isinstance(inner, DataOp) and inner.parent_index is not None:
                if inner.index_value == index:
                    yield inner


def cast_paths(head: SSAValue) -> Iterator[CastPath]:
    """Every path from `head` through casts and boundaries to a used TransData."""
    pending: list[tuple[SSAValue, tuple[Step, ...]]] = [(head, ())]
    while pending:
        value, steps = pending.pop(0)
        for use in sorted(value.uses, key=lambda u: u.index):
            user = use.operation
            if isinstance(user, CastOp):
                pending.append((user.y, (*steps, user)))
            elif isinstance(user, TransDataOp) and user.y.uses:
                yield CastPath(steps, user)
            elif isinstance(user, ENTERED_OPS):
                pending.extend(
                    (data.output, (*steps, Enter(data)))
                    for data in _mirrors(user, use.index)
                )
            elif isinstance(user, NetOutputOp) and isinstance(
                parent := user.parent_op(), PartitionedCallOp
            ):
                pending.append(
                    (parent.results[use.index], (*steps, Leave(user, use.index)))
                )


def is_head(value: SSAValue) -> bool:
    """GE's head: used twice or more, or once by an op with several subgraphs."""
    uses = list(value.uses)
    return len(uses) >= 2 or (len(uses) == 1 and len(uses[0].operation.regions) > 1)


Edge = tuple[SSAValue, Operation, int]
"""A use: (value, user, operand index)."""


def _step_edges(head: SSAValue, path: CastPath) -> set[Edge]:
    """The uses a path walks along."""
    edges: set[Edge] = set()
    value = head
    for step in (*path.steps, path.transdata):
        match step:
            case Enter(data):
                wrapper = data.parent_op()
                assert wrapper is not None
                edges.add((value, wrapper, data.index_value))
                value = data.output
            case Leave(output, index):
                edges.add((value, output, index))
                parent = output.parent_op()
                assert parent is not None
                value = parent.results[index]
            case _:
                edges.add((value, step, 0))
                value = step.results[0]
    return edges


def _keeps_layout(head: SSAValue, path: CastPath) -> bool:
    """Whether every value on the path has the head's layout (casts keep it;
    a subgraph boundary might not)."""
    layout = layout_attr(head.type)
    return all(
        layout_attr(value.type) == layout for value, _, _ in _step_edges(head, path)
    )


def fusable_paths(head: SSAValue, paths: Sequence[CastPath]) -> list[CastPath]:
    """The paths of one group that stay once paths whose casts feed ops off
    the group's paths are dropped (repeated until nothing changes)."""
    kept = list(paths)
    while True:
        edges: set[Edge] = set()
        for path in kept:
            edges |= _step_edges(head, path)
        remaining = [
            path
            for path in kept
            if all(
                (cast.y, use.operation, use.index) in edges
                for cast in path.casts()
                for use in cast.y.uses
            )
        ]
        if len(remaining) == len(kept):
            return kept
        kept = remaining


def group_key(transdata: TransDataOp) -> tuple[object, ...]:
    """What must agree for TransData to be shared: attributes and result layout."""
    attributes = tuple(
        sorted((k, v) for k, v in transdata.attributes.items() if k != NODE_NAME)
    )
    return (layout_attr(transdata.y.type), attributes)


def probe(tensor: TensorType) -> bool:
    """Whether a rebuilt type is a valid layout (GE asks its kernel store)."""
    try:
        check_tensor_type(tensor)
    except VerifyException:
        return False
    return True


@dataclass
class Threader:
    """Carries the hoisted TransData's value along paths, building each step once."""

    rewriter: PatternRewriter
    built: dict[object, SSAValue] = field(default_factory=dict)
    """The moved value after each step (keyed by the step)."""
    operands: dict[tuple[Operation, int], int] = field(default_factory=dict)
    """(wrapper, old operand index) -> index of the moved value's operand."""

    def follow(self, value: SSAValue, path: CastPath) -> SSAValue:
        """The moved counterpart of the value `path.transdata` produced."""
        for step in path.steps:
            key = (step.output, step.index) if isinstance(step, Leave) else step
            if key not in self.built:
                self.built[key] = self._build(step, value)
            value = self.built[key]
        return value

    def _build(self, step: Step, value: SSAValue) -> SSAValue:
        match step:
            case Enter(data):
                return self._enter(data, value)
            case Leave(output, _):
                return self._leave(output, value)
            case _:
                new = cast_op(value, step.dst_type)
                if NODE_NAME in step.attributes:
                    new.attributes[NODE_NAME] = step.attributes[NODE_NAME]
                self.rewriter.insert(new, InsertPoint.before(step))
                return new.y

    def _enter(self, data: DataOp, value: SSAValue) -> SSAValue:
        wrapper = data.parent_op()
        assert wrapper is not None
        operand = (wrapper, data.index_value)
        if operand not in self.operands:  # one new operand for all subgraphs
            self.operands[operand] = len(wrapper.operands)
            wrapper.operands = [*wrapper.operands, value]
            self.rewriter.handle_operation_modification(wrapper)
        index = self.operands[operand]
        new = DataOp.create(
            attributes={"parent_index": IntegerAttr(index, i64)},
            result_types=[value.type],
        )
        self.rewriter.insert(new, InsertPoint.before(data))
        return new.output

    def _leave(self, output: NetOutputOp, value: SSAValue) -> SSAValue:
        call = output.parent_op()
        assert isinstance(call, PartitionedCallOp)
        output.operands = [*output.operands, value]
        new = PartitionedCallOp.create(
            operands=list(call.operands),
            result_types=[*call.result_types, value.type],
            attributes=dict(call.attributes),
            regions=[self.rewriter.move_region_contents_to_new_regions(call.f)],
        )
        self.rewriter.replace(call, new, new.results[:-1])
        return new.results[-1]


def remove_unused_input(data: DataOp, rewriter: PatternRewriter) -> None:
    """Erase an unused subgraph `ge.data`; drop its parent operand (renumbering
    the others) when no other subgraph reads it and it is not a fixed one."""
    wrapper = data.parent_op()
    assert isinstance(wrapper, ENTERED_OPS)
    index = data.index_value
    rewriter.erase(data)
    fixed = len(wrapper.operands) - len(wrapper.inputs)
    if index < fixed or any(True for _ in _mirrors(wrapper, index)):
        return  # a fixed operand (cond, branch index) or still read
    wrapper.operands = [v for i, v in enumerate(wrapper.operands) if i != index]
    for region in wrapper.regions:
        for inner in region.block.ops:
            if isinstance(inner, DataOp) and inner.parent_index is not None:
                if inner.index_value > index:
                    inner.parent_index = IntegerAttr(inner.index_value - 1, i64)
    rewriter.handle_operation_modification(wrapper)


class HoistSharedTransData(RewritePattern):
    """Share TransData that results of `op` reach through casts."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, TRANS_OPS):
            return  # heads are results of real ops
        for head in op.results:
            if not is_head(head):
                continue  # one plain use: nothing to share
            groups: dict[tuple[object, ...], list[CastPath]] = {}
            for path in cast_paths(head):
                if not has_default_groups(path.transdata):
                    continue  # grouped FRACTAL_Z packing
                if not _keeps_layout(head, path):
                    continue  # a subgraph boundary changes the layout
                groups.setdefault(group_key(path.transdata), []).append(path)
            for paths in groups.values():
                paths = fusable_paths(head, paths)
                if len(paths) >= 2 and self._probes_pass(head, paths):
                    self._hoist(head, paths, rewriter)
                    return  # the IR changed; the walker comes back

    @staticmethod
    def _probes_pass(head: SSAValue, paths: Sequence[CastPath]) -> bool:
        layout = layout_attr(paths[0].transdata.y.type)
        moved = retyped(head.type, layout)
        casts = [cast for path in paths for cast in path.casts()]
        return probe(moved) and all(
            probe(retyped(cast.y.type, layout)) for cast in casts
        )

    @staticmethod
    def _hoist(
        head: SSAValue, paths: Sequence[CastPath], rewriter: PatternRewriter
    ) -> None:
        first = min((p.transdata for p in paths), key=list(_walk_root(head)).index)
        hoisted = TransDataOp.create(
            operands=[head],
            result_types=[retyped(head.type, layout_attr(first.y.type))],
            attributes=dict(first.attributes),
        )
        owner = head.owner
        assert isinstance(owner, Operation)
        rewriter.insert(hoisted, InsertPoint.after(owner))
        threader = Threader(rewriter)
        for path in paths:
            moved = threader.follow(hoisted.y, path)
            rewriter.replace(path.transdata, [], [moved])
        for path in paths:
            for step in reversed(path.steps):
                match step:
                    case CastOp() if step.parent is not None and not step.y.uses:
                        rewriter.erase(step)
                    case Enter(data) if (
                        data.parent is not None and not data.output.uses
                    ):
                        remove_unused_input(data, rewriter)


def _walk_root(value: SSAValue) -> Iterator[Operation]:
    """Every op of the outermost op around `value`, in walk (topological) order."""
    op = value.owner
    assert isinstance(op, Operation)
    while (parent := op.parent_op()) is not None:
        op = parent
    return op.walk()


@dataclass(frozen=True)
class SameTransdataBreadthFusionPass(ModulePass):
    """Share identical TransData reached through casts, hoisted to the head."""

    name = "same-transdata-breadth-fusion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(HoistSharedTransData()).rewrite_module(op)
