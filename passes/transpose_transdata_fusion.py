"""`transpose-transdata-fusion`: fold a transpose into the TransData after it.

GE's TransposeTransDataPass (docs/research/ge_behaviour.md §2.4). A transpose that
changes the format (NHWC -> NCHW) and feeds a TransData is absorbed: the
TransData reads the transpose's operand and converts from its format.

```mlir
%t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>}
   : tensor<1x8x8x3xf16, #ge.layout<NHWC>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
%y = ge.transdata %t {src_format = #ge.format<NCHW>,
                      dst_format = #ge.format<NC1HWC0>}
   : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
```
becomes
```mlir
%y = ge.transdata %x {src_format = #ge.format<NHWC>,
                      dst_format = #ge.format<NC1HWC0>}
   : tensor<1x8x8x3xf16, #ge.layout<NHWC>>
  -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
```

The fused TransData carries the transpose's `perm` (composed with its own,
if it had absorbed one before) and its origin formats differ (NHWC in, NCHW
out): the dialect reads that as a transpose by axis
letters (`TransDataOp.origin_permutation`), which is what GE's descriptor
pair on the TransData means.

GE's preconditions, each a bail-out of `fusion_blocker`:
- the transpose changes the format (equal formats: GE warns and leaves it);
- its shape is known (no `?` dims);
- its input format is not ND;
- the TransData from the transpose's input format to the TransData's
  destination is supported (GE asks the kernel store; here
  `transdata_converts`).

The SSA form adds two (docs/GE_DEVIATIONS.md): both transpose tensors are
stored in their origin format (GE's "format" of a transpose is its running
format), and the perm is the letter permutation between the two formats (what
GE assumes when it trusts the formats).

`ge.permute` counts as a transpose (GE's PermutePass makes it a TransposeD
first). Each TransData consumer is fused on its own and renamed
`<transpose name><transdata name>`; the transpose goes when nothing else
uses it. GE copies the transpose's in-control edges to the TransData and adds
one from a Transpose's perm producer: in SSA the fused TransData reads the
transpose's operand, which already dominates it, and `ge.transpose` has its
perm as an attribute, so no ordering needs replacing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.attributes import FormatAttr
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.ops import PermuteOp, TransDataOp, TransposeOp, letter_permutation
from passes.dead_code import erase_dead
from passes.transop_utils import compose_perms, is_identity_perm, permutation_of

TRANSDATA_SOURCES: dict[Format, frozenset[Format]] = {
    Format.NC1HWC0: frozenset({Format.NCHW, Format.NHWC}),
    Format.FRACTAL_Z: frozenset({Format.NCHW, Format.NHWC, Format.HWCN}),
    Format.NDC1HWC0: frozenset({Format.NCDHW, Format.NDHWC}),
    Format.FRACTAL_Z_3D: frozenset({Format.NCDHW, Format.NDHWC, Format.DHWCN}),
}
"""Internal format -> the plain formats one TransData converts it from or to.
Two plain formats convert when they name the same axes."""


def transdata_converts(plain: Format, other: Format) -> bool:
    """Whether one TransData converts plain storage `plain` to or from `other`."""
    if other in TRANSDATA_SOURCES:
        return plain in TRANSDATA_SOURCES[other]
    return plain == other or letter_permutation(plain, other) is not None


def fused_name(first: Operation, second: Operation) -> Attribute | None:
    """GE's name of a node that absorbed `first`: `<first name><second name>`."""
    names = [op.attributes.get("name") for op in (first, second)]
    if not all(isinstance(name, StringAttr) for name in names):
        return names[1]
    return StringAttr("".join(name.data for name in names))  # type: ignore[union-attr]


def fusion_blocker(
    transpose: TransposeOp | PermuteOp, transdata: TransDataOp
) -> str | None:
    """Why `transpose` cannot be folded into its consumer `transdata`, or None."""
    x_type, t_type = transpose.x.type, transpose.y.type
    assert isinstance(x_type, TensorType) and isinstance(t_type, TensorType)
    x_origin, x_storage = layout_of(x_type)
    t_origin, t_storage = layout_of(t_type)
    if x_storage == t_storage:
        return "the transpose does not change the format"
    if -1 in shape_of(x_type):
        return "the transpose's shape is not known"
    if x_storage is Format.ND:
        return "the transpose's input format is ND"
    if x_storage != x_origin or t_storage != t_origin:
        return "a transpose tensor is not stored in its origin format"
    perm = tuple(permutation_of(transpose))
    if letter_permutation(x_origin, t_origin) != perm:
        return "the perm is not the permutation between the formats"
    if not transdata_converts(x_storage, transdata.dst_format.data):
        return (
            f"no TransData converts {x_storage.value} to "
            f"{transdata.dst_format.data.value}"
        )
    return None


@dataclass
class FuseTransposeIntoTransData(RewritePattern):
    """`transpose -> transdata` becomes one TransData from the transpose's input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: TransposeOp | PermuteOp, rewriter: PatternRewriter
    ) -> None:
        source_format = FormatAttr(layout_of(op.x.type)[1])  # type: ignore[arg-type]
        for use in list(op.y.uses):
            transdata = use.operation
            if not isinstance(transdata, TransDataOp):
                continue
            if fusion_blocker(op, transdata) is not None:
                continue
            attributes = dict(transdata.attributes)
            attributes["src_format"] = source_format
            perm = compose_perms(permutation_of(op), transdata.origin_permutation())
            attributes.pop("perm", None)
            if not is_identity_perm(perm):
                attributes["perm"] = DenseArrayBase.from_list(i64, perm)
            if (name := fused_name(op, transdata)) is not None:
                attributes["name"] = name
            fused = TransDataOp.create(
                operands=[op.x],
                result_types=[transdata.y.type],
                attributes=attributes,
            )
            rewriter.replace(transdata, fused)
        erase_dead(rewriter, [op])


@dataclass(frozen=True)
class TransposeTransDataFusionPass(ModulePass):
    """Fold a format-changing transpose into the TransData that follows it."""

    name = "transpose-transdata-fusion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseTransposeIntoTransData()).rewrite_module(op)
