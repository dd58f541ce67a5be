"""`unchanged-transpose-remove`: drop transposes that move no data.

GE's UnchangedTransposeRemovePass (docs/research/ge_behaviour.md §2.5), which runs
while the graph is prepared. A transpose is unchanged when every axis either
stays in place or has size 1: then the axes it moves are all size-1 ones, the
shape and the element order are the same, and the result is the operand.

```mlir
%y = ge.transpose %x {perm = array<i64: 1, 0, 2, 3, 4>}
   : tensor<1x1x2x2x8xf32> -> tensor<1x1x2x2x8xf32>
%z = ge.relu %y : tensor<1x1x2x2x8xf32> -> tensor<1x1x2x2x8xf32>
```
becomes
```mlir
%z = ge.relu %x : tensor<1x1x2x2x8xf32> -> tensor<1x1x2x2x8xf32>
```

GE's conditions, each a bail-out of `removal_blocker`: the op is a Transpose
(`ge.transpose`; GE skips TransposeD, and `ge.permute` is what GE's
PermutePass turns into a TransposeD), its perm has one entry per input axis,
and `shape[i] == 1 or perm[i] == i` for every axis i. In SSA
(docs/GE_DEVIATIONS.md) the result must also have the operand's type (layout
included) to replace it. GE deletes a perm Const left without consumers;
`ge.transpose` keeps its perm as an attribute, so there is nothing to delete.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.layout import shape_of
from ge_dialect.ops import TransposeOp
from passes.transop_utils import permutation_of, tensor_of


def removal_blocker(op: TransposeOp) -> str | None:
    """Why `op` is not an unchanged transpose, or None if it is."""
    shape = shape_of(tensor_of(op.x))
    perm = permutation_of(op)
    if len(perm) != len(shape):
        return "the perm does not have one entry per input axis"
    if any(shape[i] != 1 and axis != i for i, axis in enumerate(perm)):
        return "an axis of size other than 1 moves"
    if op.x.type != op.y.type:
        return "the result's type differs from the operand's"
    return None


@dataclass
class RemoveUnchangedTranspose(RewritePattern):
    """A transpose moving only size-1 axes (or none) is replaced by its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if removal_blocker(op) is not None:
            return
        rewriter.replace(op, [], [op.x])


@dataclass(frozen=True)
class UnchangedTransposeRemovePass(ModulePass):
    """Remove transposes that move only size-1 axes or none."""

    name = "unchanged-transpose-remove"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(RemoveUnchangedTranspose()).rewrite_module(op)
