"""`compose-trans-ops`: merge neighbouring relayouts that are not inverses.

Beyond GE (docs/GE_DEVIATIONS.md; GE only cancels inverse pairs and folds a
transpose into the TransData after it), the relayout algebra of MLIR's
pack/unpack folds and ONNX Runtime's `ComposePerm`
(docs/research/layout_optimizers.md §1, §3): two relayouts in a row are one
relayout.

- `ComposeTransposePair`: `transpose(transpose(x, p1), p2)` is
  `transpose(x, [p1[i] for i in p2])`; the identity leaves just `x`.

  ```mlir
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>}
     : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 3, 2, 1>}
     : tensor<1x4x5x3xf32> -> tensor<1x3x5x4xf32>
  // becomes
  %b = ge.transpose %x {perm = array<i64: 0, 1, 3, 2>}
     : tensor<1x3x4x5xf32> -> tensor<1x3x5x4xf32>
  ```
- `FuseTransposeIntoTransData` (GE's, from `transpose-transdata-fusion`):
  `transpose -> transdata` is one TransData from the transpose's source.
- `FoldTransposeIntoTransData`, its mirror image: `transdata -> transpose`
  is one TransData to the transpose's destination layout.

  ```mlir
  %p = ge.transdata %x {src_format = #ge.format<NC1HWC0>,
                        dst_format = #ge.format<NCHW>}
     : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
    -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 3, 1>}
     : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x8x8x3xf16, #ge.layout<NHWC>>
  // becomes
  %t = ge.transdata %x {src_format = #ge.format<NC1HWC0>,
                        dst_format = #ge.format<NHWC>}
     : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
    -> tensor<1x8x8x3xf16, #ge.layout<NHWC>>
  ```

Only merges that remove an op are made: the first op of a pair must have no
other user (otherwise it stays for them and nothing is saved).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.attributes import FormatAttr
from ge_dialect.layout import layout_of
from ge_dialect.ops import PermuteOp, TransDataOp, TransposeOp, letter_permutation
from passes.transop_utils import (
    compose_perms,
    has_default_groups,
    is_identity_perm,
    permutation_of,
    tensor_of,
)
from passes.transpose_transdata_fusion import (
    FuseTransposeIntoTransData,
    transdata_converts,
)


def compose_blocker(first: TransposeOp | PermuteOp) -> str | None:
    """Why the transpose `first` cannot merge into the transpose after it."""
    if not first.y.has_one_use():
        return "the first transpose has other users"
    return None


@dataclass
class ComposeTransposePair(RewritePattern):
    """Two transposes in a row become one (none if they compose to the identity)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: TransposeOp | PermuteOp, rewriter: PatternRewriter
    ) -> None:
        first = op.x.owner
        if not isinstance(first, TransposeOp | PermuteOp):
            return  # the operand is not a transpose
        if compose_blocker(first) is not None:
            return
        perm = compose_perms(permutation_of(first), permutation_of(op))
        if is_identity_perm(perm) and first.x.type == op.y.type:
            rewriter.replace(op, [], [first.x])
        else:
            attributes = {
                k: v for k, v in op.attributes.items() if k != op.PERMUTATION_ATTR
            }
            attributes["perm"] = DenseArrayBase.from_list(i64, perm)
            merged = TransposeOp.create(
                operands=[first.x], result_types=[op.y.type], attributes=attributes
            )
            rewriter.replace(op, merged)
        rewriter.erase(first)


def fold_blocker(
    transdata: TransDataOp, transpose: TransposeOp | PermuteOp
) -> str | None:
    """Why `transdata -> transpose` cannot become one TransData, or None."""
    if not transdata.y.has_one_use():
        return "the TransData has other users"
    if not has_default_groups(transdata):
        return "grouped FRACTAL_Z packing (groups are not part of a type)"
    middle_origin, middle_storage = layout_of(tensor_of(transpose.x))
    out_origin, out_storage = layout_of(tensor_of(transpose.y))
    if middle_storage != middle_origin or out_storage != out_origin:
        return "a transpose tensor is not stored in its origin format"
    if transdata.perm is not None:
        return "the TransData already transposes"
    if letter_permutation(middle_origin, out_origin) != tuple(
        permutation_of(transpose)
    ):
        return "the perm is not the permutation between the formats"
    if not transdata_converts(out_storage, transdata.src_format.data):
        return (
            f"no TransData converts {transdata.src_format.data.value} to "
            f"{out_storage.value}"
        )
    return None


@dataclass
class FoldTransposeIntoTransData(RewritePattern):
    """`transdata -> transpose` becomes one TransData to the transpose's layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: TransposeOp | PermuteOp, rewriter: PatternRewriter
    ) -> None:
        transdata = op.x.owner
        if not isinstance(transdata, TransDataOp):
            return  # the operand is not a TransData
        if fold_blocker(transdata, op) is not None:
            return
        attributes = dict(transdata.attributes)
        attributes["dst_format"] = FormatAttr(layout_of(tensor_of(op.y))[1])
        attributes["perm"] = DenseArrayBase.from_list(i64, permutation_of(op))
        fused = TransDataOp.create(
            operands=[transdata.x], result_types=[op.y.type], attributes=attributes
        )
        rewriter.replace(op, fused)
        rewriter.erase(transdata)


@dataclass(frozen=True)
class ComposeTransOpsPass(ModulePass):
    """Merge neighbouring transposes and TransData into one relayout."""

    name = "compose-trans-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    ComposeTransposePair(),
                    FuseTransposeIntoTransData(),
                    FoldTransposeIntoTransData(),
                ]
            )
        ).rewrite_module(op)
