"""Reductions along axes: `ge.softmax`, `ge.log_softmax`, `ge.reduce_sum`,
`ge.reduce_mean`, `ge.reduce_max`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from ge_dialect.attributes import LayoutAttr
from ge_dialect.format_rules import full_rank_rule, reduce_rule
from ge_dialect.numpy_helpers import float32_compute, lowest, reduction_axes
from ge_dialect.ops.base import (
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_axis,
    check_same_element_type,
    integer,
    ints,
    split_channel_axis,
)
from ge_dialect.shape_functions import Result, Shape, axis_index, required
from ge_dialect.traits import KeepsLayout


class AxisOp(GEOperation):
    """Base of ops with one input and an `axis` attribute."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(-1))

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        check_axis(self.value_of("axis"), self.x.type.get_num_dims())

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape; `axis` must exist."""
        axis_index(required(attrs, "axis"), len(shapes[0]))
        return [(shapes[0], dtypes[0])]


@irdl_op_definition
class SoftmaxOp(AxisOp):
    """Softmax along `axis`."""

    name = "ge.softmax"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, axis: int) -> np.ndarray:
        """Softmax along one axis (ONNX opset >= 13)."""
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


@irdl_op_definition
class LogSoftmaxOp(AxisOp):
    """Log-softmax along `axis`."""

    name = "ge.log_softmax"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, axis: int) -> np.ndarray:
        """Log of softmax along one axis, computed stably."""
        z = x - x.max(axis=axis, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


class ReduceOp(GEOperation):
    """Base of reductions over `axes` (all axes when empty); `REDUCTION`
    names how elements combine ("sum", "mean", "max")."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = attr_def(DenseArrayBase, default_value=ints())
    keep_dims = attr_def(IntegerAttr, default_value=boolean(True))

    REDUCTION: ClassVar[str]

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(reduce_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        rank = self.x.type.get_num_dims()
        for axis in self.value_of("axes"):
            check_axis(axis, rank)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """NC1HWC0 only when C is not reduced (GE's ReduceMeanD and kin: a
        reduction over N, H or W keeps C's blocks)."""
        rank = self.x.type.get_num_dims()
        channel = split_channel_axis(operands[0], rank)
        if channel is None:
            return True
        axes = {axis_index(a, rank) for a in self.value_of("axes")}
        return bool(axes) and channel not in axes

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`axes` (all when empty) become 1 with `keep_dims`, else disappear."""
        x = shapes[0]
        axes = {axis_index(a, len(x)) for a in attrs.get("axes") or []} or set(
            range(len(x))
        )
        if required(attrs, "keep_dims"):
            shape = tuple(1 if axis in axes else d for axis, d in enumerate(x))
        else:
            shape = tuple(d for axis, d in enumerate(x) if axis not in axes)
        return [(shape, dtypes[0])]


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    """Sum over `axes`."""

    name = "ge.reduce_sum"

    REDUCTION: ClassVar[str] = "sum"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axes: Sequence[int], keep_dims: bool
    ) -> np.ndarray:
        return np.asarray(
            np.sum(x, axis=reduction_axes(axes), keepdims=keep_dims, dtype=x.dtype)
        )


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """Mean over `axes`."""

    name = "ge.reduce_mean"

    REDUCTION: ClassVar[str] = "mean"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axes: Sequence[int], keep_dims: bool
    ) -> np.ndarray:
        """Mean; keeps the input dtype."""
        m = np.mean(x, axis=reduction_axes(axes), keepdims=keep_dims)
        return np.asarray(m).astype(x.dtype, copy=False)


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """Max over `axes`."""

    name = "ge.reduce_max"

    REDUCTION: ClassVar[str] = "max"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axes: Sequence[int], keep_dims: bool
    ) -> np.ndarray:
        """Over an empty set it is the dtype's lowest value (-inf, the
        integer minimum, False), as in ONNX."""
        return np.asarray(
            np.max(
                x,
                axis=reduction_axes(axes),
                keepdims=keep_dims,
                initial=lowest(x.dtype),
            )
        )
