"""Writing at indices: `ge.scatter_elements`, `ge.scatter_nd` (ONNX
ScatterElements / Scatter, ScatterND; GE ScatterElements, ScatterNd) and
`ge.one_hot` (ONNX OneHot: `on` written at each index into `off`).

The result is `data` with the `updates` written at the positions `indices`
name (negative entries count from the end), in row-major order of the
updates; `reduction` says how an update meets the value there: "none"
replaces it (the last of duplicate positions wins), "add", "mul", "max",
"min" combine (duplicates combine one after the other).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import same_rank_rule, stop_rule
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    check_axis,
    element_type_of,
    integer,
    string,
)
from ge_dialect.ops.movement import wrapped_in_range
from ge_dialect.shape_functions import (
    Result,
    Shape,
    ShapeError,
    Unbound,
    axis_index,
    dims_match,
    required,
)

REDUCTIONS = ("none", "add", "mul", "max", "min")

COMBINE = {
    "add": np.add,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}
"""`reduction` -> the ufunc that combines an update with the value there."""


def check_reduction(reduction: str) -> None:
    """`reduction` must be one ONNX names (VerifyException)."""
    if reduction not in REDUCTIONS:
        raise VerifyException(
            f"reduction '{reduction}' is not one of {', '.join(REDUCTIONS)}"
        )


def _integer_indices(dtype: str) -> None:
    if not dtype.startswith(("int", "uint")):
        raise ShapeError(f"indices must be integers, got {dtype}")


def scatter_flat(
    data: np.ndarray, flat: np.ndarray, updates: np.ndarray, reduction: str
) -> np.ndarray:
    """`data` with `updates` written at the flat (row-major) positions `flat`,
    in order (see the module docstring)."""
    y = data.copy()
    out = y.reshape(-1)
    values = updates.reshape(-1).astype(data.dtype, copy=False)
    flat = flat.reshape(-1)
    if reduction == "none":
        # The last update of each position wins.
        _, last = np.unique(flat[::-1], return_index=True)
        chosen = flat.size - 1 - last
        out[flat[chosen]] = values[chosen]
    else:
        COMBINE[reduction].at(out, flat, values)
    return y


class ScatterOp(GEOperation):
    """Base of the scatters: `data`, `indices`, `updates` -> data's shape."""

    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    y = result_def(TensorType)
    reduction = attr_def(StringAttr, default_value=string("none"))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_reduction(self.value_of("reduction"))
        types = {element_type_of(v) for v in (self.data, self.updates, self.y)}
        if len(types) > 1:
            names = ", ".join(sorted(str(t) for t in types))
            raise VerifyException(
                f"data, updates and the result must share one dtype, got {names}"
            )


@irdl_op_definition
class ScatterElementsOp(ScatterOp):
    """`y = data`, then `y[i with axis = indices[i]] (op)= updates[i]` for
    every i of the indices' shape (ONNX ScatterElements, torch.scatter)."""

    name = "ge.scatter_elements"

    axis = attr_def(IntegerAttr, default_value=integer(0))

    def verify_(self) -> None:
        super().verify_()
        rank = self.data.type.get_num_dims()
        check_axis(self.value_of("axis"), rank)
        if self.indices.type.get_num_dims() != rank:
            raise VerifyException("indices must have the rank of data")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Data's shape and dtype; indices and updates share one shape, of
        data's rank, no longer than data off the axis."""
        data, indices, updates = shapes
        axis = axis_index(required(attrs, "axis"), len(data))
        _integer_indices(dtypes[1])
        if len(indices) != len(data) or len(updates) != len(indices):
            raise ShapeError(
                f"indices {list(indices)} and updates {list(updates)} must have "
                f"data's rank {len(data)}"
            )
        for d, (n, u, size) in enumerate(zip(indices, updates, data, strict=True)):
            if not dims_match(n, u):
                raise ShapeError(f"indices and updates differ at dim {d}: {n}, {u}")
            if d != axis and -1 not in (n, size) and n > size:
                raise ShapeError(f"indices dim {d} is {n}, more than data's {size}")
        if dtypes[2] != dtypes[0]:
            raise ShapeError(f"updates are {dtypes[2]}, data is {dtypes[0]}")
        return [(tuple(data), dtypes[0])]

    @staticmethod
    def numpy_kernel(
        data: np.ndarray,
        indices: np.ndarray,
        updates: np.ndarray,
        *,
        axis: int,
        reduction: str,
    ) -> np.ndarray:
        """Flat target positions from the index grid with the axis entry
        replaced, then `scatter_flat`."""
        axis %= data.ndim
        grid = list(np.indices(indices.shape, sparse=True))
        grid[axis] = wrapped_in_range(indices, data.shape[axis])
        flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), data.shape)
        return scatter_flat(data, flat, updates, reduction)


