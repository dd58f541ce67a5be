"""Ordering and selecting: `ge.top_k` (ONNX TopK, GE TopKV2),
`ge.compress` (ONNX Compress), `ge.unique` (ONNX Unique) and `ge.non_zero`
(ONNX NonZero, GE NonZero).

TopK's order is NumPy's stable sort: equal values keep the lower index first,
NaN is larger than every number (first among the largest, last among the
smallest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, i1, i64
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import full_rank_rule
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    boolean,
    check_axis,
    element_type_of,
    integer,
)
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    axis_index,
    parameter_ints,
    required,
)


def top_k_order(x: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    """Positions along `axis` from first to last in TopK's order."""
    if not largest:
        return np.argsort(x, axis=axis, kind="stable")
    # Descending with ties by lower index: a stable ascending sort of the
    # flipped axis, read backwards.
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return x.shape[axis] - 1 - np.flip(order, axis)


@irdl_op_definition
class TopKOp(GEOperation):
    """The `k` largest (or smallest) elements along `axis` and their int64
    positions, in order (`sorted`: ONNX leaves the order free otherwise;
    it is the sorted one here too)."""

    name = "ge.top_k"

    x = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = attr_def(IntegerAttr)
    axis = attr_def(IntegerAttr, default_value=integer(-1))
    largest = attr_def(IntegerAttr, default_value=boolean(True))
    sorted = attr_def(IntegerAttr, default_value=boolean(True))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = "$x attr-dict `:` type($x) `->` type($values) `,` type($indices)"

    def verify_(self) -> None:
        rank = self.x.type.get_num_dims()
        if rank == 0:
            raise VerifyException("'ge.top_k' needs an input of rank >= 1")
        axis = check_axis(self.value_of("axis"), rank)
        k, size = self.value_of("k"), self.x.type.get_shape()[axis]
        if k < 0 or (size != UNKNOWN and k > size):
            raise VerifyException(f"k {k} is out of range for an axis of {size}")
        if element_type_of(self.values) != element_type_of(self.x):
            raise VerifyException("values must have the dtype of x")
        if element_type_of(self.indices) != i64:
            raise VerifyException("indices must be i64")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x's shape with `k` along `axis`: values in x's dtype, int64 indices."""
        (x,) = shapes
        if not x:
            raise ShapeError("needs an input of rank >= 1")
        axis = axis_index(required(attrs, "axis"), len(x))
        k = int(required(attrs, "k"))
        if k < 0 or (x[axis] != UNKNOWN and k > x[axis]):
            raise ShapeError(f"k {k} is out of range for an axis of {x[axis]}")
        shape = tuple(k if d == axis else n for d, n in enumerate(x))
        return [(shape, dtypes[0]), (shape, "int64")]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("k",)
    """ONNX's `K` input (a 1-element integer tensor); the options `axis`,
    `largest`, `sorted`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`k` checked against the axis."""
        ks = parameter_ints(required(values, "k"), "k")
        if len(ks) != 1:
            raise ShapeError(f"k must be one integer, got {len(ks)}")
        (x,) = shapes
        axis = axis_index(values.get("axis", -1), len(x))
        (k,) = ks
        if k < 0 or (x[axis] != UNKNOWN and k > x[axis]):
            raise ShapeError(f"k {k} is out of range for an axis of {x[axis]}")
        return cls, {
            "k": k,
            "axis": axis,
            "largest": bool(values.get("largest", True)),
            "sorted": bool(values.get("sorted", True)),
        }

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """x's shape with an unknown dim along `axis` until `k` is known."""
        (x,) = known.shapes
        axis = axis_index(known.values.get("axis", -1), len(x))
        shape = tuple(UNKNOWN if d == axis else n for d, n in enumerate(x))
        return [(shape, known.dtypes[0]), (shape, "int64")]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, k: int, axis: int, largest: bool, sorted: bool
    ) -> list[np.ndarray]:
        """The first `k` of `top_k_order` and the values there."""
        axis %= x.ndim
        order = top_k_order(x, axis, largest)
        indices = np.take(order, np.arange(k), axis=axis).astype(np.int64)
        return [np.take_along_axis(x, indices, axis=axis), indices]


@irdl_op_definition
class CompressOp(GEOperation):
    """The slices of `x` along `axis` where the 1-D bool `condition` is true
    (ONNX Compress; a condition shorter than the axis leaves the rest out).
    How many there are is known only from the condition's values: the
    result's dim along `axis` is dynamic and `value_shapes` gives it."""

    name = "ge.compress"

    x = operand_def(TensorType)
    condition = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_axis(self.value_of("axis"), self.x.type.get_num_dims())
        if self.condition.type.get_num_dims() != 1:
            raise VerifyException("condition must be 1-D")
        if element_type_of(self.condition) != i1:
            raise VerifyException("condition must be bool")
        if element_type_of(self.y) != element_type_of(self.x):
            raise VerifyException("the result must have the dtype of x")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x's shape with a dynamic dim along `axis` (the count of trues)."""
        x, condition = shapes
        axis = axis_index(required(attrs, "axis"), len(x))
        if dtypes[1] != "bool" or len(condition) != 1:
            raise ShapeError(
                f"condition must be 1-D bool, got {dtypes[1]} {list(condition)}"
            )
        if UNKNOWN not in (condition[0], x[axis]) and condition[0] > x[axis]:
            raise ShapeError(
                f"condition has {condition[0]} entries, the axis {x[axis]}"
            )
        return [
            (tuple(UNKNOWN if d == axis else n for d, n in enumerate(x)), dtypes[0])
        ]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shape from the condition's values."""
        x, condition = operands
        axis = self.value_of("axis") % x.ndim
        kept = int(np.count_nonzero(condition[: x.shape[axis]]))
        return [tuple(kept if d == axis else n for d, n in enumerate(x.shape))]

    @staticmethod
    def numpy_kernel(x: np.ndarray, condition: np.ndarray, *, axis: int) -> np.ndarray:
        """`np.compress` along `axis`."""
        return np.compress(condition.astype(bool), x, axis=axis)


