"""`fold-squeeze-chain`: a squeeze of unit axes around elementwise ops goes
when unsqueezes put the same axes back.

A 1-D convolution exports (or imports) as a 2-D one on `[N, C, 1, W]`
between a `squeeze` of the unit H axis after it and an `unsqueeze` before
the next: Silero's VAD encoder is conv, `squeeze`, ReLU, `unsqueeze`, conv
four times over. Every op in between works element by element (a slice of
the channels, a power, a sum, a square root, a ReLU), so it computes the
same on `[N, C, 1, W]`: the squeeze and the unsqueezes go, the ops take the
unsqueezed shapes (a slice's axes shifted past the unit axes) and the
convolutions meet through NC1HWC0 ops instead of a TransData pair each.
GE's TransOpSymmetryElimination cancels a squeeze directly followed by its
unsqueeze; this also lets the pair meet across the ops between them. ATC-style
graph fusion rule `SqueezeChainFold` (switchable with `disable`).

```mlir
%s = ge.squeeze %c {axes = array<i64: 2>}
   : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
%r = ge.relu %s : tensor<1x16x5xf32> -> tensor<1x16x5xf32>
%u = ge.unsqueeze %r {axes = array<i64: 2>}
   : tensor<1x16x5xf32> -> tensor<1x16x1x5xf32>
// becomes
%r = ge.relu %c : tensor<1x16x1x5xf32> -> tensor<1x16x1x5xf32>
```

The region is every op reached from the squeeze: elementwise ops whose
other operands are values of the region or one-element tensors (which
broadcast the same with the unit axes back), and slices of a region value.
It must end only in unsqueezes of exactly the squeezed axes. Bail-outs: an
op of the region is none of these, a value leaves the region any other way,
or an unsqueeze puts other axes back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from ge_dialect.layout import shape_of
from ge_dialect.ops import SliceOp, SqueezeOp, UnsqueezeOp
from ge_dialect.ops.trans import insert_ones
from ge_dialect.traits import Elementwise
from passes.fuse_ops import check_disable_option, enabled_rules


@dataclass
class SqueezeRegion:
    """The ops between a squeeze and the unsqueezes that undo it."""

    ops: list[Operation]
    exits: list[UnsqueezeOp]


def squeezed_axes(op: SqueezeOp) -> list[int]:
    """The axes `op` removes (sorted, non-negative)."""
    shape = shape_of(op.x.type)  # type: ignore[arg-type]
    axes = op.value_of("axes")
    if not axes:
        return [axis for axis, dim in enumerate(shape) if dim == 1]
    return sorted(axis % len(shape) for axis in axes)


def is_one_element(value: SSAValue) -> bool:
    """A tensor of one element (it broadcasts alike at any rank above its own)."""
    return math.prod(shape_of(value.type)) == 1  # type: ignore[arg-type]


def squeeze_region(squeeze: SqueezeOp, axes: list[int]) -> SqueezeRegion | str:
    """The region after `squeeze`, or why there is none."""
    values = {squeeze.y}
    region = SqueezeRegion([], [])
    pending = [squeeze.y]
    while pending:
        value = pending.pop()
        for use in list(value.uses):
            op = use.operation
            if op in region.ops or op in region.exits:
                continue
            if isinstance(op, UnsqueezeOp):
                rank = op.y.type.get_num_dims()
                if sorted(a % rank for a in op.value_of("axes")) != axes:
                    return "an unsqueeze of other axes"
                region.exits.append(op)
                continue
            if not (isinstance(op, SliceOp) or op.has_trait(Elementwise)):
                return f"'{op.name}' is neither elementwise nor a slice"
            region.ops.append(op)
            values.update(op.results)
            pending.extend(op.results)
    for op in region.ops:
        outside = [v for v in op.operands if v not in values]
        if isinstance(op, SliceOp) and outside:
            return "a slice of a value from outside"
        if not all(is_one_element(v) for v in outside):
            return "an operand from outside that is not one element"
    return region


@dataclass
class FoldSqueezeChain(RewritePattern):
    """Remove a squeeze of unit axes and the unsqueezes that put them back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SqueezeOp, rewriter: PatternRewriter) -> None:
        axes = squeezed_axes(op)
        if not axes or -1 in shape_of(op.x.type):  # type: ignore[arg-type]
            return
        region = squeeze_region(op, axes)
        if isinstance(region, str) or not region.exits:
            return  # a bail-out, or nothing puts the axes back
        kept = [a for a in range(op.x.type.get_num_dims()) if a not in axes]
        for inner in region.ops:
            for result in inner.results:
                shape = insert_ones(tuple(shape_of(result.type)), axes)  # type: ignore[arg-type]
                Rewriter.replace_value_with_new_type(
                    result,
                    TensorType(result.type.element_type, shape),  # type: ignore[attr-defined]
                )
            if isinstance(inner, SliceOp):
                count = len(inner.value_of("begins"))
                old = inner.value_of("axes") if "axes" in inner.attributes else None
                moved = [kept[a % len(kept)] for a in old or range(count)]
                inner.attributes["axes"] = DenseArrayBase.from_list(i64, moved)
        for exit_op in region.exits:
            exit_op.y.replace_all_uses_with(exit_op.x)
            rewriter.erase(exit_op)
        op.y.replace_all_uses_with(op.x)
        rewriter.erase(op)


@dataclass(frozen=True)
class FoldSqueezeChainPass(ModulePass):
    """Let elementwise ops between a squeeze and its unsqueezes keep the axes."""

    name = "fold-squeeze-chain"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`SqueezeChainFold`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not enabled_rules(self.name, self.disable):
            return
        PatternRewriteWalker(FoldSqueezeChain()).rewrite_module(op)
