"""A tensor's shape as data: `ge.shape`, `ge.size` (ONNX Shape, Size).

Exporters compute reshape targets, broadcast shapes and ranges from the
shapes of run-time tensors (`Shape -> Gather -> Concat -> Reshape`). With
static dims these values are constants: the importer and `fold-shapes`
replace them before the format pipeline. On dynamic dims they stay as ops,
run by the host under host scheduling (their value is the operand's shape,
which only the run knows).

```mlir
%s = ge.shape %x {start = 1 : i64} : (tensor<?x11x64xf32>) -> tensor<2xi64>
%n = ge.size %x : (tensor<?x11x64xf32>) -> tensor<i64>
```
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import COMPUTE_FORMAT, GEOperation, integer
from ge_dialect.shape_functions import Result, Shape


def shape_span(rank: int, start: int, end: int | None) -> tuple[int, int]:
    """ONNX Shape's `start:end` for a tensor of `rank`: negative values count
    from the end, both clamped to [0, rank]."""

    def clamp(value: int) -> int:
        return min(max(value + rank if value < 0 else value, 0), rank)

    return clamp(start), clamp(rank if end is None else end)


class ShapeComputationOp(GEOperation):
    """Base of the ops whose value is made of the operand's dims: pure; their
    int64 result says nothing of the operand's format."""

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    def static_value(self) -> np.ndarray | None:
        """The result when the dims it reads are static (`fold-shapes`),
        else None."""
        raise NotImplementedError


@irdl_op_definition
class ShapeOfOp(ShapeComputationOp):
    """Dims `start:end` of `x`'s shape, as an int64 vector (ONNX Shape)."""

    name = "ge.shape"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    start = attr_def(IntegerAttr, default_value=integer(0))
    end = opt_attr_def(IntegerAttr)

    assembly_format = COMPUTE_FORMAT

    def selected(self) -> tuple[int, int]:
        """The dims of `x` the result holds, as a range."""
        rank = len(shape_of(self.x.type))
        end = self.attributes.get("end")
        return shape_span(
            rank,
            self.value_of("start"),
            None if end is None else self.value_of("end"),
        )

    def static_value(self) -> np.ndarray | None:
        """The selected dims, if none is dynamic."""
        first, last = self.selected()
        dims = shape_of(self.x.type)[first:last]
        return None if -1 in dims else np.array(dims, np.int64)

    def verify_(self) -> None:
        first, last = self.selected()
        expected = (max(last - first, 0),)
        if shape_of(self.y.type) != expected:
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))}, expected "
                f"{list(expected)} (dims {first}:{last})"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """One int64 per selected dim."""
        rank = len(shapes[0])
        first, last = shape_span(rank, attrs["start"], attrs.get("end"))
        return [((max(last - first, 0),), "int64")]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, start: int, end: int | None = None):
        """`x.shape[start:end]` as an int64 array."""
        first, last = shape_span(x.ndim, start, end)
        return np.array(x.shape[first:last], np.int64)


@irdl_op_definition
class SizeOp(ShapeComputationOp):
    """The number of elements of `x`, as an int64 scalar (ONNX Size)."""

    name = "ge.size"

    x = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def static_value(self) -> np.ndarray | None:
        """The element count, if every dim is static."""
        dims = shape_of(self.x.type)
        return None if -1 in dims else np.array(math.prod(dims), np.int64)

    def verify_(self) -> None:
        if shape_of(self.y.type) != ():
            raise VerifyException("the result is a scalar")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """An int64 scalar."""
        return [((), "int64")]

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        """`x.size` as an int64 scalar."""
        return np.array(math.prod(x.shape), np.int64)
