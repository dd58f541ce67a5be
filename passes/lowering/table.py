"""Finding an op's lowering, and why an op has none.

Emitters register by op class in the family modules (`elementwise`,
`movement`, `nn`, `conv_transpose`, `fused`, `image`, `cumulative`, `scatter`,
`einsum`, `signal`, `sorting`, `value_shaped`, `detection`, `stochastic`,
`blocks`; see `registry`); `Elementwise` ops with a scalar body lower
generically; control flow lowers with its regions
(`control_flow.CONTROL_FLOW`) and calls become functions
(`control_flow.CALLS`). Ops that have no lowering say why in `NOT_LOWERED`;
the completeness tests check that every `ge` op is in one of them.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ge_dialect.ops import (
    ConstOp,
    DataOp,
    DynamicAttrsOp,
    DynamicReshapeOp,
    GraphOp,
    ImageDecoderOp,
    LabelEncoderOp,
    NetOutputOp,
    RegexFullMatchOp,
    StringConcatOp,
    StringNormalizerOp,
    StringSplitOp,
    VariableOp,
)
from ge_dialect.traits import Elementwise
from passes.lowering import (
    blocks,
    conv_transpose,
    cumulative,
    detection,
    einsum,
    elementwise,
    fused,
    image,
    movement,
    nn,
    scatter,
    signal,
    sorting,
    stochastic,
    value_shaped,
)
from passes.lowering.control_flow import CALLS, CONTROL_FLOW
from passes.lowering.registry import Lowering, registered_lowering

FAMILY_MODULES = (
    blocks,
    conv_transpose,
    cumulative,
    detection,
    einsum,
    elementwise,
    fused,
    image,
    movement,
    nn,
    scatter,
    signal,
    sorting,
    stochastic,
    value_shaped,
)
"""The modules whose import registers the emitters."""


ON_STRINGS = (
    "it reads or makes strings, which live outside the arena: it runs on the "
    "host through the NumPy kernel library (aclnn_only)"
)

NOT_LOWERED: dict[type[Operation], str] = {
    GraphOp: "the graph itself: it becomes the func.func",
    DataOp: "a graph input: a function argument",
    ConstOp: "a constant: a memref.global or a ge.weight argument",
    NetOutputOp: "the graph's results: the func.return",
    VariableOp: "state kept across runs, which a loop function has no place for",
    DynamicReshapeOp: "its target shape is a run-time value: host scheduling "
    "reads it and lowers the ge.reshape it gives",
    DynamicAttrsOp: "its parameters are run-time values: host scheduling binds them "
    "and lowers the static op it names",
    StringConcatOp: ON_STRINGS,
    StringNormalizerOp: ON_STRINGS,
    RegexFullMatchOp: ON_STRINGS,
    StringSplitOp: ON_STRINGS,
    LabelEncoderOp: ON_STRINGS,
    ImageDecoderOp: "it decodes an image format (Pillow's codecs, on the host): a "
    "codec has no loop form",
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


def has_lowering(op_class: type[Operation]) -> bool:
    """Whether ops of `op_class` lower (for some operand types)."""
    return (
        registered_lowering(op_class) is not None
        or op_class in CONTROL_FLOW
        or op_class in CALLS
        or (op_class.has_trait(Elementwise) and hasattr(op_class, "scalar"))
    )


def unlowered_reason(op: Operation) -> str | None:
    """Why `op` has no lowering, if the dialect says (for diagnostics)."""
    return NOT_LOWERED.get(type(op))