@irdl_op_definition
class UniqueOp(GEOperation):
    """The distinct slices of `x` along `axis` (ONNX Unique; the importer flattens
    an input without `axis`): `y` (sorted ascending, lexicographically for
    slices, NaN the largest and equal to NaN, -0.0 equal to 0.0; or in order
    of first occurrence when not `sorted`), the int64 `indices` of their
    first occurrences, `inverse` (each slice's position in `y`) and
    `counts`. How many there are is known only from x's values: `y`'s dim
    along `axis`, `indices` and `counts` are dynamic and `value_shapes`
    gives them."""

    name = "ge.unique"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    indices = result_def(TensorType)
    inverse = result_def(TensorType)
    counts = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))
    sorted = attr_def(IntegerAttr, default_value=boolean(True))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = (
        "$x attr-dict `:` type($x) `->` type($y) `,` type($indices) `,` "
        "type($inverse) `,` type($counts)"
    )

    def verify_(self) -> None:
        rank = self.x.type.get_num_dims()
        if rank == 0:
            raise VerifyException("'ge.unique' needs an input of rank >= 1")
        check_axis(self.value_of("axis"), rank)
        if element_type_of(self.y) != element_type_of(self.x):
            raise VerifyException("y must have the dtype of x")
        for value in (self.indices, self.inverse, self.counts):
            if element_type_of(value) != i64:
                raise VerifyException("indices, inverse and counts must be i64")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y: x's shape with a dynamic dim along `axis`; indices and counts
        of that dynamic length; inverse as long as the axis."""
        (x,) = shapes
        if not x:
            raise ShapeError("needs an input of rank >= 1")
        axis = axis_index(required(attrs, "axis"), len(x))
        y = tuple(UNKNOWN if d == axis else n for d, n in enumerate(x))
        return [
            (y, dtypes[0]),
            ((UNKNOWN,), "int64"),
            ((x[axis],), "int64"),
            ((UNKNOWN,), "int64"),
        ]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shapes from how many distinct slices x has."""
        (x,) = operands
        axis = self.value_of("axis") % x.ndim
        kept = len(self.numpy_kernel(x, axis=axis, sorted=True)[1])
        y = tuple(kept if d == axis else n for d, n in enumerate(x.shape))
        return [y, (kept,), (x.shape[axis],), (kept,)]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, axis: int, sorted: bool) -> list[np.ndarray]:  # noqa: A002
        """`np.unique` of the slices (a float element compared as the pair
        (is NaN, value)), reordered by first occurrence when not `sorted`."""
        axis %= x.ndim
        rows = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
        if rows.dtype.kind == "f":  # per element: (is NaN, value): NaN last, equal
            nan = np.isnan(rows)
            values = np.where(nan, 0, rows).astype(np.float64)
            rows = np.stack([nan.astype(np.float64), values], axis=-1)
            rows = rows.reshape(x.shape[axis], -1)
        _, indices, inverse, counts = np.unique(
            rows, return_index=True, return_inverse=True, return_counts=True, axis=0
        )
        inverse = inverse.reshape(-1)
        if not sorted:
            order = np.argsort(indices, kind="stable")
            position = np.empty_like(order)
            position[order] = np.arange(order.size)
            indices, counts, inverse = indices[order], counts[order], position[inverse]
        y = np.take(x, indices, axis=axis)
        return [y, *(np.asarray(a, np.int64) for a in (indices, inverse, counts))]


@irdl_op_definition
class NonZeroOp(GEOperation):
    """The positions of the non-zero elements of `x` (ONNX NonZero; NaN is
    non-zero): [rank, count] int64, one column per element in row-major
    order. How many there are is known only from x's values: the count is
    dynamic and `value_shapes` gives it."""

    name = "ge.non_zero"

    x = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        rank = self.x.type.get_num_dims()
        if rank == 0:
            raise VerifyException("'ge.non_zero' needs an input of rank >= 1")
        if element_type_of(self.y) != i64:
            raise VerifyException("the result must be i64")
        if self.y.type.get_shape()[:1] != (rank,) or self.y.type.get_num_dims() != 2:
            raise VerifyException(f"the result must be [{rank}, count]")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[rank, ?] int64."""
        (x,) = shapes
        if not x:
            raise ShapeError("needs an input of rank >= 1")
        return [((len(x), UNKNOWN), "int64")]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shape from how many elements are non-zero."""
        (x,) = operands
        return [(x.ndim, int(np.count_nonzero(x)))]

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        """`np.nonzero`, stacked."""
        return np.array(np.nonzero(x), np.int64).reshape(x.ndim, -1)
