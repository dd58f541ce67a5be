"""Ops whose result shape is an operand's value: `ge.fill`, `ge.broadcast_to`,
`ge.range`, `ge.dynamic_reshape` (GE Fill, BroadcastTo, Range, Reshape with
a shape input; ONNX ConstantOfShape, Expand, Range, Reshape).

Exporters build these shapes from `ge.shape` of run-time tensors. When the
value is known at import (static dims) the importer folds the op away; on
dynamic dims the result's dims are `?` and the op runs under host
scheduling, where its NumPy kernel computes the value and so the shape (the
shape function says `?`: data-dependent).

```mlir
%z = ge.fill %dims, %zero : (tensor<3xi64>, tensor<f32>) -> tensor<?x?x?xf32>
%e = ge.broadcast_to %x, %dims : (tensor<1x20xf32>, tensor<3xi64>) -> tensor<?x?x20xf32>
%r = ge.range %a, %b, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
```
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.limits import LimitError, over_budget, tensor_bytes
from ge_dialect.ops.base import COMPUTE_FORMAT, GEOperation, boolean, element_type_of
from ge_dialect.ops.trans import ReshapeOp
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    same_dtype,
)


class ValueShapedOp(GEOperation):
    """Base of the ops whose result shape is an operand's value: pure; the
    result's axes are not the operands' (no format flows through)."""

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)


def _shape_vector(shape: Shape, dtype: str, what: str) -> int:
    """The length of a 1-D integer shape operand."""
    if len(shape) != 1 or not dtype.startswith(("int", "uint")):
        raise ShapeError(f"{what} must be a 1-D integer tensor, got {dtype} {shape}")
    if shape[0] == UNKNOWN:
        raise ShapeError(f"{what} has an unknown length (the result rank)")
    return shape[0]


def _dims(value: np.ndarray, itemsize: int, what: str) -> tuple[int, ...]:
    """The dims in a shape operand, checked against the memory budget."""
    dims = tuple(int(d) for d in np.asarray(value).reshape(-1))
    reason = over_budget(tensor_bytes(dims, itemsize, what), "the result")
    if reason is not None:
        raise LimitError(reason)
    return dims


def _verify_rank(op: GEOperation, shape_operand: Any, rank: int) -> None:
    """A static shape operand of length n gives a rank-`rank` result."""
    length = shape_of(shape_operand.type)
    if len(length) != 1:
        raise VerifyException("the shape operand must be 1-D")
    if length[0] != -1 and length[0] != rank:
        raise VerifyException(
            f"a shape of {length[0]} dims gives a rank-{length[0]} result, "
            f"not rank {rank}"
        )


@irdl_op_definition
class FillOp(ValueShapedOp):
    """A tensor of shape `dims` whose every element is the scalar `value`
    (GE Fill, ONNX ConstantOfShape)."""

    name = "ge.fill"

    dims = operand_def(TensorType)
    value = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _verify_rank(self, self.dims, len(shape_of(self.y.type)))
        if math.prod(shape_of(self.value.type)) != 1:
            raise VerifyException("value must hold one element")
        if element_type_of(self.value) != element_type_of(self.y):
            raise VerifyException("the result has the dtype of value")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """One unknown dim per entry of `dims`; the dtype of `value`."""
        rank = _shape_vector(shapes[0], dtypes[0], "dims")
        return [((UNKNOWN,) * rank, dtypes[1])]

    @staticmethod
    def numpy_kernel(dims: np.ndarray, value: np.ndarray) -> np.ndarray:
        shape = _dims(dims, value.dtype.itemsize, "dims")
        return np.full(shape, value.reshape(()), dtype=value.dtype)


def expanded_shape(x: Sequence[int], target: Sequence[int]) -> tuple[int, ...]:
    """ONNX Expand's result shape: `x` and `target` broadcast both ways."""
    rank = max(len(x), len(target))
    x = (1,) * (rank - len(x)) + tuple(x)
    target = (1,) * (rank - len(target)) + tuple(target)
    dims = []
    for axis, (a, b) in enumerate(zip(x, target, strict=True)):
        if a != b and 1 not in (a, b):
            raise ValueError(f"dim {axis}: {a} does not broadcast with {b}")
        dims.append(b if a == 1 else a)
    return tuple(dims)


@irdl_op_definition
class BroadcastToOp(ValueShapedOp):
    """`x` broadcast with the shape `shape` (both ways, as NumPy: GE
    BroadcastTo, ONNX Expand)."""

    name = "ge.broadcast_to"

    x = operand_def(TensorType)
    shape = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        rank = len(shape_of(self.y.type))
        if rank < len(shape_of(self.x.type)):
            raise VerifyException("the result rank is below the rank of x")
        length = shape_of(self.shape.type)
        if len(length) != 1:
            raise VerifyException("the shape operand must be 1-D")
        if element_type_of(self.x) != element_type_of(self.y):
            raise VerifyException("the result has the dtype of x")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Rank max(rank x, len shape); x's dims above 1 stay (the target is
        1 or the same there), the others are unknown."""
        x = shapes[0]
        rank = max(len(x), _shape_vector(shapes[1], dtypes[1], "shape"))
        aligned = (1,) * (rank - len(x)) + tuple(x)
        dims = tuple(d if d not in (1, UNKNOWN) else UNKNOWN for d in aligned)
        return [(dims, dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, shape: np.ndarray) -> np.ndarray:
        target = tuple(int(d) for d in shape.reshape(-1))
        try:
            dims = expanded_shape(x.shape, target)
        except ValueError as error:
            raise LimitError(f"cannot expand {list(x.shape)}: {error}") from None
        _dims(np.array(dims), x.dtype.itemsize, "shape")
        return np.array(np.broadcast_to(x, dims))


def range_length(start: float, limit: float, delta: float) -> int:
    """ONNX Range's element count: max(ceil((limit - start) / delta), 0)."""
    if delta == 0:
        raise LimitError("Range's delta is 0")
    for name, value in (("start", start), ("limit", limit), ("delta", delta)):
        if not math.isfinite(value):
            raise LimitError(f"Range's {name} is {value} (not a finite number)")
    count = (limit - start) / delta
    if not math.isfinite(count):  # finite operands, an overflowing quotient
        raise LimitError(
            f"Range of {start} to {limit} by {delta} has too many elements"
        )
    return max(math.ceil(count), 0)


