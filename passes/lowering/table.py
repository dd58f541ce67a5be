"""Finding an op's lowering, and why an op has none.

Emitters register by op class in the family modules (`elementwise`,
`movement`, `nn`, `fused`; see `registry`); `Elementwise` ops with a scalar
body lower generically. Ops that have no lowering say why in `NOT_LOWERED`;
the completeness tests check that every `ge` op is in one of the two.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ge_dialect.ops import (
    CaseOp,
    Conv2DTransposeOp,
    GatherOp,
    IfOp,
    PartitionedCallOp,
    WhileOp,
)
from ge_dialect.ops.structure import Structural
from passes.lowering import elementwise, fused, movement, nn
from passes.lowering.registry import Lowering, registered_lowering

FAMILY_MODULES = (elementwise, fused, movement, nn)
"""The modules whose import registers the emitters."""

NOT_LOWERED: dict[type[Operation], str] = {
    IfOp: "control flow",
    CaseOp: "control flow",
    WhileOp: "control flow",
    PartitionedCallOp: "engine subgraphs are inlined before lowering",
    Conv2DTransposeOp: "no loop emitter yet: it runs on its NumPy kernel",
    GatherOp: "data-dependent indexing: it runs as a host fallback",
}
"""Op class -> why it is not lowered to loops."""


def lowering_for(op: Operation) -> Lowering | None:
    """The lowering of `op`: a registered emitter, else the generic
    elementwise one for ops with a scalar body, else None."""
    registered = registered_lowering(type(op))
    if registered is not None:
        return registered
    if elementwise.has_scalar_body(op):
        return elementwise.lower_elementwise
    return None


def unlowered_reason(op: Operation) -> str | None:
    """Why `op` has no lowering, if the dialect says (for diagnostics)."""
    if op.has_trait(Structural) and type(op) not in NOT_LOWERED:
        return "graph structure is lowered with its graph"
    return NOT_LOWERED.get(type(op))
