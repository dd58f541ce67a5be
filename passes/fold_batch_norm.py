"""`fold-batch-norm`: inference batch norm folded into the conv or matmul before it.

Inference batch norm is a per-channel affine map, `y = a * x + b` with
`a = scale / sqrt(variance + epsilon)` and `b = offset - mean * a`. After a
convolution it folds into the filter (output channel `o` scaled by `a[o]`)
and the bias (`a * bias + b`, created if absent); after a matrix product
(`ge.matmul`, `ge.gemm`, seen through the reshape the ONNX importer puts in
front of a 4-D batch norm) into the weight's columns and the bias (or
Gemm's `c`). ATC does this in its graph fusion (`ConvBatchNormFold` and
`MatMulBatchNormFold` in `fusion_rules.json`, switchable with `disable`).

```mlir
%c = ge.conv2d %x, %w {data_format = "NCHW", name = "conv"} : (...) -> ...
%y = ge.batch_norm %c, %scale, %offset, %mean, %var {..., name = "bn"} : ...
// becomes (named nodes: named like a fused group, as its value is the
// batch norm's, which is what a data dump compares)
%y = ge.conv2d %x, %w2, %b2 {data_format = "NCHW", name = "conv+bn"} : ...
```

The folded filter and bias are new constants (the old ones go when
unused), computed in float64 and stored in their types' storage layouts,
so the pass also works after the format pipeline (FRACTAL_Z filters).
External weights are read from and written to the weights mapping of
`fold_constants.FOLD_WEIGHTS`. A batch norm is left alone, with the reason
logged (`fold-batch-norm: NODE not folded: ...`), when the producer's
result has other consumers, a parameter or weight is not a readable
constant, or the types do not line up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, TensorType, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    op_type_rewrite_pattern,
)

from ge_dialect.layout import layout_of, shape_of
from ge_dialect.naming import node_label
from ge_dialect.ops import (
    BatchNormOp,
    ConstOp,
    Conv2DOp,
    ExpandDimsOp,
    GemmOp,
    MatMulOp,
    ReshapeOp,
    UnsqueezeOp,
    attribute_value,
    enclosing_target,
)
from passes.fold_constants import is_external, make_constant
from passes.product_folding import (
    FoldIntoProduct,
    NotFolded,
    apply_folds,
    check_disabled_rules,
    only_use,
    readable,
    replace_product,
    tensor_type,
)

RESHAPES = (ReshapeOp, UnsqueezeOp, ExpandDimsOp)
"""Ops between a matrix product [N, C] and its 4-D batch norm [N, C, 1, 1]."""


def batch_norm_affine(bn: BatchNormOp) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with batch_norm(x) = a * x + b per channel, in float64."""
    scale, offset, mean, variance = (
        readable(getattr(bn, name), name)
        for name in ("scale", "offset", "mean", "variance")
    )
    a = scale / np.sqrt(variance + float(attribute_value(bn, "epsilon")))
    return a, offset - mean * a


@dataclass
class FoldBatchNorm(FoldIntoProduct):
    """Base of the two folds (the log lines name `fold-batch-norm`)."""

    PASS = "fold-batch-norm"


