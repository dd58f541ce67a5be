"""Lowering of `ge.fused` groups (`fuse-ops`): one loop nest per group.

A group headed by a reducing op (convolution, pooling, matrix product) is
one nest over the head's output elements. For each output element the
nest initialises the accumulator, runs the reduction loops inside, then
applies the epilogue to the finished value and stores the group's results,
so the epilogue never makes another pass over memory:

```mlir
affine.for %c1, %h, %w, %c0 {                        // output elements
  affine.store %bias, %acc[0, %c1, %h, %w, %c0]
  affine.for %ci, %kh, %kw { ... acc += x * w ... }  // reduction
  %v = affine.load %acc[0, %c1, %h, %w, %c0]
  %r = affine.load %residual[0, %c1, %h, %w, %c0]
  %s = arith.addf %v, %r
  %y = arith.maximumf %s, %zero                      // relu
  affine.store %y, %result[0, %c1, %h, %w, %c0]
}
```

A group of elementwise ops is one nest over its shape. Values inside the
group stay in registers: only the group's results (`ge.netoutput` of the
body) are stored. The heads' reductions are the ones of the unfused
lowerings (`nn.Reduction`, registered with `heads_groups`); the elementwise
ops contribute their scalar bodies (`scalar`, declared with each op). As in
the unfused lowerings, the nest computes in float32 (16-bit floats are
widened on load).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from xdsl.ir import Operation, SSAValue

from ge_dialect.ops import DataOp, FusedOp, NetOutputOp
from passes.lowering import nn
from passes.lowering.context import LoweringContext
from passes.lowering.domain import (
    Piece,
    block_chain,
    piece_index,
    probe_variables,
    split_pieces,
    wrapping,
)
from passes.lowering.elementwise import element_value, has_scalar_body, operand_index
from passes.lowering.emitter import (
    Accesses,
    Buffer,
    Emitter,
    Nest,
    Value,
    close_loops,
    in_any_order,
    is_float,
    loop_order,
    open_loops,
    plan_key,
    storage_indices,
)
from passes.lowering.index import Ix, Var, blocks_needed
from passes.lowering.registry import group_reduction, lowers


@lowers(FusedOp)
def lower_fused(ctx: LoweringContext, op: Operation) -> None:
    """A fused group as one loop nest (see the module docstring)."""
    assert isinstance(op, FusedOp)
    body = [inner for inner in op.body.block.ops if not isinstance(inner, DataOp)]
    *members, terminator = body
    assert isinstance(terminator, NetOutputOp)
    for data in op.body.block.ops:
        if isinstance(data, DataOp):
            ctx.buffers[data.output] = ctx.buffers[op.operands[data.index_value]]
    stores: dict[SSAValue, list[Buffer]] = defaultdict(list)
    for index, value in enumerate(terminator.operands):
        if value.owner not in members:
            raise ctx.error(f"result #{index} is not computed in the group")
        stores[value].append(ctx.result(index))
    head_reduction = group_reduction(members[0])
    head = members[0] if head_reduction is not None else None
    epilogue = members[1:] if head is not None else members
    for member in epilogue:
        if not has_scalar_body(member):
            raise ctx.error(f"cannot fuse '{member.name}' into a loop nest")
        if not all(is_float(ctx.layout(v).element_type) for v in member.results):
            raise ctx.error(f"'{member.name}' in a fused group must compute in floats")

    def finish(nest: Nest, index: list[Ix], values: dict[SSAValue, Value]) -> None:
        for member in epilogue:
            args = [
                values[v]
                if v in values
                else nest.load(ctx.buffer(v), operand_index(member, k, index))
                for k, v in enumerate(member.operands)
            ]
            value = element_value(member, nest, args)
            if value is None:
                types = ", ".join(
                    str(ctx.layout(v).element_type) for v in member.operands
                )
                raise ctx.error(f"'{member.name}' has no loop body for {types}")
            values[member.results[0]] = value
        for value, buffers in stores.items():
            for buffer in buffers:
                nest.store(values[value], buffer, index)

    if head is None:
        ctx.emitter.for_each(
            ctx.shape(members[0].results[0]),
            lambda nest, index: finish(nest, index, {}),
        )
        return
    layout = ctx.layout(head.results[0])
    ctx.op = head
    assert head_reduction is not None
    reduction = head_reduction(ctx, layout)
    ctx.op = op
    result = head.results[0]
    emit_reduction(
        ctx.emitter,
        reduction,
        lambda: ctx.temporary(
            layout.retyped(nn.accumulator_type(layout.element_type)), zero_padding=False
        ),
        lambda nest, index, value: finish(nest, index, {result: value}),
    )


NESTED = 1 << 30
"""Where the reduction loops' variables are numbered while the outer
domain is split (above any outer piece's)."""

Epilogue = Callable[[Nest, list[Ix], Value], None]
Before = Callable[[Nest, Sequence[Ix]], None]
Step = Callable[[Nest, Sequence[Ix], Sequence[Ix]], None]


def emit_reduction(
    emitter: Emitter,
    reduction: nn.Reduction,
    accumulator: Callable[[], Buffer],
    epilogue: Epilogue,
) -> None:
    """`reduction` as one nest per piece of the output domain, each into an
    accumulator of its own (`accumulator()`: no other nest touches it, so
    the JIT keeps it in registers), `epilogue(nest, output index, reduced
    value)` after the reduction loops."""
    accumulators = [accumulator()]

    def fresh_accumulator(piece: int) -> None:
        if piece:
            accumulators.append(accumulator())

    sizes = reduction.sizes
    kept = [a for a in range(len(sizes)) if a not in reduction.reduced]
    reduced = [a for a in range(len(sizes)) if a in reduction.reduced]

    def full(outer: Sequence[Ix], inner: Sequence[Ix] = ()) -> list[Ix]:
        """The index over `sizes` (reduced axes at 0 without `inner`)."""
        index = [Ix.of(0)] * len(sizes)
        inner = inner or index[: len(reduced)]
        for axes, values in ((kept, outer), (reduced, inner)):
            for axis, ix in zip(axes, values, strict=True):
                index[axis] = ix
        return index

    def before(nest: Nest, outer: Sequence[Ix]) -> None:
        out = reduction.at(full(outer))
        init = reduction.init
        acc = accumulators[-1]
        nest.store(
            nest.const(init) if isinstance(init, float) else init(nest, out), acc, out
        )

    def step(nest: Nest, outer: Sequence[Ix], inner: Sequence[Ix]) -> None:
        index = full(outer, inner)
        target = reduction.at(index)
        term = reduction.term(nest, index)
        acc = accumulators[-1]
        nest.store(reduction.combine(nest, nest.load(acc, target), term), acc, target)

    def after(nest: Nest, outer: Sequence[Ix]) -> None:
        out = reduction.at(full(outer))
        value = nest.load(accumulators[-1], out)
        if reduction.final is not None:
            value = reduction.final(nest, value, out)
        epilogue(nest, out, value)

    for_each_reduction(
        emitter,
        [sizes[a] for a in kept],
        [sizes[a] for a in reduced],
        before,
        step,
        after,
        fresh_accumulator,
        frozenset((kept + reduced).index(a) for a in reduction.gathered),
    )


ReductionPlan = list[tuple[list[Ix], list[Var], list[tuple[list[Ix], list[Var]]]]]
"""Per top-level nest of a reduction: the outer index and loops, then the
index and loops of each of its inner nests."""


def for_each_reduction(
    emitter: Emitter,
    outer_sizes: Sequence[int],
    inner_sizes: Sequence[int],
    before: Before,
    step: Step,
    after: Before,
    each_nest: Callable[[int], None],
    whole: frozenset[int] = frozenset(),
) -> None:
    """An imperfect affine nest: outer loops over `outer_sizes` holding
    `before`, the inner loops over `inner_sizes` with `step`, then `after`.

    As `Emitter.for_each`: a probe finds the blocks that make every access
    affine, each axis is split into pieces, and each outer piece is one
    top-level nest whose loops follow the storage order of its accesses;
    `each_nest(number)` runs before each is emitted. The axes in `whole`
    (the outer ones numbered first, then the inner ones) stay one loop
    each: no blocks, no cuts (`Reduction.gathered`). The nests are planned
    once per emitter for each set of probed accesses (`Emitter.planned`).
    """
    outer_probe = probe_variables(outer_sizes)
    first_inner = len(outer_sizes)
    inner_probe = [
        Ix.of(Var(first_inner + axis, 0, size - 1))
        for axis, size in enumerate(inner_sizes)
    ]
    parts = [Nest(emitter, None) for _ in range(3)]
    before(parts[0], outer_probe)
    step(parts[1], outer_probe, inner_probe)
    after(parts[2], outer_probe)
    probe = [access for part in parts for access in part.accesses]
    key = (
        "reduction",
        tuple(outer_sizes),
        tuple(inner_sizes),
        whole,
        len(parts[0].accesses),
        len(parts[1].accesses),
        plan_key(probe),
    )
    plan = emitter.planned(
        key,
        lambda: _reduction_plan(
            emitter, outer_sizes, inner_sizes, before, step, after, whole, probe
        ),
    )
    for number, (outer, outer_order, inners) in enumerate(plan):
        each_nest(number)
        loops, ivs = open_loops(emitter.block, outer_order)
        nest = Nest(emitter, loops[-1] if loops else emitter.block, ivs)
        before(nest, outer)
        for inner, inner_order in inners:
            inner_loops, inner_ivs = open_loops(nest.block, inner_order)
            innermost = inner_loops[-1] if inner_loops else nest.block
            step(Nest(emitter, innermost, {**ivs, **inner_ivs}), outer, inner)
            close_loops(inner_loops)
        after(nest, outer)
        close_loops(loops)


def _reduction_plan(
    emitter: Emitter,
    outer_sizes: Sequence[int],
    inner_sizes: Sequence[int],
    before: Before,
    step: Step,
    after: Before,
    whole: frozenset[int],
    probe: Accesses,
) -> ReductionPlan:
    """The nests of `for_each_reduction`, `probe` the body's accesses at
    the probe's index."""
    first_inner = len(outer_sizes)
    required: dict[int, set[int]] = defaultdict(set)
    for _, _, storage in probe:
        for ix in storage:
            for var, block in blocks_needed(ix):
                required[var.id].add(block)
    for axis in whole:
        required.pop(axis, None)
    outer_chains = [block_chain(s, required[a]) for a, s in enumerate(outer_sizes)]
    inner_chains = [
        block_chain(s, required[first_inner + a]) for a, s in enumerate(inner_sizes)
    ]
    outer_whole = frozenset(a for a in whole if a < first_inner)
    inner_whole = frozenset(a - first_inner for a in whole if a >= first_inner)
    split = in_any_order(probe)
    nested = [  # numbered above any outer piece's variables
        Ix.of(Var(NESTED + axis, 0, size - 1)) for axis, size in enumerate(inner_sizes)
    ]

    probes: dict[tuple[tuple[Ix, ...], tuple[Ix, ...]], Accesses] = {}

    def accesses(outer: Sequence[Ix], inner: Sequence[Ix]) -> Accesses:
        """The accesses of the body at (`outer`, `inner`), probed once
        (refining the domain asks for a piece's again)."""
        key = (tuple(outer), tuple(inner))
        if key not in probes:
            probes[key] = _run_probe(emitter, before, step, after, outer, inner)
        return probes[key]

    def indices(outer: list[Ix], inner: Sequence[Ix] = nested) -> list[Ix]:
        return storage_indices(accesses(outer, inner))

    def step_accesses(outer: Sequence[Ix], inner: Sequence[Ix]) -> Accesses:
        """Accesses that order the reduction loops at (`outer`, `inner`):
        the whole body's if refining probed it there (`before` and `after`
        index no reduction variable, so they order none), else `step`'s."""
        found = probes.get((tuple(outer), tuple(inner)))
        if found is not None:
            return found
        probe = Nest(emitter, None)
        step(probe, outer, inner)
        return probe.accesses

    outer_pieces = split_pieces(
        outer_sizes, outer_chains, 0, indices if split else None, fixed=outer_whole
    )
    inner_splits: dict[frozenset[tuple[Ix, int]], list[Piece]] = {}
    plan: ReductionPlan = []
    for outer_piece in outer_pieces:
        outer, outer_vars = piece_index(outer_piece, 0)
        first = len(outer_vars)  # inner loop variables are numbered from here

        def inner_indices(inner: list[Ix], outer: list[Ix] = outer) -> list[Ix]:
            return indices(outer, inner)

        # The reduction loops split alike for outer pieces whose indices wrap
        # alike in them (a group's pieces of output lanes): split once.
        wraps = frozenset(
            (argument, k)
            for argument, k in wrapping(indices(outer) if split else [])
            if all(isinstance(v, Var) and v.id >= NESTED for v, _ in argument.terms)
        )
        if wraps not in inner_splits:
            inner_splits[wraps] = split_pieces(
                inner_sizes,
                inner_chains,
                first,
                inner_indices if split else None,
                fixed=inner_whole,
            )
        inner_pieces = inner_splits[wraps]
        sample = piece_index(inner_pieces[0], first)[0] if inner_pieces else []
        outer_order = loop_order(accesses(outer, sample), list(outer_vars.values()))
        inners = []
        for inner_piece in inner_pieces:
            inner, inner_vars = piece_index(inner_piece, first)
            inner_order = loop_order(
                step_accesses(outer, inner), list(inner_vars.values())
            )
            inners.append((inner, inner_order))
        plan.append((outer, outer_order, inners))
    return plan


def _run_probe(
    emitter: Emitter,
    before: Before,
    step: Step,
    after: Before,
    outer: Sequence[Ix],
    inner: Sequence[Ix],
) -> Accesses:
    """Every access of the whole body, seen by a probing nest."""
    probe = Nest(emitter, None)
    before(probe, outer)
    step(probe, outer, inner)
    after(probe, outer)
    return probe.accesses
