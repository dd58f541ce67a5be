"""Lowerings of control flow: `ge.if`, `ge.case`, `ge.while`, `ge.partitioned_call`.

Subgraphs are lowered in place, into the regions of upstream `scf` ops; a
subgraph's `ge.data {parent_index = i}` reads the buffer of the parent's
operand `i`, and its `ge.netoutput` values are copied into the parent's
result buffers (allocated before the `scf` op, in the results' layouts):

```mlir
%y = ge.if %c, %x then {...} else {...}          // becomes
%y = memref.alloc() : memref<1x2x4x4x16xf32>
%v = affine.load %c[] : memref<i1>
scf.if %v {
  ...then branch..., copied into %y
} else {
  ...else branch..., copied into %y
}
```

`ge.case` becomes `scf.index_switch` (an index out of range runs the last
branch, the default). `ge.while` keeps its loop variables in buffers of the
results' storage layouts (one per variable: the layout the reflection group
of `infer-origin-format` gave the loop's inputs, outputs and subgraph data),
copied in before the loop; `scf.while` runs the cond subgraph in its
`before` region and the body in `do`, whose outputs are copied back into the
variables (through scratch buffers when an output is a variable's own
buffer, so crossed variables `(a, b) -> (b, a)` swap):

```mlir
scf.while () : () -> () {
  ...cond subgraph on the variables...
  scf.condition(%c)
} do {
  ...body subgraph..., outputs copied into the variables
  scf.yield
}
```

A `ge.partitioned_call`'s subgraph becomes a private function of its own,
called with `func.call` (`convert_ge_to_loops.GraphLowering`; `CALLS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerType,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
    i1,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from ge_dialect.ops import CaseOp, IfOp, PartitionedCallOp, WhileOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, is_float
from passes.lowering.index import Ix
from passes.lowering.movement import copy

LowerRegion = Callable[
    [LoweringContext, Region, Sequence[Buffer], Callable[[list[Buffer]], None]],
    None,
]
"""Lowers a subgraph's ops into the current block, its `ge.data` reading
the given parent operand buffers (by `parent_index`), hands its output
buffers to the callback, then frees what the subgraph allocated."""


def copy_all(
    ctx: LoweringContext, sources: Sequence[Buffer], targets: Sequence[Buffer]
) -> None:
    """Copy each source into its target (any layouts of the same tensor)."""
    for source, target in zip(sources, targets, strict=True):
        if source.memref is target.memref and source.layout == target.layout:
            continue
        copy(ctx, source, target, target.layout.origin_shape)


def scalar_element(ctx: LoweringContext, buffer: Buffer) -> SSAValue:
    """The element of a one-element tensor buffer (raw, its own type)."""
    rank = len(buffer.layout.origin_shape)
    storage = buffer.layout.storage_index([Ix.of(0)] * rank)
    indices = [ix.constant_value for ix in storage]
    assert all(i is not None for i in indices)
    map_attr = AffineMapAttr(
        AffineMap(0, 0, tuple(Ix.of(i).to_affine({}) for i in indices))  # type: ignore[arg-type]
    )
    load = affine.LoadOp(buffer.memref, [], map_attr, buffer.layout.element_type)
    return ctx.emitter.add(load).results[0]


def truth(ctx: LoweringContext, buffer: Buffer) -> SSAValue:
    """An i1: GE/TensorFlow truth of a condition tensor (one element: non-zero;
    none: false; several: true)."""
    count = 1
    for size in buffer.layout.origin_shape:
        count *= size
    if count != 1:
        return ctx.emitter.constant(int(count > 1), i1)
    value = scalar_element(ctx, buffer)
    element = buffer.layout.element_type
    if element == i1:
        return value
    if is_float(element):
        zero = ctx.emitter.constant(0.0, element)
        return ctx.emitter.add(arith.CmpfOp(value, zero, "une")).results[0]
    zero = ctx.emitter.constant(0, element)
    return ctx.emitter.add(arith.CmpiOp(value, zero, "ne")).results[0]


def _region_block() -> tuple[Region, Block]:
    block = Block()
    return Region(block), block


def _branch(
    ctx: LoweringContext,
    lower_region: LowerRegion,
    region: Region,
    operands: Sequence[Buffer],
    results: Sequence[Buffer],
) -> Region:
    """A region running subgraph `region` into the `results` buffers."""
    body, block = _region_block()
    with ctx.emitter.into(block):
        lower_region(ctx, region, operands, lambda out: copy_all(ctx, out, results))
        block.add_op(scf.YieldOp())
    return body


def _results(ctx: LoweringContext, op: Operation) -> list[Buffer]:
    return [ctx.result(i) for i in range(len(op.results))]


def lower_if(ctx: LoweringContext, op: IfOp, lower_region: LowerRegion) -> None:
    """`ge.if` -> `scf.if` (see the module docstring)."""
    operands = ctx.operands()
    results = _results(ctx, op)
    condition = truth(ctx, operands[0])
    branches = [
        _branch(ctx, lower_region, region, operands, results)
        for region in (op.then_branch, op.else_branch)
    ]
    ctx.op = op
    ctx.emitter.add(scf.IfOp(condition, [], branches[0], branches[1]))


def lower_case(ctx: LoweringContext, op: CaseOp, lower_region: LowerRegion) -> None:
    """`ge.case` -> `scf.index_switch`; the last branch is the default."""
    operands = ctx.operands()
    index_buffer = operands[0]
    element = index_buffer.layout.element_type
    if not isinstance(element, IntegerType) or len(op.branches) == 0:
        raise ctx.error("branch_index must be an integer tensor")
    results = _results(ctx, op)
    value = scalar_element(ctx, index_buffer)
    if element.width.data == 1:
        value = ctx.emitter.add(arith.ExtUIOp(value, i64)).results[0]
    index = ctx.emitter.add(arith.IndexCastOp(value, IndexType())).results[0]
    regions = [
        _branch(ctx, lower_region, region, operands, results) for region in op.branches
    ]
    ctx.op = op
    cases = DenseArrayBase.from_list(i64, list(range(len(regions) - 1)))
    ctx.emitter.add(scf.IndexSwitchOp(index, cases, regions[-1], regions[:-1], []))


def lower_while(ctx: LoweringContext, op: WhileOp, lower_region: LowerRegion) -> None:
    """`ge.while` -> `scf.while` over loop-variable buffers (module docstring)."""
    variables = _results(ctx, op)
    copy_all(ctx, ctx.operands(), variables)
    before, before_block = _region_block()
    condition: list[SSAValue] = []
    with ctx.emitter.into(before_block):
        lower_region(
            ctx,
            op.cond,
            variables,
            lambda out: condition.append(truth(ctx, out[0])),
        )
        before_block.add_op(scf.ConditionOp(condition[0]))
    after, after_block = _region_block()

    def update(outputs: list[Buffer]) -> None:
        held = {v.memref for v in variables}
        if any(output.memref in held for output in outputs):
            staged = [ctx.temporary(v.layout) for v in variables]
            copy_all(ctx, outputs, staged)
            outputs = staged
        copy_all(ctx, outputs, variables)
        ctx.free_temporaries()

    with ctx.emitter.into(after_block):
        lower_region(ctx, op.body, variables, update)
        after_block.add_op(scf.YieldOp())
    ctx.op = op
    loop = ctx.emitter.add(scf.WhileOp([], [], before, after))
    loop.location = _source_location(op)  # runaway loops are reported there


def _source_location(op: Operation) -> LocationAttr:
    """`op`'s location, or its node name where it has none (an imported graph
    held in memory, never printed and parsed)."""
    name = op.attributes.get("name")
    if isinstance(op.location, UnknownLoc) and isinstance(name, StringAttr):
        return NameLoc(name, NoneAttr())
    return op.location


ControlFlowLowering = Callable[[LoweringContext, Operation, LowerRegion], None]

CONTROL_FLOW: dict[type[Operation], ControlFlowLowering] = {
    IfOp: lower_if,  # type: ignore[dict-item]
    CaseOp: lower_case,  # type: ignore[dict-item]
    WhileOp: lower_while,  # type: ignore[dict-item]
}
"""Control-flow op class -> lowering (given the region lowering)."""

CALLS: tuple[type[Operation], ...] = (PartitionedCallOp,)
"""Ops whose subgraph becomes a function called with `func.call`."""
