"""`fold-transpose-into-matmul`: a transpose that moves the innermost axis of
a matrix product's operand becomes the product's transpose attribute.

CANN's TransposeBatchMatMulFusionPass. Attention computes `q @ k^T` with
`k` split into heads by `transpose (0, 2, 3, 1)`, which moves the innermost
(contiguous) axis of `k` to second-to-last. Since `transpose(t, p)` is
`transpose(t, p')` with its last two axes swapped (`p'`: `p` with its last
two entries swapped), the swap goes into the product (`adj_x2`,
`transpose_x2`, `trans_b` flip) and the transpose left over keeps the
innermost axis innermost: a head split that runs in FRACTAL_NZ
(`fuse-confusion-transpose`), or nothing at all when `p'` is the identity.

```mlir
%kt = ge.transpose %k {perm = array<i64: 0, 2, 3, 1>}
    : tensor<2x11x4x16xf32> -> tensor<2x4x16x11xf32>
%s = ge.batch_matmul %q, %kt : (tensor<2x4x11x16xf32>, tensor<2x4x16x11xf32>)
   -> tensor<2x4x11x11xf32>
// becomes
%kh = ge.transpose %k {perm = array<i64: 0, 2, 1, 3>}
    : tensor<2x11x4x16xf32> -> tensor<2x4x11x16xf32>
%s = ge.batch_matmul %q, %kh {adj_x2 = true}
   : (tensor<2x4x11x16xf32>, tensor<2x4x11x16xf32>) -> tensor<2x4x11x11xf32>
```

A reshape of the batch axes after the transpose (GPT-2's `k^T`, computed
over `[B*H, S, D]`) first trades places with it (`commute_batch_reshape`).
An elementwise op with scalars between the transpose and the product (the
scale `k^T * c` of an exported `scaled_dot_product_attention`) first moves
above the transpose and the single-use shape ops before it. Bail-outs: the
transpose has other users (it would be computed twice), or it does not move
the operand's innermost axis to second-to-last. ATC runs it in graph fusion
(rule `TransposeBatchMatMulFusion`, switchable with `disable`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.layout import is_scalar, shape_of
from ge_dialect.ops import ReshapeOp, TransposeOp
from ge_dialect.ops.base import boolean
from ge_dialect.ops.matmul import MatrixProductOp
from ge_dialect.ops.trans import ShapeOp
from ge_dialect.traits import Elementwise
from passes.dead_code import erase_dead
from passes.fuse_ops import check_disable_option, enabled_rules
from passes.transop_utils import dtype_of, is_identity_perm


def swapped_last_two(perm: list[int]) -> list[int]:
    """`perm` with its last two entries swapped."""
    return [*perm[:-2], perm[-1], perm[-2]]


def hoist_above_transpose(op: Operation, rewriter: PatternRewriter) -> Operation:
    """`op(transpose(t), scalars)` becomes `transpose(op(t, scalars))` when
    `op` is elementwise (the scale `k^T * c` of an exported attention), and
    `op` moves above the single-use shape ops before the transpose too (the
    head split stays one reshape and one transpose); the transpose, which
    now meets the product, is returned. Otherwise `op` itself."""
    if not op.has_trait(Elementwise) or len(op.results) != 1:
        return op
    transposes = [v for v in op.operands if isinstance(v.owner, TransposeOp)]
    scalars = [v for v in op.operands if is_scalar(v.type)]
    if len(transposes) != 1 or len(transposes) + len(scalars) != len(op.operands):
        return op
    transpose = transposes[0].owner
    assert isinstance(transpose, TransposeOp)
    perm = transpose.permutation()
    if not transpose.y.has_one_use() or perm[-2:] != [len(perm) - 1, *perm[-1:]]:
        return op
    first: Operation = transpose
    while isinstance(first.operands[0].owner, ShapeOp) and (
        first.operands[0].has_one_use()
    ):
        first = first.operands[0].owner
    top = first.operands[0]
    if dtype_of(top) != dtype_of(op.results[0]):
        return op
    late = [
        v.owner
        for v in scalars
        if isinstance(v.owner, Operation)
        and v.owner.parent is first.parent
        and first.is_before_in_block(v.owner)
    ]
    if any(scalar.operands for scalar in late):
        return op  # a computed scalar defined after the shape ops
    for scalar in late:  # constants: defined before the hoisted op
        scalar.detach()
        rewriter.insert(scalar, InsertPoint.before(first))
    hoisted = type(op).create(
        operands=[top if v is transpose.y else v for v in op.operands],
        result_types=[top.type],
        attributes=dict(op.attributes),
        properties=dict(op.properties),
    )
    rewriter.insert(hoisted, InsertPoint.before(first))
    first.operands[0] = hoisted.results[0]
    op.results[0].replace_all_uses_with(transpose.y)
    rewriter.erase(op)
    return transpose


def is_last_two_swap(perm: list[int]) -> bool:
    """Whether `perm` swaps the last two axes and keeps the others."""
    rank = len(perm)
    return rank >= 2 and perm == [*range(rank - 2), rank - 1, rank - 2]


def commute_batch_reshape(value: SSAValue, rewriter: PatternRewriter) -> None:
    """`reshape(transpose(t))` feeding `value` (through an elementwise op with
    scalars), where the transpose swaps the last two axes and the reshape
    regroups only the leading (batch) ones, becomes `transpose(reshape(t))`:
    GPT-2's export computes `k^T` per head as `reshape [B*H, S, D]`,
    `transpose (0, 2, 1)`, `reshape [B, H, D, S]`; commuted, the swap meets
    the product and the reshapes cancel."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.has_trait(Elementwise):
        tensors = [v for v in owner.operands if not is_scalar(v.type)]
        owner = tensors[0].owner if len(tensors) == 1 else None
    if not isinstance(owner, ReshapeOp) or not owner.x.has_one_use():
        return
    transpose = owner.x.owner
    if not isinstance(transpose, TransposeOp) or not is_last_two_swap(
        transpose.permutation()
    ):
        return
    before, after = shape_of(owner.x.type), shape_of(owner.y.type)  # type: ignore[arg-type]
    if before[-2:] != after[-2:]:
        return  # the reshape regroups a matrix axis
    x_shape = shape_of(transpose.x.type)  # type: ignore[arg-type]
    element = transpose.x.type.element_type  # type: ignore[attr-defined]
    batched = [*after[:-2], x_shape[-2], x_shape[-1]]
    regrouped = ReshapeOp.create(
        operands=[transpose.x],
        result_types=[TensorType(element, batched)],
        attributes={
            **owner.attributes,
            "shape": DenseArrayBase.from_list(i64, batched),
        },
    )
    swapped = TransposeOp.create(
        operands=[regrouped.y],
        result_types=[owner.y.type],
        attributes={
            **transpose.attributes,
            "perm": DenseArrayBase.from_list(
                i64, [*range(len(after) - 2), len(after) - 1, len(after) - 2]
            ),
        },
    )
    rewriter.replace(owner, [regrouped, swapped])
    erase_dead(rewriter, [transpose])


