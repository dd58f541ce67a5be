"""Running reductions along one axis: `ge.cum_sum`, `ge.cum_prod` (ONNX
CumSum, CumProd; GE Cumsum, Cumprod).

`y[..., i, ...]` combines `x[..., j, ...]` for `j <= i` (`j < i` when
`exclusive`; `j >= i` / `j > i` when `reverse`); an exclusive position with
nothing before it holds the identity (0 for the sum, 1 for the product).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import full_rank_rule
from ge_dialect.numpy_helpers import float32_compute
from ge_dialect.ops.base import (
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_axis,
    check_same_element_type,
    integer,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    ShapeError,
    Unbound,
    axis_index,
    parameter_ints,
    required,
)
from ge_dialect.traits import KeepsLayout


class CumulativeOp(GEOperation):
    """Base of the running reductions; `REDUCTION` names how elements
    combine ("sum", "prod")."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))
    exclusive = attr_def(IntegerAttr, default_value=boolean(False))
    reverse = attr_def(IntegerAttr, default_value=boolean(False))

    REDUCTION: ClassVar[str]

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        rank = self.x.type.get_num_dims()
        if rank == 0:
            raise VerifyException(f"'{self.name}' needs an input of rank >= 1")
        check_axis(self.value_of("axis"), rank)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape and dtype; `axis` must exist."""
        (x,) = shapes
        if not x:
            raise ShapeError("needs an input of rank >= 1")
        axis_index(required(attrs, "axis"), len(x))
        return [(tuple(x), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axis",)
    """ONNX's `axis` input (a 0-d or 1-element integer tensor); the options
    `exclusive` and `reverse`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`axis` checked and normalised."""
        axes = parameter_ints(required(values, "axis"), "axis")
        if len(axes) != 1:
            raise ShapeError(f"axis must be one integer, got {len(axes)}")
        return cls, {
            "axis": axis_index(axes[0], len(shapes[0])),
            "exclusive": bool(values.get("exclusive", False)),
            "reverse": bool(values.get("reverse", False)),
        }

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """x's shape and dtype, whatever the axis."""
        return [(tuple(known.shapes[0]), known.dtypes[0])]

    @classmethod
    def cumulative_kernel(
        cls, x: np.ndarray, axis: int, exclusive: bool, reverse: bool
    ) -> np.ndarray:
        """`np.cumsum`/`np.cumprod` in x's dtype, over the flipped axis when
        `reverse`, shifted by one (the identity first) when `exclusive`."""
        running, identity = (
            (np.cumsum, 0) if cls.REDUCTION == "sum" else (np.cumprod, 1)
        )
        source = np.flip(x, axis) if reverse else x
        y = running(source, axis=axis, dtype=x.dtype)
        if exclusive:
            y = np.roll(y, 1, axis=axis)
            first = [slice(None)] * x.ndim
            first[axis] = slice(0, 1)
            y[tuple(first)] = identity
        return np.flip(y, axis) if reverse else y


@irdl_op_definition
class CumSumOp(CumulativeOp):
    """Running sum along `axis` (ONNX CumSum)."""

    name = "ge.cum_sum"

    REDUCTION: ClassVar[str] = "sum"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axis: int, exclusive: bool, reverse: bool
    ) -> np.ndarray:
        return CumSumOp.cumulative_kernel(x, axis, exclusive, reverse)


@irdl_op_definition
class CumProdOp(CumulativeOp):
    """Running product along `axis` (ONNX CumProd)."""

    name = "ge.cum_prod"

    REDUCTION: ClassVar[str] = "prod"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, *, axis: int, exclusive: bool, reverse: bool
    ) -> np.ndarray:
        return CumProdOp.cumulative_kernel(x, axis, exclusive, reverse)
