"""`fold-reduce-reshape`: a reshape that puts a reduction's reduced dims back
is the reduction with `keep_dims`.

TensorFlow's global pooling is `Mean` over H and W without `keep_dims`, and
Keras' squeeze-and-excitation blocks reshape its `[N, C]` result back to
`[N, 1, 1, C]` for the 1x1 convolutions after it. Keeping the dims instead
keeps the reduction's rank, so it can run in the layout of its input
(NC1HWC0 when C is not reduced) and nothing is reshaped at run time:

```mlir
%m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false}
   : tensor<1x7x7x32xf32> -> tensor<1x32xf32>
%r = ge.reshape %m {shape = array<i64: 1, 1, 1, 32>}
   : tensor<1x32xf32> -> tensor<1x1x1x32xf32>
// becomes
%r = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = true}
   : tensor<1x7x7x32xf32> -> tensor<1x1x1x32xf32>
```

The reshape is any of `ge.reshape`, `ge.unsqueeze`, `ge.expand_dims`; its
result must have exactly the shape the reduction keeps (the same data in the
same order). Rule `ReduceReshapeFold` (`fusion_rules.json`, switchable with
`disable`); the reduction must have no other consumer. Named nodes: the
reduction is named like a fused group, `mean+reshape` (it computes the
reshape's value).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect.layout import shape_of
from ge_dialect.naming import node_label
from ge_dialect.ops import ExpandDimsOp, ReshapeOp, UnsqueezeOp
from ge_dialect.ops.base import boolean
from ge_dialect.ops.reduce import ReduceOp
from passes.fuse_ops import check_disable_option, enabled_rules
from passes.product_folding import tensor_type

RESHAPES = (ReshapeOp, UnsqueezeOp, ExpandDimsOp)
"""Ops that only change a tensor's shape."""


def kept_shape(reduce: ReduceOp) -> tuple[int, ...]:
    """The result shape of `reduce` with `keep_dims`."""
    shape = shape_of(tensor_type(reduce.x))
    axes = {a % len(shape) for a in reduce.value_of("axes")} or set(range(len(shape)))
    return tuple(1 if k in axes else d for k, d in enumerate(shape))


@dataclass
class FoldReshapeIntoReduce(RewritePattern):
    """`reshape(reduce(x, keep_dims=false))` to the kept shape ->
    `reduce(x, keep_dims=true)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, RESHAPES):
            return
        reduce = op.operands[0].owner
        if not isinstance(reduce, ReduceOp) or reduce.value_of("keep_dims"):
            return
        if not reduce.y.has_one_use():
            return  # the reduced [N, C] is read elsewhere too
        if tuple(shape_of(tensor_type(op.results[0]))) != kept_shape(reduce):
            return  # a reshape to another shape
        kept = type(reduce).create(
            operands=[reduce.x],
            result_types=[op.results[0].type],
            attributes={**reduce.attributes, "keep_dims": boolean(True)},
            properties=dict(reduce.properties),
        )
        if "name" in reduce.attributes and "name" in op.attributes:
            label = f"{node_label(reduce)}+{node_label(op)}"
            kept.attributes["name"] = StringAttr(label)
        kept.results[0].name_hint = op.results[0].name_hint
        rewriter.replace(op, kept)
        rewriter.erase(reduce)


@dataclass(frozen=True)
class FoldReduceReshapePass(ModulePass):
    """Fold a reshape restoring a reduction's reduced dims into the reduction."""

    name = "fold-reduce-reshape"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`ReduceReshapeFold`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if enabled_rules(self.name, self.disable):
            PatternRewriteWalker(FoldReshapeIntoReduce()).rewrite_module(op)
