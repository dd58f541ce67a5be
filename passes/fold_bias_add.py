"""`fold-bias-add`: a constant per-channel addend folds into the bias of the
convolution or matrix product before it.

A cube op adds its bias while it writes its result, so ATC's graph fusion
folds the bias that frameworks keep apart into it: TensorFlow's `Conv2D` ->
`BiasAdd` and Keras' `Dense` (`MatMul` -> `BiasAdd`), the ONNX exports of
matrix products (`MatMul` -> `Add`). Two rules (`fusion_rules.json`,
switchable with `disable`):

- `ConvBiasAddFold`: after a `ge.conv2d` / `ge.conv2d_transpose`;
- `MatMulBiasAddFold`: after a `ge.matmul` (its bias) or `ge.gemm` (its `c`,
  `beta * c + d` becoming `beta * (c + d / beta)`).

The addend is a `ge.bias_add` on the product's channel axis (the conv's C,
the matrix columns) or a `ge.add` (either operand order) of a constant that
is the same along every axis but the channel axis (`[C]` on NHWC, `[C, 1,
1]` on NCHW, a scalar) and does not broadcast the product's result up:

```mlir
%c = ge.conv2d %x, %w {data_format = "NHWC", name = "conv"} : (...) -> ...
%y = ge.bias_add %c, %b {data_format = "NHWC", name = "bias"} : ...
// becomes (the sum of the two biases computed in float64)
%y = ge.conv2d %x, %w, %b2 {data_format = "NHWC", name = "conv+bias"} : ...
```

A product without a bias takes the addend itself as its bias (so a `-0.0`
addend stays `-0.0`). The new bias is a new constant (the old one goes
when unused) in the old bias's type, so the pass also works after the format
pipeline. The addend is left alone, with the reason logged (`fold-bias-add:
NODE not folded: ...`), when the product's result has other consumers, the
addend or the old bias is not a readable constant, or the types do not line
up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, TensorType, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from ge_dialect.layout import shape_of
from ge_dialect.naming import node_label
from ge_dialect.ops import (
    AddOp,
    BiasAddOp,
    ConstOp,
    GemmOp,
    MatMulOp,
    attribute_value,
    enclosing_target,
)
from ge_dialect.ops.nn import ConvolutionOp
from passes.fold_constants import make_constant
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

Product = ConvolutionOp | MatMulOp | GemmOp


def channel_axis(product: Product) -> int:
    """The axis of `product`'s result its bias is added on."""
    if isinstance(product, ConvolutionOp):
        return str(attribute_value(product, "data_format")).index("C")
    return 1


def per_channel(addend: np.ndarray, result: TensorType, axis: int) -> np.ndarray:
    """`addend` as the [C] vector it adds on `axis` of `result` (NumPy
    broadcasting), or `NotFolded` if it varies along another axis."""
    shape = shape_of(result)
    if addend.ndim > len(shape):
        raise NotFolded("the constant has a higher rank than the product")
    aligned = (1,) * (len(shape) - addend.ndim) + addend.shape
    if any(dim != 1 and k != axis for k, dim in enumerate(aligned)):
        raise NotFolded(f"the constant is not per channel on axis {axis}")
    return np.broadcast_to(addend.reshape(-1), (shape[axis],))


@dataclass
class FoldAddendIntoProduct(FoldIntoProduct):
    """Base of the two rules: `bias_add(p, b)` / `add(p, c)` / `add(c, p)`
    with `p` one of `PRODUCTS` -> `p` with the addend in its bias."""

    PASS = "fold-bias-add"

    PRODUCTS: ClassVar[tuple[type[Operation], ...]]
    """The producers the rule folds into."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, BiasAddOp) and isinstance(op.x.owner, self.PRODUCTS):
            self.fold(op, rewriter, self.rewrite_bias_add)
        elif isinstance(op, AddOp) and self._product_index(op) is not None:
            self.fold(op, rewriter, self.rewrite_add)

    def _product_index(self, add: Operation) -> int | None:
        """Which operand of `add` is a product, the other being a constant."""
        for index, value in enumerate(add.operands):
            other = add.operands[1 - index].owner
            if isinstance(value.owner, self.PRODUCTS) and isinstance(other, ConstOp):
                return index
        return None

    @staticmethod
    def rewrite_bias_add(op: Operation, rewriter: PatternRewriter) -> None:
        assert isinstance(op, BiasAddOp)
        product = op.x.owner
        assert isinstance(product, Product)
        check_foldable(op, product)
        if op.channel_axis() != channel_axis(product):
            raise NotFolded("the bias is not on the product's channel axis")
        fold_addend(op, product, readable(op.bias, "bias"), rewriter)

    def rewrite_add(self, op: Operation, rewriter: PatternRewriter) -> None:
        index = self._product_index(op)
        assert index is not None
        product = op.operands[index].owner
        assert isinstance(product, Product)
        check_foldable(op, product)
        constant = readable(op.operands[1 - index], "addend")
        result = tensor_type(product.results[0])
        fold_addend(
            op, product, per_channel(constant, result, channel_axis(product)), rewriter
        )


@dataclass
class FoldAddendIntoConv(FoldAddendIntoProduct):
    """`ConvBiasAddFold`: into a convolution's bias."""

    PRODUCTS = (ConvolutionOp,)


