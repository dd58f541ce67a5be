"""Data movement: `ge.concat`, `ge.split`, `ge.slice`, `ge.gather`,
`ge.gather_elements`, `ge.gather_nd`, `ge.tile`, `ge.pad`, `ge.trilu`."""

from __future__ import annotations

import builtins
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.format_rules import same_rank_rule
from ge_dialect.formats import Format
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import pad_array, pad_reach_error
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_axis,
    check_same_element_type,
    element_type_of,
    fractal_block,
    fractal_nz_placement,
    integer,
    real,
    split_channel_axis,
    string,
)
from ge_dialect.ops.trans import ShapeOp
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    UnknownDims,
    axis_index,
    dims_match,
    parameter_axes,
    parameter_ints,
    parameter_length,
    required,
    same_dtype,
)
from ge_dialect.targets import c0_for
from ge_dialect.traits import KeepsLayout

PAD_MODES = ("constant", "reflect", "edge", "wrap")


class MovementOp(GEOperation):
    """Base of the data-movement ops: pure, same-rank format rule."""

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(same_rank_rule)


@irdl_op_definition
class ConcatOp(MovementOp):
    """Concatenate inputs along `axis`."""

    name = "ge.concat"

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr)

    traits = traits_def(KeepsLayout())

    assembly_format = COMPUTE_FORMAT

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ (inputs and result alike) where whole fractal rows
        move (`fractal_block`): along a batch axis (an LSTM's hidden states
        stacked over time) or the row axis at any offset (a class token
        before a ViT's patch tokens), or every piece but the last whole C0
        columns."""
        placed = fractal_nz_placement((*operands, *results))
        if placed is None:
            return True
        rank = self.y.type.get_num_dims()
        axis = self.value_of("axis") % rank
        block = fractal_block(self.y, axis, target)
        return placed and all(
            shape_of(x.type)[axis] % block == 0 for x in self.inputs[:-1]
        )

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'ge.concat' needs at least one input")
        check_same_element_type(self)
        rank = self.y.type.get_num_dims()
        axis = check_axis(self.value_of("axis"), rank)
        for index, value in enumerate(self.inputs):
            shape = shape_of(value.type)
            if len(shape) != rank:
                raise VerifyException(
                    f"input #{index} has rank {len(shape)}, expected {rank}"
                )
            for dim, (a, b) in enumerate(
                zip(shape, shape_of(self.y.type), strict=True)
            ):
                if dim != axis and -1 not in (a, b) and a != b:
                    raise VerifyException(
                        f"input #{index} dim {dim} is {a}, result has {b}"
                    )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Dims agree except on `axis`, where they add up."""
        if not shapes:
            raise ShapeError("needs at least one input")
        rank = len(shapes[0])
        axis = axis_index(required(attrs, "axis"), rank)
        result = list(shapes[0])
        for index, shape in enumerate(shapes[1:], 1):
            if len(shape) != rank:
                raise ShapeError(
                    f"input #{index} has rank {len(shape)}, expected {rank}"
                )
            for dim, (a, b) in enumerate(zip(result, shape, strict=True)):
                if dim != axis and not dims_match(a, b):
                    raise ShapeError(
                        f"input #{index} has {b} at dim {dim}, input #0 has {a}"
                    )
                if dim != axis and a == UNKNOWN:
                    result[dim] = b
        sizes = [shape[axis] for shape in shapes]
        result[axis] = UNKNOWN if UNKNOWN in sizes else sum(sizes)
        return [(tuple(result), same_dtype(dtypes))]

    @staticmethod
    def numpy_kernel(inputs: Sequence[np.ndarray], *, axis: int) -> np.ndarray:
        """Concatenate along `axis`."""
        return np.concatenate(inputs, axis=axis)


@irdl_op_definition
class SplitOp(MovementOp):
    """Split `x` along `axis` into pieces of `sizes`."""

    name = "ge.split"

    x = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    axis = attr_def(IntegerAttr)
    sizes = attr_def(DenseArrayBase)

    traits = traits_def(KeepsLayout())

    assembly_format = COMPUTE_FORMAT

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """An internal format (input and pieces alike) where whole blocks
        move: FRACTAL_NZ when the axis is not the last or every piece is
        whole C0 columns (a fused QKV projection split into Q, K and V;
        pieces of rows move whole fractal rows, `fractal_block`); NC1HWC0
        when the axis is not C or every piece is whole C0 channel blocks
        (YOLOv8's C2f halves)."""
        layouts = (*operands, *results)
        storages = {x.storage_format for x in layouts}
        if not storages & {Format.FRACTAL_NZ, Format.NC1HWC0}:
            return True
        if len(storages) != 1 or len({x.origin_format for x in layouts}) != 1:
            return False
        rank = self.x.type.get_num_dims()
        axis = self.value_of("axis") % rank
        dtype = dtype_name(element_type_of(self.x))
        if Format.NC1HWC0 in storages:
            channel = split_channel_axis(operands[0], rank)
            if channel is None:
                return False  # an expanded lower-rank tensor
            if axis != channel:
                return True
            block = c0_for(dtype, target)
        else:
            block = fractal_block(self.x, axis, target)
        return all(size % block == 0 for size in self.value_of("sizes"))

    def verify_(self) -> None:
        sizes = self.value_of("sizes")
        if len(sizes) != len(self.outputs):
            raise VerifyException(
                f"'sizes' has {len(sizes)} entries for {len(self.outputs)} results"
            )
        shape = shape_of(self.x.type)
        if not shape:
            raise VerifyException("cannot split a rank-0 tensor")
        axis = check_axis(self.value_of("axis"), len(shape))
        if shape[axis] != -1 and sum(sizes) != shape[axis]:
            raise VerifyException(
                f"sizes {sizes} do not add up to dim {axis} of size {shape[axis]}"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """One result per entry of `sizes`, which add up to the split dim."""
        x = shapes[0]
        axis = axis_index(required(attrs, "axis"), len(x))
        sizes = list(required(attrs, "sizes"))
        if min(sizes, default=0) < 0 or (x[axis] != UNKNOWN and sum(sizes) != x[axis]):
            raise ShapeError(
                f"sizes {sizes} do not add up to dim {axis} of size {x[axis]}"
            )
        return [((*x[:axis], size, *x[axis + 1 :]), dtypes[0]) for size in sizes]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("split",)
    """ONNX's `split` sizes; without them the dim splits into `num_outputs`
    near-equal parts (the last smaller)."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`axis` normalised; `split`, or equal parts of the dim."""
        x = shapes[0]
        axis = axis_index(int(required(values, "axis")), len(x))
        if "split" in values:
            sizes = parameter_ints(values["split"], "split")
        elif x[axis] == UNKNOWN:
            raise UnknownDims(f"equal parts of dim {axis}, unknown until run time")
        else:
            parts = int(required(values, "num_outputs"))
            chunk = -(-x[axis] // parts)
            sizes = [chunk] * (parts - 1) + [x[axis] - chunk * (parts - 1)]
        return cls, {"axis": axis, "sizes": sizes}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """One result per size (or part); the split dim unknown."""
        x = known.shapes[0]
        axis = axis_index(int(required(known.values, "axis")), len(x))
        count = (
            parameter_length(known.parameter_shapes, "split")
            if "split" in known.parameter_shapes
            else int(required(known.values, "num_outputs"))
        )
        return [((*x[:axis], UNKNOWN, *x[axis + 1 :]), known.dtypes[0])] * count

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, axis: int, sizes: Sequence[int]
    ) -> list[np.ndarray]:
        """Split along `axis` into pieces of the given sizes (summing to the dim)."""
        if sum(sizes) != x.shape[axis]:
            raise ValueError(f"split sizes {sizes} do not sum to dim {x.shape[axis]}")
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _unknown_on(known: Unbound, counted: str) -> Shape:
    """The first operand's shape with the dims of the parameter `axes`
    unknown: every dim while `axes` is a run-time parameter, the first
    `len(counted)` when it is absent."""
    x = known.shapes[0]
    if "axes" in known.parameter_shapes:
        return (UNKNOWN,) * len(x)
    if "axes" in known.values:
        axes = set(parameter_axes(known.values["axes"], len(x)))
    elif counted in known.parameter_shapes:
        axes = set(range(parameter_length(known.parameter_shapes, counted)))
    else:
        axes = set(range(len(parameter_ints(known.values[counted], counted))))
    return tuple(UNKNOWN if axis in axes else d for axis, d in enumerate(x))


def slice_bounds(dim: int, begin: int, end: int, step: int) -> tuple[int, int]:
    """ONNX Slice's clamped (begin, end) on an axis of size `dim` (end may be
    -1 for a negative step running to the start)."""
    if step == 0:
        raise ValueError("slice step must be non-zero")
    begin, end = (begin + dim if begin < 0 else begin), (end + dim if end < 0 else end)
    if step > 0:
        return min(max(begin, 0), dim), min(max(end, 0), dim)
    return min(max(begin, 0), dim - 1), min(max(end, -1), dim - 1)


@irdl_op_definition
class ChannelShuffleOp(MovementOp):
    """ShuffleNet's channel shuffle (CANN's ShuffleChannel): the channels of
    axis 1, `groups` groups of C / groups, interleaved. What an export writes
    as `reshape [N, g, C/g, ...] -> transpose (0, 2, 1, ...) -> reshape
    [N, C, ...]`: channel `c` of `y` is channel `(c % g) * (C / g) + c // g`
    of `x`, a permutation of the channel index alone, so it runs in NC1HWC0
    as a gather of C1/C0 positions (`fuse-confusion-transpose` makes it from
    the three ops between two NC1HWC0 values).

    ```mlir
    %y = ge.channel_shuffle %x {groups = 4 : i64}
       : tensor<1x112x7x7xf32> -> tensor<1x112x7x7xf32>
    ```
    """

    name = "ge.channel_shuffle"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    groups = attr_def(IntegerAttr)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        shape = shape_of(self.x.type)
        groups = self.value_of("groups")
        if len(shape) < 2:
            raise VerifyException("needs a channel axis (rank >= 2)")
        if groups < 1 or (shape[1] != -1 and shape[1] % groups):
            raise VerifyException(
                f"{shape[1]} channels do not split into {groups} groups"
            )
        if shape_of(self.y.type) != shape:
            raise VerifyException("the result has the input's shape")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The input's shape."""
        return [(tuple(shapes[0]), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, groups: int) -> np.ndarray:
        """reshape [N, g, C/g, ...], swap axes 1 and 2, reshape back."""
        n, c, *rest = x.shape
        grouped = x.reshape(n, groups, c // groups, *rest)
        return np.swapaxes(grouped, 1, 2).reshape(x.shape)

    def source_channel(self, channel: int) -> int:
        """The channel of `x` that lands on `channel` of `y`."""
        groups = self.value_of("groups")
        per_group = shape_of(self.x.type)[1] // groups
        return (channel % groups) * per_group + channel // groups


@irdl_op_definition
class SliceOp(ShapeOp):
    """ONNX Slice: `begins`/`ends`/`steps` on `axes` (clamped)."""

    name = "ge.slice"

    begins = attr_def(DenseArrayBase)
    ends = attr_def(DenseArrayBase)
    axes = opt_attr_def(DenseArrayBase)
    steps = opt_attr_def(DenseArrayBase)

    traits = traits_def(KeepsLayout())
    FORMAT_RULE = staticmethod(same_rank_rule)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ (in and out) where whole fractal rows move
        (`fractal_block`): a batch or row axis sliced any way (an LSTM's step
        t of its projected sequence, a class token), the column axis with
        step 1 from a C0 boundary to one or to the end (an LSTM's gate
        columns)."""
        placed = fractal_nz_placement((*operands, *results))
        if placed is None:
            return True
        if not placed:
            return False
        shape = shape_of(self.x.type)
        begins, ends = self.value_of("begins"), self.value_of("ends")
        axes = self.value_of("axes") if "axes" in self.attributes else None
        steps = self.value_of("steps") if "steps" in self.attributes else None
        for begin, end, axis, step in zip(
            begins,
            ends,
            axes or range(len(begins)),
            steps or [1] * len(begins),
            strict=True,
        ):
            axis %= len(shape)
            block = fractal_block(self.x, axis, target)
            if block == 1:
                continue
            if step != 1 or shape[axis] == UNKNOWN:
                return False
            start, stop = slice_bounds(shape[axis], begin, end, step)
            if start % block or (stop % block and stop != shape[axis]):
                return False
        return True

    def verify_shape(self) -> None:
        count = len(self.value_of("begins"))
        rank = self.x.type.get_num_dims()
        axes = self.attributes.get("axes")
        axes_values = self.value_of("axes") if axes is not None else list(range(count))
        steps = self.attributes.get("steps")
        steps_values = self.value_of("steps") if steps is not None else [1] * count
        if (
            not len(self.value_of("ends"))
            == len(axes_values)
            == len(steps_values)
            == count
        ):
            raise VerifyException(
                "'begins', 'ends', 'axes' and 'steps' differ in length"
            )
        for axis in axes_values:
            check_axis(axis, rank)
        if 0 in steps_values:
            raise VerifyException("'steps' cannot contain 0")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """ONNX Slice: negative bounds count from the end, bounds are clamped."""
        x = shapes[0]
        begins, ends = list(required(attrs, "begins")), list(required(attrs, "ends"))
        axes = list(attrs.get("axes") or range(len(begins)))
        steps = list(attrs.get("steps") or [1] * len(begins))
        if not len(ends) == len(axes) == len(steps) == len(begins):
            raise ShapeError("'begins', 'ends', 'axes' and 'steps' differ in length")
        shape = list(x)
        for begin, end, axis, step in zip(begins, ends, axes, steps, strict=True):
            axis = axis_index(axis, len(x))
            if step == 0:
                raise ShapeError("'steps' cannot contain 0")
            if x[axis] == UNKNOWN:
                continue
            begin, end = slice_bounds(x[axis], begin, end, step)
            shape[axis] = max(0, -(-(end - begin) // step))
        return [(tuple(shape), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("starts", "ends", "axes", "steps")
    """ONNX Slice's inputs (absent `axes`: the first axes; `steps`: 1)."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """Bounds as given (the op clamps them), `axes` normalised."""
        rank = len(shapes[0])
        begins = parameter_ints(required(values, "starts"), "starts")
        ends = parameter_ints(required(values, "ends"), "ends")
        axes = (
            parameter_axes(values["axes"], rank)
            if "axes" in values
            else list(range(len(begins)))
        )
        steps = (
            parameter_ints(values["steps"], "steps")
            if "steps" in values
            else [1] * len(begins)
        )
        if not len(ends) == len(axes) == len(steps) == len(begins):
            raise ShapeError("'starts', 'ends', 'axes' and 'steps' differ in length")
        if 0 in steps:
            raise ShapeError("'steps' cannot contain 0")
        return cls, {"begins": begins, "ends": ends, "axes": axes, "steps": steps}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The sliced axes unknown (every axis while `axes` is unknown)."""
        return [(_unknown_on(known, "starts"), known.dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        begins: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None = None,
        steps: Sequence[int] | None = None,
    ) -> np.ndarray:
        """ONNX Slice: negative indices count from the end, bounds are clamped;
        absent `axes` are the first axes, absent `steps` are 1."""
        axes = range(len(begins)) if axes is None else axes
        steps = [1] * len(begins) if steps is None else steps
        index = [builtins.slice(None)] * x.ndim
        for b, e, a, s in zip(begins, ends, axes, steps, strict=True):
            b, e = slice_bounds(x.shape[a], b, e, s)
            index[a] = builtins.slice(b, None if e < 0 else e, s)
        return x[tuple(index)]


@irdl_op_definition
class GatherOp(MovementOp):
    """Gather slices of `x` along `axis` at `indices`."""

    name = "ge.gather"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_axis(self.value_of("axis"), self.x.type.get_num_dims())

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x dims before `axis`, the indices' dims, x dims after `axis`."""
        x, indices = shapes
        axis = axis_index(required(attrs, "axis"), len(x))
        if not dtypes[1].startswith(("int", "uint")):
            raise ShapeError(f"indices must be integers, got {dtypes[1]}")
        return [((*x[:axis], *indices, *x[axis + 1 :]), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
        """Take `indices` (negative ones count from the end) along `axis`."""
        return np.take(x, indices, axis=axis)


def wrapped_in_range(indices: np.ndarray, sizes: int | np.ndarray) -> np.ndarray:
    """`indices` as int64 with negative entries counted from the end; an
    entry outside `[-size, size)` is an IndexError naming it."""
    indices = indices.astype(np.int64)
    sizes = np.broadcast_to(np.asarray(sizes, np.int64), indices.shape)
    bad = (indices < -sizes) | (indices >= sizes)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise IndexError(
            f"index {int(indices[at])} is out of bounds for size {int(sizes[at])}"
        )
    return np.where(indices < 0, indices + sizes, indices)


@irdl_op_definition
class GatherElementsOp(MovementOp):
    """`y[i] = x[i with axis replaced by indices[i]]` (ONNX GatherElements,
    torch.gather): y has the shape of `indices`."""

    name = "ge.gather_elements"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr, default_value=integer(0))

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        rank = self.x.type.get_num_dims()
        check_axis(self.value_of("axis"), rank)
        if self.indices.type.get_num_dims() != rank:
            raise VerifyException("indices must have the rank of x")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The indices' shape, x's dtype."""
        x, indices = shapes
        axis = axis_index(required(attrs, "axis"), len(x))
        if len(indices) != len(x):
            raise ShapeError(f"indices have rank {len(indices)}, x has {len(x)}")
        for d, (n, size) in enumerate(zip(indices, x, strict=True)):
            if d != axis and UNKNOWN not in (n, size) and n > size:
                raise ShapeError(f"indices dim {d} is {n}, more than x's {size}")
        if not dtypes[1].startswith(("int", "uint")):
            raise ShapeError(f"indices must be integers, got {dtypes[1]}")
        return [(tuple(indices), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
        """`take_along_axis` over x cut to the indices' extent on the other
        axes (ONNX lets them be shorter); negative indices count from the end."""
        window = tuple(
            builtins.slice(None) if d == axis else builtins.slice(0, n)
            for d, n in enumerate(indices.shape)
        )
        wrapped = wrapped_in_range(indices, x.shape[axis])
        return np.take_along_axis(x[window], wrapped, axis=axis)


@irdl_op_definition
class GatherNdOp(MovementOp):
    """Slices of `x` at the index tuples in the last dim of `indices`
    (ONNX GatherND): with `k = indices.shape[-1]` and `b = batch_dims`,
    `y[B, I, T] = x[B, indices[B, I], T]`, shape
    `indices.shape[:-1] + x.shape[b + k:]`."""

    name = "ge.gather_nd"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    batch_dims = attr_def(IntegerAttr, default_value=integer(0))

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        x_rank, index_rank = (
            self.x.type.get_num_dims(),
            self.indices.type.get_num_dims(),
        )
        batch = self.value_of("batch_dims")
        if not 0 <= batch < min(x_rank, index_rank):
            raise VerifyException(f"batch_dims {batch} is out of range")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`indices.shape[:-1] + x.shape[batch_dims + indices.shape[-1]:]`."""
        x, indices = shapes
        batch = int(required(attrs, "batch_dims"))
        if not dtypes[1].startswith(("int", "uint")):
            raise ShapeError(f"indices must be integers, got {dtypes[1]}")
        if not indices or not 0 <= batch < min(len(x), len(indices)):
            raise ShapeError(f"batch_dims {batch} is out of range")
        depth = indices[-1]
        if depth == UNKNOWN:
            raise ShapeError("the index depth (the last dim of indices) is unknown")
        if batch + depth > len(x):
            raise ShapeError(
                f"index tuples of {depth} entries after {batch} batch dims "
                f"exceed x's rank {len(x)}"
            )
        for axis in range(batch):
            if not dims_match(x[axis], indices[axis]):
                raise ShapeError(
                    f"batch dim {axis} differs: {x[axis]} and {indices[axis]}"
                )
        return [((*indices[:-1], *x[batch + depth :]), dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, indices: np.ndarray, *, batch_dims: int
    ) -> np.ndarray:
        """Batch by batch, `x[tuple(index)]` per index tuple; negative
        entries count from the end."""
        depth = indices.shape[-1]
        batch_shape = x.shape[:batch_dims]
        tuples = wrapped_in_range(
            indices, np.array(x.shape[batch_dims : batch_dims + depth])
        )
        tuples = tuples.reshape(math.prod(batch_shape), -1, depth)
        batches = x.reshape(math.prod(batch_shape), *x.shape[batch_dims:])
        rows = [
            batch[tuple(np.moveaxis(found, -1, 0))]
            for batch, found in zip(batches, tuples, strict=True)
        ]
        tail = x.shape[batch_dims + depth :]
        return np.asarray(rows, dtype=x.dtype).reshape(*indices.shape[:-1], *tail)


@irdl_op_definition
class TileOp(ShapeOp):
    """Repeat `x` `multiples[i]` times along axis i."""

    name = "ge.tile"

    multiples = attr_def(DenseArrayBase)

    traits = traits_def(KeepsLayout())
    FORMAT_RULE = staticmethod(same_rank_rule)

    def verify_shape(self) -> None:
        if len(self.value_of("multiples")) != self.x.type.get_num_dims():
            raise VerifyException("'multiples' needs one entry per input axis")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Each dim times its multiple."""
        x = shapes[0]
        multiples = list(required(attrs, "multiples"))
        if len(multiples) != len(x):
            raise ShapeError(
                f"'multiples' has {len(multiples)} entries for rank {len(x)}"
            )
        shape = tuple(
            UNKNOWN if d == UNKNOWN else d * m
            for d, m in zip(x, multiples, strict=True)
        )
        return [(shape, dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("repeats",)
    """ONNX Tile's `repeats`, one per axis."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`repeats` as `multiples`: one per axis, none negative."""
        multiples = parameter_ints(required(values, "repeats"), "repeats")
        if len(multiples) != len(shapes[0]):
            raise ShapeError(
                f"'repeats' has {len(multiples)} entries for rank {len(shapes[0])}"
            )
        if min(multiples, default=0) < 0:
            raise ShapeError(f"'repeats' {multiples} has a negative entry")
        return cls, {"multiples": multiples}

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, multiples: Sequence[int]) -> np.ndarray:
        """Repeat x `multiples[i]` times along each axis."""
        return np.tile(x, multiples)


@irdl_op_definition
class PadOp(ShapeOp):
    """Pad with `paddings` in ONNX order [begin_0.., end_0..]; constant,
    reflect, edge or wrap (the axis repeated around, ONNX opset 19)."""

    name = "ge.pad"

    paddings = attr_def(DenseArrayBase)
    mode = attr_def(StringAttr, default_value=string("constant"))
    value = attr_def(FloatAttr, default_value=real(0.0))

    traits = traits_def(KeepsLayout())
    FORMAT_RULE = staticmethod(same_rank_rule)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """NC1HWC0 only when C is not padded (H, W and N pad block by block)."""
        rank = self.x.type.get_num_dims()
        channel = split_channel_axis(operands[0], rank)
        if channel is None:
            return True
        paddings = self.value_of("paddings")
        return paddings[channel] == 0 and paddings[rank + channel] == 0

    def verify_shape(self) -> None:
        if len(self.value_of("paddings")) != 2 * self.x.type.get_num_dims():
            raise VerifyException("'paddings' needs two entries per input axis")
        if self.value_of("mode") not in PAD_MODES:
            raise VerifyException(
                "mode must be constant, reflect, edge or wrap, got "
                f"'{self.value_of('mode')}'"
            )
        reason = pad_reach_error(
            self.x.type.get_shape(),
            pad_pairs(self.value_of("paddings")),
            self.value_of("mode"),
        )
        if reason is not None:
            raise VerifyException(reason)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Each dim grows by its begin and end padding (ONNX order [b0.., e0..])."""
        x = shapes[0]
        paddings = list(required(attrs, "paddings"))
        if len(paddings) != 2 * len(x):
            raise ShapeError(
                f"'paddings' has {len(paddings)} entries for rank {len(x)}"
            )
        mode = attrs.get("mode", "constant")
        if (reason := pad_reach_error(x, pad_pairs(paddings), mode)) is not None:
            raise ShapeError(reason)
        shape = []
        for axis, dim in enumerate(x):
            size = (
                UNKNOWN
                if dim == UNKNOWN
                else dim + paddings[axis] + paddings[len(x) + axis]
            )
            if size < 0 and dim != UNKNOWN:
                raise ShapeError(f"padding makes dim {axis} negative ({size})")
            shape.append(size)
        return [(tuple(shape), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("pads", "constant_value", "axes")
    """ONNX Pad's inputs: `pads` [begins.., ends..] of `axes` (all axes when
    absent), the `constant_value` (0 when absent); the option `mode`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`pads` of `axes` spread over every axis; the fill value's first
        element as a float."""
        rank = len(shapes[0])
        pads = parameter_ints(required(values, "pads"), "pads")
        axes = (
            parameter_axes(values["axes"], rank)
            if "axes" in values
            else list(range(rank))
        )
        if len(pads) != 2 * len(axes):
            raise ShapeError(f"'pads' has {len(pads)} entries for {len(axes)} axes")
        paddings = [0] * 2 * rank
        for i, axis in enumerate(axes):
            paddings[axis], paddings[rank + axis] = pads[i], pads[len(axes) + i]
        fill = np.asarray(values.get("constant_value", 0.0)).reshape(-1)
        mode = str(values.get("mode", "constant"))
        if mode not in PAD_MODES:
            raise ShapeError(
                f"mode must be constant, reflect, edge or wrap, got '{mode}'"
            )
        value = float(fill[0]) if fill.size else 0.0
        return cls, {"paddings": paddings, "mode": mode, "value": value}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The padded axes unknown (every axis while `axes` is unknown)."""
        x = known.shapes[0]
        if "pads" not in known.parameter_shapes:
            if "axes" in known.parameter_shapes:
                return [((UNKNOWN,) * len(x), known.dtypes[0])]
            _, attrs = cls.bind_parameters(known.shapes, known.values)
            return cls.shape_function(known.shapes, known.dtypes, attrs)
        if "axes" not in known.values and "axes" not in known.parameter_shapes:
            return [((UNKNOWN,) * len(x), known.dtypes[0])]
        return [(_unknown_on(known, "pads"), known.dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, paddings: Sequence[int], mode: str, value: float
    ) -> np.ndarray:
        """ONNX Pad; paddings [b0.., e0..], negative values crop."""
        if mode not in PAD_MODES:
            raise ValueError(f"unsupported pad mode {mode!r}")
        return pad_array(x, pad_pairs(paddings), mode, value)


def pad_pairs(paddings: Sequence[int]) -> list[tuple[int, int]]:
    """ONNX-order paddings `[b0, b1, .., e0, e1, ..]` as (begin, end) per axis."""
    rank = len(paddings) // 2
    return list(zip(paddings[:rank], paddings[rank:], strict=True))


@irdl_op_definition
class TriluOp(MovementOp):
    """The upper (`upper`) or lower triangle of the last two axes of `x`,
    zeros elsewhere: `y[..., i, j] = x[..., i, j]` where `j - i >= k`
    (upper) or `j - i <= k` (lower), `k` the optional 0-d integer diagonal
    offset (0 when absent; ONNX Trilu, torch.triu/tril)."""

    name = "ge.trilu"

    x = operand_def(TensorType)
    k = opt_operand_def(TensorType)
    y = result_def(TensorType)
    upper = attr_def(IntegerAttr, default_value=boolean(True))

    traits = traits_def(KeepsLayout())

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if element_type_of(self.x) != element_type_of(self.y):
            raise VerifyException(
                f"result dtype {element_type_of(self.y)} must be x's "
                f"{element_type_of(self.x)}"
            )
        if self.x.type.get_num_dims() < 2:
            raise VerifyException(f"x must have rank >= 2, got {self.x.type}")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The shape of `x`; `k`, when given, is one integer."""
        if len(shapes[0]) < 2:
            raise ShapeError(f"x must have rank >= 2, got rank {len(shapes[0])}")
        if len(shapes) > 1:
            if not dtypes[1].startswith(("int", "uint")):
                raise ShapeError(f"k must be an integer, got {dtypes[1]}")
            if tuple(shapes[1]) not in ((), (1,)):
                raise ShapeError(f"k must be one value, got shape {list(shapes[1])}")
        return [(tuple(shapes[0]), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, k: np.ndarray | None, *, upper: bool) -> np.ndarray:
        offset = 0 if k is None else int(np.asarray(k).reshape(-1)[0])
        return (np.triu if upper else np.tril)(x, offset)
