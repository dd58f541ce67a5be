"""`merge-identical-ops`: ops computing the same value from the same inputs
become one (GE's CommonSubexpressionEliminationPass).

Exporters repeat a computation per layer: each of BERT's attention layers
turns the one attention mask into the additive mask with its own `Where`
and its own two scalar constants. Two side-effect-free ops (xDSL's `Pure`,
no regions) of one type, with the same operands, attributes and result
types, compute the same value; the later one's uses take the earlier one's
results and it goes. Node names (`name`) are labels, not semantics, so they
do not keep two ops apart (xDSL's `cse` compares every attribute and would).
Constants merge by value, so the ops reading equal constants merge next.

```mlir
%a0 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "l0/zero"} : tensor<1xf32>
%w0 = ge.select %m, %a0, %b0 {name = "layer0/Where"} : ...
%a1 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "l1/zero"} : tensor<1xf32>
%w1 = ge.select %m, %a1, %b1 {name = "layer1/Where"} : ...
// becomes
%a0 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "l0/zero"} : tensor<1xf32>
%w0 = ge.select %m, %a0, %b0 {name = "layer0/Where"} : ...   // both layers read it
```

Each block is scanned in order (an earlier op dominates a later one of its
block); ops with regions, and ops that are not `Pure` (`ge.data`, the
graph's structure), are never merged.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import Pure

LABEL_ATTRIBUTES = frozenset({"name"})
"""Attributes that name a node without changing what it computes."""


def identity_key(op: Operation) -> Hashable:
    """What `op` computes: its type, operands, attributes (but its name),
    properties and result types."""
    attributes = tuple(
        sorted(
            (key, value)
            for key, value in op.attributes.items()
            if key not in LABEL_ATTRIBUTES
        )
    )
    return (
        op.name,
        tuple(op.operands),
        attributes,
        tuple(sorted(op.properties.items())),
        tuple(result.type for result in op.results),
    )


def merge_identical_ops(block: Block) -> int:
    """Merge the identical `Pure` ops of `block`; how many went."""
    first: dict[Hashable, Operation] = {}
    merged = 0
    for op in list(block.ops):
        if op.regions or not op.has_trait(Pure) or not op.results:
            continue
        kept = first.setdefault(identity_key(op), op)
        if kept is op:
            continue
        Rewriter.replace_op(op, [], list(kept.results))
        merged += 1
    return merged


@dataclass(frozen=True)
class MergeIdenticalOpsPass(ModulePass):
    """Ops of one type, operands and attributes (names aside) become one."""

    name = "merge-identical-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = [
            block
            for inner in op.walk()
            for region in inner.regions
            for block in region.blocks
        ]
        for block in blocks:
            merge_identical_ops(block)
