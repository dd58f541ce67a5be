"""`fuse-confusion-transpose`: a head split or merge between FRACTAL_NZ tensors
becomes one `ge.confusion_transpose` that stays in FRACTAL_NZ.

A transformer splits a matmul result into heads (`reshape [B,S,H] ->
[B,S,N,D]`, `transpose (0,2,1,3)`) and merges them back (the reverse) between
two FRACTAL_NZ matrix products. `insert-transdata` puts a TransData pair
around each such chain, since reshape and transpose run in origin format
only. CANN fuses the chain into `ConfusionTransposeD`, which runs in
FRACTAL_NZ when the heads are whole C0 column blocks; this pass does the
same where the pair shows it is needed:

```mlir
%a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>}
   : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x64xf32>
%r = ge.reshape %a {shape = array<i64: 2, 11, 4, 16>} : ... -> tensor<2x11x4x16xf32>
%t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>} : ... -> tensor<2x4x11x16xf32>
%b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>}
   : tensor<2x4x11x16xf32> -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
```
becomes
```mlir
%b = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>,
                                shape = array<i64: 2, 11, 4, 16>}
   : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
  -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
```

The chain is reshape-family ops (reshape, flatten, squeeze, unsqueeze,
expand_dims) and transposes, each result read only by the next op, that
amount to one reshape, one transpose, or one of each in either order (a
transpose first sets `transpose_first`). Each
bail-out is a reason: the TransData pair is not FRACTAL_NZ -> origin ->
FRACTAL_NZ, a value has other users, or the fused op would not move whole
fractals (`ConfusionTransposeOp.accepts_layouts`: e.g. heads of 12 fp16
lanes, C0 = 16), in which case the one TransData pair stays. GE fuses in
graph fusion, before format selection; here the fusion runs after
insertion so that it changes only chains that sit between FRACTAL_NZ
tensors (docs/GE_DEVIATIONS.md).

The same pass makes ShuffleNet's channel shuffle between two NC1HWC0 values
one `ge.channel_shuffle` that stays in NC1HWC0 (`FuseChannelShuffle`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.formats import INTERNAL_FORMATS, Format
from ge_dialect.layout import layout_attr, shape_of
from ge_dialect.ops import (
    ChannelShuffleOp,
    ConfusionTransposeOp,
    ExpandDimsOp,
    FlattenOp,
    ReshapeOp,
    SqueezeOp,
    TransDataOp,
    UnsqueezeOp,
    enclosing_target,
)
from ge_dialect.ops.base import boolean
from ge_dialect.ops.trans import PermutationOp
from passes.dead_code import erase_dead
from passes.transdata_report import describe, format_key, refuse, value_source

RESHAPES = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ExpandDimsOp)
"""Ops that regroup axes in row-major order (what a confusion transpose's
reshape does)."""


def single_use_producer(value: SSAValue) -> Operation | None:
    """The op defining `value` if `value` has no other user."""
    owner = value.owner
    return owner if isinstance(owner, Operation) and value.has_one_use() else None


def trans_chain(
    value: SSAValue,
) -> tuple[TransDataOp, list[Operation]] | str | None:
    """(the FRACTAL_NZ -> origin TransData, the shape ops after it) of the
    chain ending in `value`; None if `value` is not made by a shape op, or
    why the chain does not start at such a TransData."""
    chain: list[Operation] = []
    op = single_use_producer(value)
    while isinstance(op, (*RESHAPES, PermutationOp)):
        chain.insert(0, op)
        op = single_use_producer(op.operands[0])
    if not chain:
        return None
    start = chain[0].operands[0]
    if not isinstance(op, TransDataOp):
        if op is None and isinstance(start.owner, Operation):
            return f"{describe(start.owner)} feeds the head split and other users"
        return f"the head split starts at {value_source(start)} in {format_key(start)}"
    if op.src_format.data is not Format.FRACTAL_NZ:
        return f"the head split starts at a TransData out of {op.src_format.data.name}"
    if layout_attr(op.y.type).storage_format in INTERNAL_FORMATS:
        return None
    return op, chain


def fused_attributes(chain: list[Operation]) -> dict[str, object] | None:
    """`perm`, `shape`, `transpose_first` of the confusion transpose doing
    `chain`, or None if it is more than one reshape and one transpose.

    Consecutive reshapes are one reshape (to the last one's shape) and
    consecutive transposes one transpose (their perms composed), so a
    transpose of a size-1 axis that `dim1-transpose-to-squeeze` made a
    squeeze and an unsqueeze still fuses; reshapes that end at the shape
    they started from are no step at all (an exporter's `reshape` to the
    same shape before a head merge)."""
    steps: list[tuple[bool, list[int]]] = []  # (is a transpose, perm or shape)
    before: list[list[int]] = []  # the shape each step starts from
    shape = list(shape_of(chain[0].operands[0].type))
    for op in chain:
        is_transpose = isinstance(op, PermutationOp)
        value = op.permutation() if is_transpose else list(shape_of(op.results[0].type))
        if steps and steps[-1][0] == is_transpose:
            last = steps[-1][1]
            value = [last[p] for p in value] if is_transpose else value
            steps[-1] = (is_transpose, value)
        else:
            steps.append((is_transpose, value))
            before.append(shape)
        shape = list(shape_of(op.results[0].type))
        if not is_transpose and steps[-1][1] == before[-1]:
            steps.pop()  # the reshapes since the last transpose changed nothing
            before.pop()
    if not steps or len(steps) > 2:
        return None
    transpose_first = steps[0][0]
    perms = [value for is_transpose, value in steps if is_transpose]
    shapes = [value for is_transpose, value in steps if not is_transpose]
    result_shape = list(shape_of(chain[-1].results[0].type))
    perm = perms[0] if perms else list(range(len(result_shape)))
    shape = shapes[0] if shapes else result_shape
    return {"perm": perm, "shape": shape, "transpose_first": transpose_first}


def chain_name(chain: list[Operation]) -> StringAttr | None:
    """The names of the fused ops, joined (GE names a fused node so)."""
    names = [op.attributes.get("name") for op in chain]
    if not all(isinstance(name, StringAttr) for name in names):
        return None
    return StringAttr("".join(name.data for name in names))  # type: ignore[union-attr]


@dataclass
class FuseHeadSplitOrMerge(RewritePattern):
    """`transdata(NZ->origin) -> reshape/transpose -> transdata(origin->NZ)`
    becomes one FRACTAL_NZ confusion transpose."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        if op.dst_format.data is not Format.FRACTAL_NZ:
            return
        found = trans_chain(op.x)
        if not isinstance(found, tuple):
            if found is not None:
                self.refuse(op, found)
            return
        head, chain = found
        attributes = fused_attributes(chain)
        if attributes is None:
            self.refuse(op, "the chain is more than one reshape and one transpose")
            return
        fused = ConfusionTransposeOp.create(
            operands=[head.x],
            result_types=[op.y.type],
            attributes={
                "perm": DenseArrayBase.from_list(i64, attributes["perm"]),
                "shape": DenseArrayBase.from_list(i64, attributes["shape"]),
            },
        )
        if attributes["transpose_first"]:
            fused.attributes["transpose_first"] = boolean(True)
        if (name := chain_name(chain)) is not None:
            fused.attributes["name"] = name
        layouts = ([layout_attr(head.x.type)], [layout_attr(op.y.type)])
        if not fused.accepts_layouts(*layouts, enclosing_target(op)):
            fused.drop_all_references()  # the unused op must not read head.x
            self.refuse(op, "it would not move whole fractals (accepts_layouts)")
            return
        rewriter.replace(op, fused)
        erase_dead(rewriter, [*reversed(chain), head])

    @staticmethod
    def refuse(op: TransDataOp, why: str) -> None:
        """Record why the chain before `op` stays in origin format."""
        assert isinstance(op.x.owner, Operation)
        refuse(op.x.owner, Format.FRACTAL_NZ, FuseConfusionTransposePass.name, why)


def shuffle_groups(chain: list[Operation]) -> int | None:
    """The groups of the channel shuffle `chain` computes (`reshape [N, g,
    C/g, ...]`, `transpose (0, 2, 1, ...)`, `reshape` back), or None."""
    if len(chain) != 3 or not isinstance(chain[1], PermutationOp):
        return None
    if not all(isinstance(op, RESHAPES) for op in (chain[0], chain[2])):
        return None
    shape = list(shape_of(chain[0].operands[0].type))
    grouped = list(shape_of(chain[0].results[0].type))
    if len(shape) < 2 or list(shape_of(chain[2].results[0].type)) != shape:
        return None
    n, channels, *rest = shape
    if len(grouped) != len(shape) + 1 or grouped[0] != n or grouped[3:] != rest:
        return None
    groups, per_group = grouped[1], grouped[2]
    perm = [0, 2, 1, *range(3, len(grouped))]
    if groups * per_group != channels or chain[1].permutation() != perm:
        return None
    return groups


@dataclass
class FuseChannelShuffle(RewritePattern):
    """`transdata(NC1HWC0->origin) -> reshape -> transpose -> reshape ->
    transdata(origin->NC1HWC0)` (ShuffleNet's channel shuffle) becomes one
    `ge.channel_shuffle` in NC1HWC0: a gather of channel positions instead of
    a round trip through the origin format.

    ```mlir
    %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>,
                          dst_format = #ge.format<NCHW>} : ...
    %r = ge.reshape %a {shape = array<i64: 1, 4, 28, 7, 7>} : ...
    %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : ...
    %s = ge.reshape %t {shape = array<i64: 1, 112, 7, 7>} : ...
    %b = ge.transdata %s {src_format = #ge.format<NCHW>,
                          dst_format = #ge.format<NC1HWC0>} : ...
    // becomes
    %b = ge.channel_shuffle %x {groups = 4 : i64}
       : tensor<1x112x7x7xf32, #ge.layout<NCHW, NC1HWC0>>
      -> tensor<1x112x7x7xf32, #ge.layout<NCHW, NC1HWC0>>
    ```
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        if op.dst_format.data is not Format.NC1HWC0:
            return
        chain: list[Operation] = []
        producer = single_use_producer(op.x)
        while isinstance(producer, (*RESHAPES, PermutationOp)) and len(chain) < 3:
            chain.insert(0, producer)
            producer = single_use_producer(producer.operands[0])
        groups = shuffle_groups(chain)
        if groups is None:
            return
        head = chain[0].operands[0].owner
        if not isinstance(head, TransDataOp) or head.x.type != op.y.type:
            self.refuse(op, chain, "the shuffle's input is not the NC1HWC0 value")
            return
        shuffle = ChannelShuffleOp.create(
            operands=[head.x],
            result_types=[op.y.type],
            attributes={"groups": IntegerAttr(groups, i64)},
        )
        if (name := chain_name(chain)) is not None:
            shuffle.attributes["name"] = name
        rewriter.replace(op, shuffle)
        erase_dead(rewriter, [*reversed(chain), head])

    @staticmethod
    def refuse(op: TransDataOp, chain: list[Operation], why: str) -> None:
        """Record why the shuffle before `op` stays in origin format."""
        refuse(chain[-1], Format.NC1HWC0, FuseConfusionTransposePass.name, why)


@dataclass(frozen=True)
class FuseConfusionTransposePass(ModulePass):
    """Fuse head splits and merges between FRACTAL_NZ tensors, and channel
    shuffles between NC1HWC0 tensors, into one op each."""

    name = "fuse-confusion-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FuseHeadSplitOrMerge(), FuseChannelShuffle()])
        ).rewrite_module(op)
