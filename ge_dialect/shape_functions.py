"""What shape functions are made of: their types, errors and shared helpers.

A shape function takes the input shapes (tuples of ints, -1 for an unknown
dim), the input dtype names ("float32", ...) and the attributes as Python
values (defaults included), and returns one (shape, dtype) per result. Each
op declares its own as the static method `shape_function` (see
`ge_dialect.ops`); `ge_dialect.shape_inference` calls them. Nothing here
touches the IR, so the same functions type builder graphs, run in
`infer-shape`, and run at execution time on concrete shapes.

Invalid inputs raise `ShapeError` with a message that names the problem
(`input has 3 channels, filter expects 4 (groups = 1)`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Shape = tuple[int, ...]
Result = tuple[Shape, str]
ShapeFunction = Callable[
    [Sequence[Shape], Sequence[str], Mapping[str, Any]], list[Result]
]

UNKNOWN = -1
"""An unknown dim."""


class ShapeError(ValueError):
    """The inputs or attributes of an op do not give a valid result shape."""


class UnknownDims(ShapeError):
    """Binding run-time parameters needs dims that are unknown until run time."""


def required(attrs: Mapping[str, Any], name: str) -> Any:
    """Attribute `name`, or a ShapeError saying it is missing."""
    if name not in attrs:
        raise ShapeError(f"missing attribute '{name}'")
    return attrs[name]


def axis_index(axis: int, rank: int, what: str = "axis") -> int:
    """`axis` (negative counts from the end) as an index into rank `rank`."""
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"{what} {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


@dataclass(frozen=True)
class Unbound:
    """What an unbound shape function knows of an op whose run-time
    parameters are not known yet."""

    shapes: Sequence[Shape]
    """The data operands' shapes."""
    dtypes: Sequence[str]
    """The data operands' dtypes."""
    parameter_shapes: Mapping[str, Shape]
    """The shapes of the parameters known only at run time, by name."""
    values: Mapping[str, Any]
    """The op's options and the parameters that are known, by name."""


def parameter_ints(value: Any, what: str) -> list[int]:
    """The integers of a run-time parameter (a scalar or 1-D tensor, or a list)."""
    array = np.asarray(value)
    if array.ndim > 1:
        raise ShapeError(
            f"{what} must be a scalar or 1-D, got shape {list(array.shape)}"
        )
    if array.size and array.dtype.kind not in "iub":
        raise ShapeError(f"{what} must be integers, got {array.dtype.name}")
    return [int(v) for v in array.reshape(-1)]


def parameter_axes(value: Any, rank: int, what: str = "axes") -> list[int]:
    """Distinct axes of a rank-`rank` tensor from a run-time parameter
    (negative ones count from the end), in the order given."""
    axes: list[int] = []
    for axis in parameter_ints(value, what):
        if not -rank <= axis < rank:
            raise ShapeError(f"{what}: axis {axis} is out of range for rank {rank}")
        if axis % rank in axes:
            raise ShapeError(f"{what}: axis {axis} appears twice")
        axes.append(axis % rank)
    return axes


def parameter_length(parameter_shapes: Mapping[str, Shape], name: str) -> int:
    """How many values the run-time parameter `name` holds (known statically)."""
    shape = parameter_shapes[name]
    length = 1 if not shape else shape[0]
    if length == UNKNOWN:
        raise ShapeError(f"'{name}' has an unknown length: the result rank is unknown")
    return length


def require_rank(shape: Shape, rank: int, what: str) -> Shape:
    """`shape`, or a ShapeError unless it has rank `rank`."""
    if len(shape) != rank:
        raise ShapeError(f"{what} must have rank {rank}, got {len(shape)}")
    return shape


def product(dims: Sequence[int]) -> int:
    """The element count of `dims` (UNKNOWN if any dim is)."""
    return UNKNOWN if UNKNOWN in dims else math.prod(dims)


def same_dtype(dtypes: Sequence[str]) -> str:
    """The one dtype of `dtypes`, or a ShapeError if they differ."""
    if len(set(dtypes)) > 1:
        raise ShapeError(f"operand dtypes differ: {', '.join(dtypes)}")
    return dtypes[0]


def dims_match(a: int, b: int) -> bool:
    """Whether two dims can be equal (an unknown dim matches any)."""
    return UNKNOWN in (a, b) or a == b


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy broadcast of shapes with -1 for unknown dims, or None if they clash."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        known = dims - {1, UNKNOWN}
        if len(known) > 1:
            return None
        if known:
            result.append(known.pop())
        elif UNKNOWN in dims:
            result.append(UNKNOWN)
        else:
            result.append(1)
    return tuple(result)


def broadcast_all(shapes: Sequence[Shape]) -> Shape:
    """The broadcast of `shapes`, or a ShapeError if they do not broadcast."""
    result = broadcast_shapes(*shapes)
    if result is None:
        listed = " and ".join(str(list(s)) for s in shapes)
        raise ShapeError(f"shapes {listed} do not broadcast")
    return result


def spatial_axes(attrs: Mapping[str, Any]) -> tuple[str, int, int, int]:
    """(data_format, C axis, H axis, W axis) of a 4-D NCHW/NHWC tensor."""
    data_format = required(attrs, "data_format")
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"data_format must be NCHW or NHWC, got '{data_format}'")
    return (
        data_format,
        data_format.index("C"),
        data_format.index("H"),
        data_format.index("W"),
    )


def four_values(attrs: Mapping[str, Any], name: str) -> list[int]:
    """Attribute `name` as a list of exactly 4 ints."""
    values = list(required(attrs, name))
    if len(values) != 4:
        raise ShapeError(f"'{name}' must have 4 values, got {len(values)}")
    return values


def same_shape(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """The result is shaped and typed like input 0."""
    return [(shapes[0], dtypes[0])]


def broadcast(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """NumPy broadcasting of every input; all dtypes equal."""
    if not shapes:
        raise ShapeError("needs at least one input")
    return [(broadcast_all(shapes), same_dtype(dtypes))]
