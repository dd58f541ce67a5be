"""Reductions along axes: `ge.softmax`, `ge.log_softmax`, `ge.lp_norm`, `ge.reduce_sum`,
`ge.reduce_mean`, `ge.reduce_max`, `ge.reduce_min`, `ge.reduce_prod`, `ge.arg_max`,
`ge.arg_min`."""

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
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import LayoutAttr
from ge_dialect.format_rules import full_rank_rule, reduce_rule
from ge_dialect.numpy_helpers import (
    float32_compute,
    highest,
    lowest,
    lp_norm,
    reduction_axes,
)
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
from ge_dialect.ops.elementwise import IdentityOp
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    axis_index,
    parameter_axes,
    parameter_length,
    required,
)
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


@irdl_op_definition
class LpNormOp(AxisOp):
    """`x / (sum |x|^p) ^ (1/p)` along `axis`, p = 1 or 2 (ONNX
    LpNormalization, GE's LpNorm + Div); a vector of norm 0 stays 0."""

    name = "ge.lp_norm"

    p = attr_def(IntegerAttr, default_value=integer(2))

    def verify_(self) -> None:
        super().verify_()
        if self.value_of("p") not in (1, 2):
            raise VerifyException(f"'p' must be 1 or 2, got {self.value_of('p')}")

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, axis: int, p: int) -> np.ndarray:
        norm = lp_norm(x, p, axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norm == 0, np.zeros_like(x), x / norm)


class ReduceOp(GEOperation):
    """Base of reductions over `axes` (all axes when empty); `REDUCTION`
    names how elements combine ("sum", "mean", "max", "min", "prod")."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = attr_def(DenseArrayBase, default_value=ints())
    keep_dims = attr_def(IntegerAttr, default_value=boolean(True))

    REDUCTION: ClassVar[str]

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(reduce_rule)

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axes",)
    """ONNX's `axes` input; the option `noop_with_empty_axes` makes empty
    axes an identity (else they reduce every axis)."""

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

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`axes` checked and normalised; empty axes with
        `noop_with_empty_axes` are `ge.identity`."""
        axes = parameter_axes(values.get("axes", []), len(shapes[0]))
        if not axes and values.get("noop_with_empty_axes"):
            return IdentityOp, {}
        return cls, {"axes": axes, "keep_dims": bool(values.get("keep_dims", True))}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """Every dim unknown; without `keep_dims`, the rank drops by the
        number of axes."""
        rank = len(known.shapes[0])
        if not known.values.get("keep_dims", True):
            rank -= parameter_length(known.parameter_shapes, "axes")
            if rank < 0:
                raise ShapeError(
                    f"more axes than the {len(known.shapes[0])} of the input"
                )
        return [((UNKNOWN,) * rank, known.dtypes[0])]


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


def _extreme_kernel(function: Any, bound: Any, what: str) -> Any:
    """The kernel of a max or min reduction (`function`), which over an
    empty set gives `bound(dtype)`."""

    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axes: Sequence[int], keep_dims: bool
    ) -> np.ndarray:
        return np.asarray(
            function(
                x,
                axis=reduction_axes(axes),
                keepdims=keep_dims,
                initial=bound(x.dtype),
            )
        )

    numpy_kernel.__doc__ = f"Over an empty set it is the dtype's {what}, as in ONNX."
    return staticmethod(numpy_kernel)


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """Max over `axes`."""

    name = "ge.reduce_max"

    REDUCTION: ClassVar[str] = "max"

    numpy_kernel = _extreme_kernel(
        np.max, lowest, "lowest value (-inf, the integer minimum, False)"
    )


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    """Min over `axes`."""

    name = "ge.reduce_min"

    REDUCTION: ClassVar[str] = "min"

    numpy_kernel = _extreme_kernel(
        np.min, highest, "highest value (inf, the integer maximum, True)"
    )


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    """Product over `axes` (1 over an empty set)."""

    name = "ge.reduce_prod"

    REDUCTION: ClassVar[str] = "prod"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axes: Sequence[int], keep_dims: bool
    ) -> np.ndarray:
        return np.asarray(
            np.prod(x, axis=reduction_axes(axes), keepdims=keep_dims, dtype=x.dtype)
        )


class ArgReduceOp(GEOperation):
    """Base of `ge.arg_max` / `ge.arg_min`: the int64 index of the extreme
    along `axis` (the first one, or the last with `select_last_index`; NaN
    is the extreme wherever it occurs, as NumPy's `argmax` says); `REDUCTION`
    names the extreme ("max", "min")."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))
    keep_dims = attr_def(IntegerAttr, default_value=boolean(True))
    select_last_index = attr_def(IntegerAttr, default_value=boolean(False))

    REDUCTION: ClassVar[str]

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(reduce_rule)

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axes",)
    """ONNX's `axes` input; the option `noop_with_empty_axes` makes empty
    axes an identity (else they reduce every axis)."""

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_axis(self.value_of("axis"), self.x.type.get_num_dims())

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`axis` becomes 1 with `keep_dims`, else disappears; int64 indices."""
        x = shapes[0]
        axis = axis_index(required(attrs, "axis"), len(x))
        if x[axis] == 0:
            raise ShapeError(f"axis {axis} is empty: it has no extreme")
        if required(attrs, "keep_dims"):
            shape = tuple(1 if k == axis else d for k, d in enumerate(x))
        else:
            shape = tuple(d for k, d in enumerate(x) if k != axis)
        return [(shape, "int64")]

    @classmethod
    def arg_kernel(
        cls, x: np.ndarray, axis: int, keep_dims: bool, select_last_index: bool
    ) -> np.ndarray:
        """`np.argmax`/`np.argmin` (over the reversed axis for the last index)."""
        find = np.argmax if cls.REDUCTION == "max" else np.argmin
        if select_last_index:
            found = x.shape[axis] - 1 - find(np.flip(x, axis), axis=axis)
        else:
            found = find(x, axis=axis)
        found = np.asarray(found, np.int64)
        return np.expand_dims(found, axis) if keep_dims else found


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    """The index of the maximum along `axis` (ONNX ArgMax, GE ArgMaxV2)."""

    name = "ge.arg_max"

    REDUCTION: ClassVar[str] = "max"

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, axis: int, keep_dims: bool, select_last_index: bool
    ) -> np.ndarray:
        return ArgMaxOp.arg_kernel(x, axis, keep_dims, select_last_index)


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    """The index of the minimum along `axis` (ONNX ArgMin, GE ArgMin)."""

    name = "ge.arg_min"

    REDUCTION: ClassVar[str] = "min"

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, axis: int, keep_dims: bool, select_last_index: bool
    ) -> np.ndarray:
        return ArgMinOp.arg_kernel(x, axis, keep_dims, select_last_index)
