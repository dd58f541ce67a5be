"""`cast-remove`: remove redundant casts and casts that cancel along a chain.

GE's CastRemovePass (docs/research/ge_behaviour.md §2.6), two patterns:

1. **A redundant cast** (same dtype in and out) is replaced by its operand.
2. **A cancelling chain.** From an op S that is not a trans op and has
   exactly one use, follow the single-use chain of trans ops (each fed at
   its data operand) to its end E. If E gives back S's dtype and no op of
   the chain loses precision, every cast of the chain goes and the other
   chain ops work in S's dtype:

```mlir
%a = ge.add %x, %y : (...) -> tensor<1x16x8x8xf32, #ge.layout<NCHW>>
%c = ge.cast %a {dst_type = f16} : ... -> tensor<1x16x8x8xf16, #ge.layout<NCHW>>
%t = ge.transpose %c {perm = array<i64: 0, 2, 3, 1>}
   : tensor<1x16x8x8xf16, #ge.layout<NCHW>> -> tensor<1x8x8x16xf16, #ge.layout<NHWC>>
%d = ge.cast %t {dst_type = f32} : ... -> tensor<1x8x8x16xf32, #ge.layout<NHWC>>
```
becomes
```mlir
%a = ge.add %x, %y : (...) -> tensor<1x16x8x8xf32, #ge.layout<NCHW>>
%t = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>}
   : tensor<1x16x8x8xf32, #ge.layout<NCHW>> -> tensor<1x8x8x16xf32, #ge.layout<NHWC>>
```

GE's chain stops at a branch (two or more uses), at an op that is not a trans
op, or where the value enters an op at another operand than its data
operand. The remaining chain ops are renamed `<last removed cast><name>`, as
GE does.

**Precision** (docs/GE_DEVIATIONS.md). By default a chain goes only if it
cannot change a value: every dtype along it holds every value of S's dtype
(`cast_is_exact`), so fp32 -> fp16 -> fp32 stays while fp16 -> fp32 -> fp16
goes. With `ge-precision-rule=true` the pass uses GE's own test instead: no
op of the chain is precision-losing by GE's `IsPrecisionLoss` table (-> bool,
float -> int32/int64), which lets fp32 -> fp16 -> fp32 go (GE's TODO:
narrowing float casts do not count), making results more precise than before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import IsTerminator

from ge_dialect.ops import CastOp
from passes.transop_utils import (
    cast_is_exact,
    dtype_of,
    ge_precision_loss,
    tensor_of,
    trans_kind,
)
from passes.transpose_transdata_fusion import fused_name


@dataclass
class RemoveRedundantCast(RewritePattern):
    """A cast to the dtype its operand already has is its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        if op.x.type != op.y.type:
            return  # a real conversion (or a layout difference)
        rewriter.replace(op, [], [op.x])


def cast_chain(head: Operation) -> tuple[SSAValue, list[Operation]] | None:
    """GE's chain from `head`: its one used result and the single-use trans
    ops after it, or None when `head` cannot start a chain."""
    if trans_kind(head) is not None or head.has_trait(IsTerminator):
        return None  # GE starts chains only at a non-trans op
    used = [result for result in head.results if result.first_use is not None]
    if len(used) != 1 or not used[0].has_one_use():
        return None  # not exactly one consumer
    chain: list[Operation] = []
    value = used[0]
    while value.has_one_use():
        use = value.get_unique_use()
        if trans_kind(use.operation) is None or use.index != 0:
            break
        chain.append(use.operation)
        value = use.operation.results[0]
    return used[0], chain


def chain_blocker(
    source: SSAValue, chain: list[Operation], ge_rule: bool
) -> str | None:
    """Why the casts of `chain` (fed by `source`) cannot go, or None."""
    if not any(isinstance(op, CastOp) for op in chain):
        return "the chain has no cast"
    if dtype_of(chain[-1].results[0]) != dtype_of(source):
        return "the chain does not end in the dtype it starts with"
    if ge_rule:
        steps = [(dtype_of(op.operands[0]), dtype_of(op.results[0])) for op in chain]
        if any(ge_precision_loss(src, dst) for src, dst in steps):
            return "an op of the chain is precision-losing (GE's table)"
        return None
    start = dtype_of(source)
    if not all(cast_is_exact(start, dtype_of(op.results[0])) for op in chain):
        return "a dtype along the chain cannot hold every value"
    return None


def with_element_type(tensor: Attribute, element: Attribute) -> TensorType:
    """`tensor` with another element type (same shape and layout)."""
    assert isinstance(tensor, TensorType)
    return TensorType(element, tensor.get_shape(), tensor.encoding)


@dataclass
class RemoveCancellingCastChain(RewritePattern):
    """From a non-trans op, the casts of a dtype-preserving trans chain go."""

    ge_rule: bool

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        found = cast_chain(op)
        if found is None:
            return
        source, chain = found
        if not chain or chain_blocker(source, chain, self.ge_rule) is not None:
            return
        element = tensor_of(source).element_type
        last_cast = [node for node in chain if isinstance(node, CastOp)][-1]
        current = source
        for node in chain:
            if isinstance(node, CastOp):
                rewriter.replace(node, [], [current])
                continue
            attributes = dict(node.attributes)
            if (name := fused_name(last_cast, node)) is not None:
                attributes["name"] = name
            retyped = type(node).create(
                operands=[current],
                result_types=[with_element_type(node.results[0].type, element)],
                attributes=attributes,
                properties=dict(node.properties),
            )
            rewriter.replace(node, retyped)
            current = retyped.results[0]


@dataclass(frozen=True)
class CastRemovePass(ModulePass):
    """Remove redundant casts and casts that cancel along a trans-op chain."""

    name = "cast-remove"

    ge_precision_rule: bool = False
    """Judge chains by GE's precision-loss table instead of exactness."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    RemoveRedundantCast(),
                    RemoveCancellingCastChain(self.ge_precision_rule),
                ]
            )
        ).rewrite_module(op)