@dataclass
class FoldAddendIntoMatMul(FoldAddendIntoProduct):
    """`MatMulBiasAddFold`: into a matmul's bias or a Gemm's `c`."""

    PRODUCTS = (MatMulOp, GemmOp)


def check_foldable(consumer: Operation, product: Product) -> None:
    """`NotFolded` unless `consumer` is the product's only user and has its type."""
    only_use(product.results[0], "product")
    if consumer.results[0].type != product.results[0].type:
        raise NotFolded("the sum's type differs from the product's")


def fold_addend(
    consumer: Operation, product: Product, addend: np.ndarray, rewriter: PatternRewriter
) -> None:
    """Replace `consumer` (`product` + `addend` per channel) by `product` with
    the addend in its bias."""
    folded = (
        _fold_into_gemm(product, addend)
        if isinstance(product, GemmOp)
        else _fold_into_bias(product, addend)
    )
    old = list(product.operands[2:])
    replace_product(consumer, product, folded, folded[-1].results[0], old, rewriter)


def _new_product(
    product: Product, bias: SSAValue, attributes: dict | None = None
) -> Operation:
    return type(product).create(
        operands=[*product.operands[:2], bias],
        result_types=[product.results[0].type],
        attributes=attributes or dict(product.attributes),
        properties=dict(product.properties),
    )


def _fold_into_bias(product: Product, addend: np.ndarray) -> list[Operation]:
    """conv / matmul: bias' = bias + addend (the addend if there is none)."""
    bias = product.operands[2] if len(product.operands) > 2 else None
    result = tensor_type(product.results[0])
    if bias is None:
        values, bias_type = addend, TensorType(result.element_type, [len(addend)])
    else:
        values, bias_type = (
            readable(bias, "the product's bias") + addend,
            tensor_type(bias),
        )
    new_bias = make_constant(
        values, bias_type, f"{node_label(product)}/bias", enclosing_target(product)
    )
    return [new_bias, _new_product(product, new_bias.output)]


def _fold_into_gemm(product: GemmOp, addend: np.ndarray) -> list[Operation]:
    """alpha * A @ B + beta * c + d = alpha * A @ B + beta * (c + d / beta)."""
    beta = float(attribute_value(product, "beta"))
    attributes = dict(product.attributes)
    element = tensor_type(product.y).element_type
    if product.c is None or beta == 0.0:
        c, c_type = addend, TensorType(element, [len(addend)])
        attributes["beta"] = FloatAttr(1.0, f32)
    else:
        old = readable(product.c, "c")
        shape = np.broadcast_shapes(old.shape, addend.shape)
        c = np.broadcast_to(old, shape) + addend / beta
        c_type = (
            tensor_type(product.c)
            if tuple(shape_of(tensor_type(product.c))) == shape
            else TensorType(element, list(shape))
        )
    new_c = make_constant(
        c, c_type, f"{node_label(product)}/c", enclosing_target(product)
    )
    return [new_c, _new_product(product, new_c.output, attributes)]


FOLDS: dict[str, type[FoldAddendIntoProduct]] = {
    "ConvBiasAddFold": FoldAddendIntoConv,
    "MatMulBiasAddFold": FoldAddendIntoMatMul,
}
"""Fusion rule -> the pattern implementing it."""


@dataclass(frozen=True)
class FoldBiasAddPass(ModulePass):
    """Fold a constant per-channel addend into the conv or matmul bias before it."""

    name = "fold-bias-add"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`ConvBiasAddFold`, `MatMulBiasAddFold`)."""

    def __post_init__(self) -> None:
        check_disabled_rules(self, self.disable)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_folds(op, self.name, self.disable, FOLDS)
