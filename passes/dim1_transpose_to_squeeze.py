"""`dim1-transpose-to-squeeze`: a transpose that only moves size-1 axes
becomes a squeeze and an unsqueeze (GE's Dim1TransposeToSqueezePass).

Reading the perm in order and skipping size-1 axes, the other axes appear in
increasing order: the data order is unchanged and only the unit axes move,
which a squeeze of the unit source axes followed by an unsqueeze at their
output positions does without copying (docs/research/ge_behaviour.md §2.9).

```mlir
%y = ge.transpose %x {perm = array<i64: 1, 0, 2>}
   : tensor<1x5x7xf32> -> tensor<5x1x7xf32>
```
becomes
```mlir
%s = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x5x7xf32> -> tensor<5x7xf32>
%y = ge.unsqueeze %s {axes = array<i64: 1>} : tensor<5x7xf32> -> tensor<5x1x7xf32>
```

GE's bail-outs (`squeeze_blocker`): the op was inserted by FE
(`_inserted_by_fe = 1`), or every result dim is unknown. Unknown dims count
as "not size 1". GE also skips nano chips (ub block size 16); no target of
this project is one. Two more come from the SSA form (docs/GE_DEVIATIONS.md):
a transpose with no size-1 axis or with the identity perm has nothing to turn
into a squeeze (`ge.squeeze` without axes would mean "every size-1 axis"; an
identity perm is `unchanged-transpose-remove`'s), and both tensors must be
stored in their origin format (the squeezed middle value has no format, ND).
`ge.permute` counts as a transpose, as after GE's PermutePass.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.layout import layout_of, shape_of
from ge_dialect.ops import PermuteOp, SqueezeOp, TransposeOp, UnsqueezeOp
from passes.transop_utils import is_identity_perm, permutation_of, tensor_of

INSERTED_BY_FE = "_inserted_by_fe"
"""Attribute GE's FE sets on transposes it inserted; those are left alone."""


def squeeze_blocker(op: TransposeOp | PermuteOp) -> str | None:
    """Why `op` cannot become squeeze + unsqueeze, or None."""
    marker = op.attributes.get(INSERTED_BY_FE)
    if isinstance(marker, IntegerAttr) and marker.value.data == 1:
        return "inserted by FE"
    shape = shape_of(tensor_of(op.x))
    if all(size == -1 for size in shape_of(tensor_of(op.y))):
        return "every result dim is unknown"
    perm = permutation_of(op)
    if is_identity_perm(perm):
        return "the perm is the identity"
    if 1 not in shape:
        return "no axis has size 1"
    kept = [axis for axis in perm if shape[axis] != 1]
    if kept != sorted(kept):
        return "an axis of size other than 1 moves"
    if any(o != s for o, s in (layout_of(tensor_of(v)) for v in (op.x, op.y))):
        return "a transpose tensor is not stored in its origin format"
    return None


@dataclass
class TransposeToSqueezeUnsqueeze(RewritePattern):
    """A transpose of size-1 axes becomes squeeze + unsqueeze."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: TransposeOp | PermuteOp, rewriter: PatternRewriter
    ) -> None:
        if squeeze_blocker(op) is not None:
            return
        x_type = tensor_of(op.x)
        shape = shape_of(x_type)
        perm = permutation_of(op)
        unit_axes = [axis for axis, size in enumerate(shape) if size == 1]
        positions = [i for i, axis in enumerate(perm) if shape[axis] == 1]
        squeezed = TensorType(
            x_type.element_type,
            [d for axis, d in enumerate(x_type.get_shape()) if axis not in unit_axes],
        )
        squeeze = SqueezeOp.create(
            operands=[op.x],
            result_types=[squeezed],
            attributes={"axes": DenseArrayBase.from_list(i64, unit_axes)},
        )
        unsqueeze = UnsqueezeOp.create(
            operands=[squeeze.y],
            result_types=[op.y.type],
            attributes={"axes": DenseArrayBase.from_list(i64, positions)},
        )
        rewriter.replace(op, [squeeze, unsqueeze])


@dataclass(frozen=True)
class Dim1TransposeToSqueezePass(ModulePass):
    """Turn transposes that move only size-1 axes into squeeze + unsqueeze."""

    name = "dim1-transpose-to-squeeze"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(TransposeToSqueezeUnsqueeze()).rewrite_module(op)