@irdl_op_definition
class RangeOp(ValueShapedOp):
    """`start, start + delta, ...` up to `limit` (excluded): 1-D, of
    `max(ceil((limit - start) / delta), 0)` elements (GE Range, ONNX Range)."""

    name = "ge.range"

    start = operand_def(TensorType)
    limit = operand_def(TensorType)
    delta = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        for operand in (self.start, self.limit, self.delta):
            if math.prod(shape_of(operand.type)) != 1:
                raise VerifyException("start, limit and delta are scalars")
        if len(shape_of(self.y.type)) != 1:
            raise VerifyException("the result is 1-D")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """A 1-D tensor of unknown length, the operands' dtype."""
        for shape in shapes:
            if math.prod(shape) != 1:
                raise ShapeError(f"start, limit and delta are scalars, got {shape}")
        return [((UNKNOWN,), same_dtype(dtypes))]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result's length from the operands' values (host scheduling
        then compiles the loops for it)."""
        start, limit, delta = (np.asarray(v).reshape(()) for v in operands)
        count = range_length(float(start), float(limit), float(delta))
        return [_dims(np.array([count]), start.dtype.itemsize, "range")]

    @staticmethod
    def numpy_kernel(
        start: np.ndarray, limit: np.ndarray, delta: np.ndarray
    ) -> np.ndarray:
        """`start + i * delta` for i below the element count (ONNX's
        definition, not `np.arange`'s float stepping)."""
        first, last, step = (v.reshape(()) for v in (start, limit, delta))
        count = range_length(first.item(), last.item(), step.item())
        _dims(np.array([count]), start.dtype.itemsize, "range")
        steps = np.arange(count, dtype=np.int64)
        return (first + steps.astype(start.dtype) * step).astype(start.dtype)


@irdl_op_definition
class DynamicReshapeOp(ValueShapedOp):
    """`ge.reshape` to a target given as data (GE Reshape with a shape
    input, ONNX Reshape): 0 copies the input dim, one -1 is inferred; with
    `allowzero` (ONNX's, the dynamo exporter's `view`) a 0 would be an empty
    dim, an error at run time (no tensor here is empty)."""

    name = "ge.dynamic_reshape"

    x = operand_def(TensorType)
    shape = operand_def(TensorType)
    y = result_def(TensorType)
    allowzero = attr_def(IntegerAttr, default_value=boolean(False))

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _verify_rank(self, self.shape, len(shape_of(self.y.type)))
        if element_type_of(self.x) != element_type_of(self.y):
            raise VerifyException("the result has the dtype of x")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """One unknown dim per entry of `shape`; x's dtype."""
        rank = _shape_vector(shapes[1], dtypes[1], "shape")
        return [((UNKNOWN,) * rank, dtypes[0])]

    @property
    def data_operand_count(self) -> int:
        """Operands the static op reads (the rest are run-time parameters)."""
        return 1

    def run_time_parameter_names(self) -> list[str]:
        """The names of the run-time parameter operands (for messages)."""
        return ["shape"]

    def specialise(
        self, shapes: Sequence[Shape], parameters: Sequence[np.ndarray]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`ge.reshape` to the target's value (checked by its shape function:
        a `ShapeError` says why it is invalid); host scheduling JIT-runs it."""
        target = reshape_target(parameters[0], bool(self.value_of("allowzero")))
        ReshapeOp.shape_function(shapes, ["float32"], {"shape": target})
        return ReshapeOp, {"shape": target}

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, shape: np.ndarray, *, allowzero: bool
    ) -> np.ndarray:
        """`ge.reshape`'s kernel on the target's value, checked by its shape
        function."""
        try:
            target = reshape_target(shape, allowzero)
            ReshapeOp.shape_function([x.shape], [x.dtype.name], {"shape": target})
        except ShapeError as error:
            raise LimitError(str(error)) from None
        return ReshapeOp.numpy_kernel(x, shape=target)


def reshape_target(shape: np.ndarray, allowzero: bool) -> list[int]:
    """A run-time reshape target's entries; with `allowzero` a 0 entry (an
    empty dim) is a `ShapeError`."""
    target = [int(d) for d in np.asarray(shape).reshape(-1)]
    if allowzero and 0 in target:
        raise ShapeError(
            f"the target shape {target} has a 0 entry with allowzero=1: an empty tensor"
        )
    return target
