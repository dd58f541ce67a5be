"""`transop-symmetry-elimination`: remove trans ops that undo each other.

GE's TransOpSymmetryEliminationPass (docs/research/ge_behaviour.md §2.1). A trans
op `T2` that consumes a trans op `T1` and restores `T1`'s input exactly is
dropped together with `T1`:

```mlir
// %x : tensor<1x17x8x8xf16, #ge.layout<NCHW>>
%a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
   : ... -> tensor<1x17x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
%y = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
   : ... -> tensor<1x17x8x8xf16, #ge.layout<NCHW>>
%r = ge.relu %y : ...
// after:
%r = ge.relu %x : ...
```

Pairs (`transop_utils.inverse_pair_failure`): TransData/TransData,
transpose/transpose (the perms compose to the identity; `ge.permute` counts
as a transpose), reshape/reshape, cast/cast, squeeze/unsqueeze with equal
axes (either order). `T1` must not lose precision: fp32 -> fp16 -> fp32 stays
(it rounds), fp16 -> fp32 -> fp16 goes. This guard is stricter than GE, whose
table ignores narrowing float casts (docs/GE_DEVIATIONS.md). Descriptor
symmetry is type equality, `T1`'s operand type == `T2`'s result type (layout
included).

GE's "second chance" for TransData pairs applies when GE's
ReshapeRemovePass has removed a reshape between them. Reshapes stay in this
IR, so the rule is a second pattern over `TransData -> reshape -> TransData`
mirroring NCHW <-> NC1HWC0: when the two NCHW shapes have the same
NC1HWC0 bytes (equal H*W, equal C if the channels are padded, mirrored
element counts), the three ops become one reshape of the first TransData's
operand:

```mlir
// %x : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
%a = ge.transdata %x {src_format = NC1HWC0, dst_format = NCHW} : ...
%r = ge.reshape %a : ... -> tensor<8x32x10x19xf16, #ge.layout<NCHW>>
%y = ge.transdata %r {src_format = NCHW, dst_format = NC1HWC0}
   : ... -> tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
// after:
%y = ge.reshape %x : tensor<1x256x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
   -> tensor<8x32x10x19xf16, #ge.layout<NCHW, NC1HWC0>>
```

Multiple consumers, as GE: every inverse consumer of `T1` is removed on its
own; `T1` (and the reshape) go only once nothing else uses them. Control
edges: GE copies `T1`'s control edges to `T2`'s neighbours so ordering
survives the removal. SSA values carry no ordering beyond data
dependencies, and the rewrite only shortens data paths, so nothing replaces
them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.ops import ReshapeOp, TransDataOp
from passes.dead_code import erase_dead
from passes.transop_utils import (
    inverse_pair_failure,
    trans_kind,
    transdata_second_chance_failure,
)


class EliminateInversePair(RewritePattern):
    """`T2(T1(x))` -> `x` when `T2` undoes `T1` (matched on `T2`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if trans_kind(op) is None:
            return  # not a trans op
        first = op.operands[0].owner
        if not isinstance(first, Operation) or trans_kind(first) is None:
            return  # the operand does not come from a trans op
        if inverse_pair_failure(first, op) is not None:
            return  # not an inverse pair (see the reason)
        rewriter.replace_all_uses_with(op.results[0], first.operands[0])
        rewriter.erase(op)
        erase_dead(rewriter, [first])


class EliminateTransDataPairAroundReshape(RewritePattern):
    """`TD2(reshape(TD1(x)))` -> `reshape(x)` by GE's second-chance rule."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        reshape = op.x.owner
        if not isinstance(reshape, ReshapeOp):
            return  # no reshape between two TransData
        first = reshape.x.owner
        if not isinstance(first, TransDataOp):
            return  # the reshape's operand does not come from a TransData
        if transdata_second_chance_failure(first, op) is not None:
            return  # the NC1HWC0 bytes of the two shapes differ (see the reason)
        direct = ReshapeOp.create(
            operands=[first.x],
            result_types=[op.y.type],
            attributes=dict(reshape.attributes),
        )
        rewriter.replace(op, direct)
        erase_dead(rewriter, [reshape])
        erase_dead(rewriter, [first])


@dataclass(frozen=True)
class TransOpSymmetryEliminationPass(ModulePass):
    """Remove pairs of trans ops that undo each other."""

    name = "transop-symmetry-elimination"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [EliminateInversePair(), EliminateTransDataPairAroundReshape()]
            )
        ).rewrite_module(op)
