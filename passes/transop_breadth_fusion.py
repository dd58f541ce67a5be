"""`transop-breadth-fusion`: merge identical trans ops that read the same value.

GE's TransOpBreadthFusionPass (docs/research/ge_behaviour.md §2.2). Trans ops
consuming one value with the same op, attributes and result type compute the
same thing; the first one in the block is kept and takes the others' uses:

```mlir
%a = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
%b = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
%r = ge.add %a, %b : ...
// after:
%a = ge.cast %x {dst_type = f16} : tensor<2x17xf32> -> tensor<2x17xf16>
%r = ge.add %a, %a : ...
```

GE builds a fusion id from the op type, the output anchor, `stream_label` and
the type-specific descriptor fields (research §2.2): the shapes for Reshape,
Squeeze and Unsqueeze, formats and shapes for ExpandDims, and the perm for a
Transpose. Here the id is the op name, the result type (the whole output
descriptor) and every attribute except the node `name`, so `stream_label` and
`groups` keep ops apart as in GE. The attributes that only spell the result
shape of a regrouping op (`shape`, `axes`, `axis`) are left out when the
result type fixes it, as GE compares shapes: reshapes to `[3, 17]` written
`[3, 17]` and `[3, -1]` are one op, and so are `expand_dims` axis 0 and axis
-2 with one `[1, 3]` result. A transpose is compared by its normalised
permutation (`[0, -1, 1, 2]` is `[0, 3, 1, 2]`). Stricter than GE where GE's
id is too coarse (docs/GE_DEVIATIONS.md): two UnsqueezeV2 always fuse in GE,
here their results must agree; a result with two unknown dims keeps the
attributes in the id (they are then not implied by it). The operand is one
SSA value, so ops on different results of one producer never meet (GE's
"different output anchors"). Shape, perm and axes are attributes, so GE's
"non-data input must be a constant" rule always holds.

Control edges: GE moves the removed op's in-control edges to its consumers
and adds producer -> consumer control edges so no cycle appears. The kept
op comes first in the block, so it dominates every use it takes over; SSA
needs nothing more. The walker revisits the kept op's users, so their own
identical trans ops merge in the same run (GE's topological sweep).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect.ops import PermuteOp, TransposeOp
from passes.transop_utils import permutation_of, spelled_by_result_type, trans_kind

NODE_NAME = "name"
"""The node-name attribute; it never keeps two trans ops apart."""


def fusion_id(op: Operation) -> tuple[object, ...]:
    """What must agree for two trans ops on one value to be merged."""
    ignored = {NODE_NAME}
    permutation: tuple[int, ...] = ()
    if spelled_by_result_type(op):
        assert isinstance(op, IRDLOperation)
        ignored.update(op.get_irdl_definition().attributes)
    elif isinstance(op, TransposeOp | PermuteOp):
        ignored.add(op.PERMUTATION_ATTR)
        permutation = tuple(permutation_of(op))
    attributes: tuple[tuple[str, Attribute], ...] = tuple(
        sorted((k, v) for k, v in op.attributes.items() if k not in ignored)
    )
    properties = tuple(sorted(op.properties.items()))
    return (op.name, attributes, properties, permutation, tuple(op.result_types))


def trans_users(value: SSAValue) -> list[Operation]:
    """The trans ops reading `value` as their data operand, in block order."""
    users = {
        use.operation
        for use in value.uses
        if use.index == 0 and trans_kind(use.operation) is not None
    }
    if len(users) < 2:
        return list(users)  # nothing to merge, no need to order
    block = next(iter(users)).parent_block()
    assert block is not None
    return [op for op in block.ops if op in users]


class FuseIdenticalTransOps(RewritePattern):
    """Merge trans ops with the same fusion id on one result of `op`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for value in op.results:
            kept: dict[tuple[object, ...], Operation] = {}
            for user in trans_users(value):
                first = kept.setdefault(fusion_id(user), user)
                if first is user:
                    continue  # the first op with this id is kept
                rewriter.replace(user, [], list(first.results))


@dataclass(frozen=True)
class TransOpBreadthFusionPass(ModulePass):
    """Merge identical trans ops that read one value."""

    name = "transop-breadth-fusion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseIdenticalTransOps()).rewrite_module(op)
