"""`fold-shapes`: values computed from static dims become constants.

An exporter's shape subgraph starts at `ge.shape` / `ge.size` of a run-time
tensor. Once `infer-shape` (or `--input_shape`) has made the dims it reads
static, the op's value is known: it becomes a `ge.const`, and
`fold-constants` folds what was computed from it (`Gather`, `Concat`,
arithmetic ...) with the ops' own reference kernels.

```mlir
%s = ge.shape %x {start = 1 : i64} : (tensor<2x11x64xf32>) -> tensor<2xi64>
// becomes
%s = ge.const {value = dense<[11, 64]> : tensor<2xi64>} : tensor<2xi64>
```

Which ops qualify is the op's own answer (`static_value()`, declared by
`ge_dialect.ops.shape_of.ShapeComputationOp`); an op reading a dynamic dim
stays (host scheduling computes it at run time).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.naming import node_label
from ge_dialect.ops import enclosing_target
from ge_dialect.ops.shape_of import ShapeComputationOp
from passes.fold_constants import make_constant


class FoldStaticShape(RewritePattern):
    """A shape computation over static dims -> its value as a `ge.const`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ShapeComputationOp, rewriter: PatternRewriter
    ) -> None:
        value = op.static_value()
        if value is None:
            return  # a dim it reads is dynamic: the run computes it
        result = op.results[0]
        assert isinstance(result.type, TensorType)
        constant = make_constant(
            value, result.type, node_label(op), enclosing_target(op)
        )
        rewriter.replace(op, constant)


@dataclass(frozen=True)
class FoldShapesPass(ModulePass):
    """Replace shape computations over static dims by constants."""

    name = "fold-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldStaticShape()).rewrite_module(op)