@dataclass
class FoldBatchNormIntoConv(FoldBatchNorm):
    """`batch_norm(conv2d(x, w[, bias]))` -> `conv2d(x, w * a, a * bias + b)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.x.owner, Conv2DOp):
            self.fold(op, rewriter, self.rewrite)

    @staticmethod
    def rewrite(bn: BatchNormOp, rewriter: PatternRewriter) -> None:
        conv = bn.x.owner
        assert isinstance(conv, Conv2DOp)
        only_use(conv.y, "convolution")
        if attribute_value(conv, "data_format") != attribute_value(bn, "data_format"):
            raise NotFolded("the convolution and the batch norm differ in data_format")
        if bn.y.type != conv.y.type:
            raise NotFolded(
                "the batch norm's result type differs from the convolution's"
            )
        a, b = batch_norm_affine(bn)
        filter_ = readable(conv.filter, "filter")
        origin, _ = layout_of(tensor_type(conv.filter))
        letters = "NCHW" if len(origin.value) != 4 else origin.value
        shape = [1] * 4
        shape[letters.index("N")] = len(a)
        bias = np.zeros_like(a) if conv.bias is None else readable(conv.bias, "bias")
        target = enclosing_target(conv)
        name = node_label(conv)
        new_filter = make_constant(
            filter_ * a.reshape(shape),
            tensor_type(conv.filter),
            f"{name}/filter_bn",
            target,
            is_external(conv.filter),
        )
        bias_type = (
            tensor_type(conv.bias)
            if conv.bias is not None
            else TensorType(tensor_type(conv.y).element_type, [len(a)])
        )
        new_bias = make_constant(a * bias + b, bias_type, f"{name}/bias_bn", target)
        folded = Conv2DOp.create(
            operands=[conv.x, new_filter.output, new_bias.output],
            result_types=[conv.y.type],
            attributes=dict(conv.attributes),
            properties=dict(conv.properties),
        )
        old = [conv.filter, *([conv.bias] if conv.bias is not None else [])]
        _replace(bn, conv, [new_filter, new_bias, folded], folded.y, old, rewriter)


@dataclass
class FoldBatchNormIntoMatMul(FoldBatchNorm):
    """`batch_norm(reshape(matmul(x, w[, bias])))` with the channels on the
    matrix columns -> `reshape(matmul(x, w * a, a * bias + b))` (Gemm: `c`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        reshape = op.x.owner
        if isinstance(reshape, RESHAPES) and isinstance(
            reshape.operands[0].owner, MatMulOp | GemmOp
        ):
            self.fold(op, rewriter, self.rewrite)

    @staticmethod
    def rewrite(bn: BatchNormOp, rewriter: PatternRewriter) -> None:
        reshape = bn.x.owner
        assert isinstance(reshape, Operation)
        product = reshape.operands[0].owner
        assert isinstance(product, MatMulOp | GemmOp)
        only_use(product.results[0], "matrix product")
        only_use(reshape.results[0], "reshape")
        rows, columns = shape_of(tensor_type(product.results[0]))
        data_format = str(attribute_value(bn, "data_format"))
        expected = [1, 1, 1, 1]
        expected[0], expected[data_format.index("C")] = rows, columns
        if list(shape_of(tensor_type(reshape.results[0]))) != expected:
            raise NotFolded("the reshape does not put the matrix columns on channels")
        if bn.y.type != reshape.results[0].type:
            raise NotFolded("the batch norm's result type differs from the reshape's")
        a, b = batch_norm_affine(bn)
        folded = (
            _fold_matmul(product, a, b)
            if isinstance(product, MatMulOp)
            else _fold_gemm(product, a, b)
        )
        old = list(product.operands[1:])
        _replace(bn, product, folded, reshape.results[0], old, rewriter)


def _replace(
    bn: BatchNormOp,
    product: Operation,
    folded: list[Operation],
    result: SSAValue,
    weights: list[SSAValue],
    rewriter: PatternRewriter,
) -> None:
    """`replace_product`, dropping the batch norm's unused parameters too."""
    parameters = (bn.scale, bn.offset, bn.mean, bn.variance)
    replace_product(bn, product, folded, result, [*weights, *parameters], rewriter)


def _scaled_weight(
    product: MatMulOp | GemmOp, weight: SSAValue, transposed: bool, a: np.ndarray
) -> ConstOp:
    """The weight with column j (row j if `transposed`) scaled by a[j]."""
    scale = a.reshape(-1, 1) if transposed else a.reshape(1, -1)
    return make_constant(
        readable(weight, "weight") * scale,
        tensor_type(weight),
        f"{node_label(product)}/weight_bn",
        enclosing_target(product),
        is_external(weight),
    )


def _fold_matmul(product: MatMulOp, a: np.ndarray, b: np.ndarray) -> list[Operation]:
    weight = _scaled_weight(
        product, product.x2, bool(attribute_value(product, "transpose_x2")), a
    )
    bias = np.zeros_like(a) if product.bias is None else readable(product.bias, "bias")
    bias_type = (
        tensor_type(product.bias)
        if product.bias is not None
        else TensorType(tensor_type(product.y).element_type, [len(a)])
    )
    target = enclosing_target(product)
    new_bias = make_constant(
        a * bias + b, bias_type, f"{node_label(product)}/bias_bn", target
    )
    folded = MatMulOp.create(
        operands=[product.x1, weight.results[0], new_bias.output],
        result_types=[product.y.type],
        attributes=dict(product.attributes),
        properties=dict(product.properties),
    )
    return [weight, new_bias, folded]


def _fold_gemm(product: GemmOp, a: np.ndarray, b: np.ndarray) -> list[Operation]:
    """alpha * A @ (B * a) + beta * c', with beta * c' = a * beta * c + b."""
    weight = _scaled_weight(
        product, product.b, bool(attribute_value(product, "trans_b")), a
    )
    beta = float(attribute_value(product, "beta"))
    attributes = dict(product.attributes)
    element = tensor_type(product.y).element_type
    if product.c is None or beta == 0.0:
        c = b
        attributes["beta"] = FloatAttr(1.0, f32)
        c_type = TensorType(element, [len(a)])
    else:
        old = readable(product.c, "c")
        shape = (*old.shape[:-1], len(a)) if old.ndim else (len(a),)
        c = np.broadcast_to(old, shape) * a + b / beta
        c_type = (
            tensor_type(product.c)
            if tuple(shape_of(tensor_type(product.c))) == shape
            else TensorType(element, list(shape))
        )
    target = enclosing_target(product)
    new_c = make_constant(c, c_type, f"{node_label(product)}/c_bn", target)
    folded = GemmOp.create(
        operands=[product.a, weight.results[0], new_c.output],
        result_types=[product.y.type],
        attributes=attributes,
        properties=dict(product.properties),
    )
    return [weight, new_c, folded]


FOLDS: dict[str, type[FoldBatchNorm]] = {
    "ConvBatchNormFold": FoldBatchNormIntoConv,
    "MatMulBatchNormFold": FoldBatchNormIntoMatMul,
}
"""Fusion rule -> the pattern implementing it."""


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    """Fold inference batch norm into the convolution or matmul before it."""

    name = "fold-batch-norm"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`ConvBatchNormFold`, `MatMulBatchNormFold`)."""

    def __post_init__(self) -> None:
        check_disabled_rules(self, self.disable)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_folds(op, self.name, self.disable, FOLDS)
