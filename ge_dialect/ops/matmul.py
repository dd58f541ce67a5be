"""Matrix products: `ge.matmul`, `ge.batch_matmul`, `ge.gemm`.

All three compute `alpha * op(a) @ op(b) + beta * c`; `product_form()` says
which transposes and scales an op applies, so kernels and lowerings need no
per-op attribute names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import float32_compute
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    boolean,
    check_rank,
    element_count,
    real,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    ShapeError,
    broadcast_all,
    broadcast_shapes,
    dims_match,
    require_rank,
    same_dtype,
)


class ProductForm(NamedTuple):
    """`alpha * op(a) @ op(b) + beta * c` with op() a transpose of the last 2 axes."""

    transpose_a: bool
    transpose_b: bool
    alpha: float = 1.0
    beta: float = 1.0


class MatrixProductOp(GEOperation):
    """Base of the matrix products (operands a, b and an optional addend)."""

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    TRANSPOSE_ATTRIBUTES: ClassVar[tuple[str, str]]
    """The attributes that transpose the last two axes of operand 0 and 1."""

    def product_form(self) -> ProductForm:
        """The transposes and scales of this product."""
        raise NotImplementedError

    def work(self) -> float:
        """Multiply-adds: every element of a meets each output column."""
        columns = shape_of(self.results[0].type)[-1]
        return element_count(self.operands[0]) * max(columns, 1)


def check_contraction(
    op: GEOperation, lhs: tuple[str, str], rhs: tuple[str, str]
) -> None:
    """Both operands are matrices whose contracted dims agree.

    `lhs`/`rhs` name the operand and its transpose attribute.
    """
    a = shape_of(check_rank(getattr(op, lhs[0]), 2, lhs[0]))
    b = shape_of(check_rank(getattr(op, rhs[0]), 2, rhs[0]))
    k1 = a[0] if op.value_of(lhs[1]) else a[1]
    k2 = b[1] if op.value_of(rhs[1]) else b[0]
    if -1 not in (k1, k2) and k1 != k2:
        raise VerifyException(f"contraction sizes differ: {k1} vs {k2}")


def matrix_sizes(a: Shape, b: Shape, form: ProductForm) -> tuple[int, int]:
    """(M, N) of op(a) @ op(b) for the last two axes (ShapeError if K differs)."""
    m, k1 = a[-1:-3:-1] if form.transpose_a else a[-2:]
    k2, n = b[-1:-3:-1] if form.transpose_b else b[-2:]
    if not dims_match(k1, k2):
        raise ShapeError(f"contraction sizes differ: {k1} vs {k2}")
    return m, n


def matrix_product(
    a: np.ndarray, b: np.ndarray, c: np.ndarray | None, form: ProductForm
) -> np.ndarray:
    """`alpha * op(a) @ op(b) + beta * c` in NumPy."""
    y = np.matmul(
        np.swapaxes(a, -1, -2) if form.transpose_a else a,
        np.swapaxes(b, -1, -2) if form.transpose_b else b,
    )
    if form.alpha != 1.0:
        y = form.alpha * y
    if c is not None:
        y = y + (c if form.beta == 1.0 else form.beta * c)
    return y


@irdl_op_definition
class MatMulOp(MatrixProductOp):
    """2-D matrix product with optional transposes and bias."""

    name = "ge.matmul"

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    transpose_x1 = attr_def(IntegerAttr, default_value=boolean(False))
    transpose_x2 = attr_def(IntegerAttr, default_value=boolean(False))
    TRANSPOSE_ATTRIBUTES: ClassVar[tuple[str, str]] = ("transpose_x1", "transpose_x2")

    def product_form(self) -> ProductForm:
        return ProductForm(
            bool(self.value_of("transpose_x1")), bool(self.value_of("transpose_x2"))
        )

    def verify_(self) -> None:
        check_contraction(self, ("x1", "transpose_x1"), ("x2", "transpose_x2"))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[M, K] x [K, N] -> [M, N], each side optionally transposed; bias over N."""
        a = require_rank(shapes[0], 2, "x1")
        b = require_rank(shapes[1], 2, "x2")
        form = ProductForm(
            bool(attrs.get("transpose_x1")), bool(attrs.get("transpose_x2"))
        )
        shape: Shape = matrix_sizes(a, b, form)
        if len(shapes) > 2:
            shape = broadcast_all([shape, shapes[2]])
        return [(shape, same_dtype(dtypes[:2]))]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x1: np.ndarray,
        x2: np.ndarray,
        bias: np.ndarray | None,
        *,
        transpose_x1: bool,
        transpose_x2: bool,
    ) -> np.ndarray:
        """Rank-2 matrix product op(x1) @ op(x2) (+ bias broadcast)."""
        return matrix_product(x1, x2, bias, ProductForm(transpose_x1, transpose_x2))