@dataclass
class FoldTransposeIntoProduct(RewritePattern):
    """`product(transpose(t))` with the innermost axis moved: the swap of the
    last two axes goes into the product's transpose attribute."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatrixProductOp, rewriter: PatternRewriter) -> None:
        for index, attribute in enumerate(op.TRANSPOSE_ATTRIBUTES):
            commute_batch_reshape(op.operands[index], rewriter)
            transpose = op.operands[index].owner
            if isinstance(transpose, Operation) and not isinstance(
                transpose, TransposeOp
            ):
                transpose = hoist_above_transpose(transpose, rewriter)
            if not isinstance(transpose, TransposeOp):
                continue
            if not transpose.y.has_one_use():
                continue
            perm = transpose.permutation()
            if len(perm) < 2 or perm[-2] != len(perm) - 1:
                continue
            rest = swapped_last_two(perm)
            source = transpose.x
            if not is_identity_perm(rest):
                x_shape = transpose.x.type.get_shape()  # type: ignore[attr-defined]
                result_type = TensorType(
                    transpose.y.type.element_type,  # type: ignore[attr-defined]
                    [x_shape[p] for p in rest],
                )
                kept = TransposeOp.create(
                    operands=[transpose.x],
                    result_types=[result_type],
                    attributes={
                        **transpose.attributes,
                        "perm": DenseArrayBase.from_list(i64, rest),
                    },
                )
                kept.y.name_hint = transpose.y.name_hint
                rewriter.insert(kept, InsertPoint.before(transpose))
                source = kept.y
            op.operands[index] = source
            op.attributes[attribute] = boolean(not op.value_of(attribute))
            rewriter.notify_op_modified(op)
            erase_dead(rewriter, [transpose])


@dataclass(frozen=True)
class FoldTransposeIntoMatMulPass(ModulePass):
    """Fold transposes of the innermost axis into the matrix products after them."""

    name = "fold-transpose-into-matmul"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`TransposeBatchMatMulFusion`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not enabled_rules(self.name, self.disable):
            return
        PatternRewriteWalker(FoldTransposeIntoProduct()).rewrite_module(op)