@irdl_op_definition
class ScatterNdOp(ScatterOp):
    """`y = data`, then `y[indices[I]] (op)= updates[I]` for each index
    tuple (the last dim of `indices`, k entries): updates have the shape
    `indices.shape[:-1] + data.shape[k:]` (ONNX ScatterND)."""

    name = "ge.scatter_nd"

    def verify_(self) -> None:
        super().verify_()
        if self.indices.type.get_num_dims() == 0:
            raise VerifyException("indices must have rank >= 1")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Data's shape and dtype; updates are
        `indices.shape[:-1] + data.shape[k:]`."""
        data, indices, updates = shapes
        _integer_indices(dtypes[1])
        if not indices:
            raise ShapeError("indices must have rank >= 1")
        depth = indices[-1]
        if depth == -1:
            raise ShapeError("the index depth (the last dim of indices) is unknown")
        if depth > len(data):
            raise ShapeError(
                f"index tuples of {depth} entries exceed data's rank {len(data)}"
            )
        wanted = (*indices[:-1], *data[depth:])
        if len(updates) != len(wanted) or not all(
            dims_match(a, b) for a, b in zip(updates, wanted, strict=True)
        ):
            raise ShapeError(f"updates are {list(updates)}, expected {list(wanted)}")
        if dtypes[2] != dtypes[0]:
            raise ShapeError(f"updates are {dtypes[2]}, data is {dtypes[0]}")
        return [(tuple(data), dtypes[0])]

    @staticmethod
    def numpy_kernel(
        data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str
    ) -> np.ndarray:
        """Each index tuple names a slice of `data.shape[k:]`: flat target
        positions tuple by tuple, then `scatter_flat`."""
        depth = indices.shape[-1]
        tuples = wrapped_in_range(indices, np.array(data.shape[:depth], np.int64))
        tail = data.shape[depth:]
        starts = (
            np.ravel_multi_index(tuple(np.moveaxis(tuples, -1, 0)), data.shape[:depth])
            if depth
            else np.zeros(indices.shape[:-1], np.int64)
        )
        offsets = np.arange(math.prod(tail), dtype=np.int64)
        flat = starts[..., None] * math.prod(tail) + offsets
        return scatter_flat(data, flat, updates, reduction)


@irdl_op_definition
class OneHotOp(GEOperation):
    """`y[..., p, ...] = on if indices[...] == p (or p - depth) else off`
    with `[off, on] = values` and the new dim of `depth` at `axis` (ONNX
    OneHot): an index outside `[-depth, depth)`, or a float one that is not
    a whole number, gives a row of `off`. y has the dtype of `values`."""

    name = "ge.one_hot"

    indices = operand_def(TensorType)
    values = operand_def(TensorType)
    y = result_def(TensorType)
    depth = attr_def(IntegerAttr)
    axis = attr_def(IntegerAttr, default_value=integer(-1))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_axis(self.value_of("axis"), self.indices.type.get_num_dims() + 1)
        if self.value_of("depth") < 1:
            raise VerifyException(f"depth {self.value_of('depth')} must be positive")
        if element_type_of(self.values) != element_type_of(self.y):
            raise VerifyException("the result must have the dtype of values")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The indices' shape with `depth` inserted at `axis`; values' dtype."""
        indices, values = shapes
        axis = axis_index(required(attrs, "axis"), len(indices) + 1)
        depth = int(required(attrs, "depth"))
        if depth < 1:
            raise ShapeError(f"depth {depth} must be positive")
        if len(values) != 1 or values[0] not in (2, -1):
            raise ShapeError(f"values must be [off, on], got shape {list(values)}")
        return [((*indices[:axis], depth, *indices[axis:]), dtypes[1])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("depth",)
    """ONNX's `depth` input (a scalar or 1-element tensor of any numeric
    type); the option `axis`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`depth` as a positive integer (a float one truncated, as ONNX
        Runtime does)."""
        depth = np.asarray(required(values, "depth"))
        if depth.size != 1 or depth.dtype.kind not in "iuf":
            raise ShapeError(
                f"depth must be one number, got {depth.dtype} {list(depth.shape)}"
            )
        count = int(depth.reshape(()))
        if count < 1:
            raise ShapeError(f"depth {count} must be positive")
        axis = axis_index(values.get("axis", -1), len(shapes[0]) + 1)
        return cls, {"depth": count, "axis": axis}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The indices' shape with an unknown dim at `axis` until `depth` is
        known; values' dtype."""
        indices = known.shapes[0]
        axis = axis_index(known.values.get("axis", -1), len(indices) + 1)
        return [((*indices[:axis], -1, *indices[axis:]), known.dtypes[1])]

    @staticmethod
    def numpy_kernel(
        indices: np.ndarray, values: np.ndarray, *, depth: int, axis: int
    ) -> np.ndarray:
        """Each index (negative ones `+ depth`) compared with `0..depth-1`."""
        axis %= indices.ndim + 1
        off, on = values.reshape(-1)
        wrapped = np.where(indices < 0, indices + depth, indices)
        targets = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - axis))
        hot = np.expand_dims(wrapped, axis) == targets
        return np.where(hot, on, off).astype(values.dtype)