@irdl_op_definition
class BatchMatMulOp(MatrixProductOp):
    """Batched matrix product with NumPy broadcasting of batch dims."""

    name = "ge.batch_matmul"

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    adj_x1 = attr_def(IntegerAttr, default_value=boolean(False))
    adj_x2 = attr_def(IntegerAttr, default_value=boolean(False))
    TRANSPOSE_ATTRIBUTES: ClassVar[tuple[str, str]] = ("adj_x1", "adj_x2")

    def product_form(self) -> ProductForm:
        return ProductForm(bool(self.value_of("adj_x1")), bool(self.value_of("adj_x2")))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """NumPy matmul of rank >= 2 inputs; adj_x* swap the last two axes."""
        a, b = shapes
        if len(a) < 2 or len(b) < 2:
            raise ShapeError(f"inputs must have rank >= 2, got {len(a)} and {len(b)}")
        form = ProductForm(bool(attrs.get("adj_x1")), bool(attrs.get("adj_x2")))
        m, n = matrix_sizes(a, b, form)
        batch = broadcast_all([a[:-2], b[:-2]])
        return [((*batch, m, n), same_dtype(dtypes))]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x1: np.ndarray, x2: np.ndarray, *, adj_x1: bool, adj_x2: bool
    ) -> np.ndarray:
        """Batched matrix product with NumPy broadcasting; adj_* transposes the
        last 2 axes."""
        return matrix_product(x1, x2, None, ProductForm(adj_x1, adj_x2))


@irdl_op_definition
class GemmOp(MatrixProductOp):
    """ONNX Gemm: alpha * op(a) @ op(b) + beta * c."""

    name = "ge.gemm"

    a = operand_def(TensorType)
    b = operand_def(TensorType)
    c = opt_operand_def(TensorType)
    y = result_def(TensorType)
    alpha = attr_def(FloatAttr, default_value=real(1.0))
    beta = attr_def(FloatAttr, default_value=real(1.0))
    trans_a = attr_def(IntegerAttr, default_value=boolean(False))
    trans_b = attr_def(IntegerAttr, default_value=boolean(False))
    TRANSPOSE_ATTRIBUTES: ClassVar[tuple[str, str]] = ("trans_a", "trans_b")

    def product_form(self) -> ProductForm:
        return ProductForm(
            bool(self.value_of("trans_a")),
            bool(self.value_of("trans_b")),
            float(self.value_of("alpha")),
            float(self.value_of("beta")),
        )

    def verify_(self) -> None:
        check_contraction(self, ("a", "trans_a"), ("b", "trans_b"))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """ONNX Gemm: op(a) [M, K] x op(b) [K, N]; c broadcasts to [M, N]."""
        a = require_rank(shapes[0], 2, "a")
        b = require_rank(shapes[1], 2, "b")
        form = ProductForm(bool(attrs.get("trans_a")), bool(attrs.get("trans_b")))
        m, n = matrix_sizes(a, b, form)
        if len(shapes) > 2 and broadcast_shapes((m, n), shapes[2]) != (m, n):
            raise ShapeError(
                f"c of shape {list(shapes[2])} does not broadcast to {[m, n]}"
            )
        return [((m, n), same_dtype(dtypes[:2]))]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        a: np.ndarray,
        b: np.ndarray,
        c: np.ndarray | None,
        *,
        alpha: float,
        beta: float,
        trans_a: bool,
        trans_b: bool,
    ) -> np.ndarray:
        """alpha * op(a) @ op(b) + beta * c (ONNX Gemm)."""
        return matrix_product(a, b, c, ProductForm(trans_a, trans_b, alpha, beta))
