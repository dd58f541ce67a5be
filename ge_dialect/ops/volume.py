"""3-D convolution and pooling: GE's `Conv3D`, `Conv3DTranspose`,
`MaxPool3D` and `AvgPool3D`, on NCDHW or NDHWC volumes (video, medical
imaging).

Their activations are stored in NDC1HWC0 (GE's 3-D 5HD: [N, D, C1, H, W,
C0]) and the convolutions' filters in FRACTAL_Z_3D ([D * C1 * H * W, N1,
N0, C0]), as GE's kernels read them; each op class holds its shape function,
format rule, reference kernel and work count like the 2-D ops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
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

from ge_dialect.attribute_values import attribute_value
from ge_dialect.attributes import LayoutAttr
from ge_dialect.format_rules import FormatView, data_format_rule
from ge_dialect.formats import Format
from ge_dialect.layout import kept_layout, shape_of
from ge_dialect.numpy_helpers import float32_compute, lowest
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_rank,
    check_same_element_type,
    element_count,
    int_list_length,
    integer,
    ints,
)
from ge_dialect.ops.nn import (
    check_convolution_channels,
    transposed_channels,
    verify_groups,
)
from ge_dialect.ops.windows import (
    avg_pool,
    channels_first,
    check_output_padding,
    convolve,
    convolved_shape,
    from_channels_first,
    max_pool,
    pool_geometry,
    pooled_shape,
    spatial_values,
    transposed_convolve,
    transposed_shape,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    ShapeError,
    require_rank,
    required,
)
from ge_dialect.traits import KeepsLayout

VOLUME_FORMATS = ("NCDHW", "NDHWC")
"""The data formats of a 3-D op's input and result."""


def check_volume_format(op: GEOperation) -> str:
    """The op's `data_format`, which must be one of `VOLUME_FORMATS`."""
    data_format = op.value_of("data_format")
    if data_format not in VOLUME_FORMATS:
        raise VerifyException(
            f"data_format must be one of {', '.join(VOLUME_FORMATS)}, "
            f"got '{data_format}'"
        )
    return data_format


def volume_format(attrs: Mapping[str, Any]) -> str:
    """The `data_format` attribute of a 3-D op's shape function."""
    data_format = required(attrs, "data_format")
    if data_format not in VOLUME_FORMATS:
        raise ShapeError(f"data_format must be NCDHW or NDHWC, got {data_format}")
    return data_format


def conv3d_rule(view: FormatView) -> None:
    """x, y and bias are in `data_format`; the filter is OIDHW (NCDHW).

    ```mlir
    %y = ge.conv3d %x, %w {data_format = "NCDHW"} : (tensor<1x3x5x8x8xf32>,
         tensor<4x3x3x3x3xf32>) -> tensor<1x4x3x6x6xf32>
    // after: %x, %y and %w NCDHW
    ```
    """
    fmt = Format(attribute_value(view.op, "data_format"))
    for index in range(len(view.op.operands)):
        view.set_input(index, Format.NCDHW if index == 1 else fmt)
    view.set_output(0, fmt)


def verify_convolution_operands(op: GEOperation) -> str:
    """The checks `ge.conv3d` and `ge.conv3d_transpose` share: data format,
    ranks, and one stride and dilation per axis (positive), six pads; the
    data format."""
    data_format = check_volume_format(op)
    check_rank(op.x, 5, "input")
    check_rank(op.filter, 5, "filter")
    check_rank(op.y, 5, "result")
    if op.bias is not None:
        check_rank(op.bias, 1, "bias")
    for name, count in (("strides", 5), ("pads", 6), ("dilations", 5)):
        values = int_list_length(op, name, count)
        if name != "pads" and min(values) < 1:
            raise VerifyException(f"'{name}' must be positive, got {values}")
    return data_format


@irdl_op_definition
class Conv3DOp(GEOperation):
    """3-D convolution (cross-correlation) with optional bias.

    `strides` and `dilations` hold one value per axis of `data_format`
    (N and C are 1), `pads` six: [front, back, top, bottom, left, right].
    The filter is [O, I / groups, kd, kh, kw].
    """

    name = "ge.conv3d"

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    strides = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    pads = attr_def(DenseArrayBase, default_value=ints(0, 0, 0, 0, 0, 0))
    dilations = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    groups = attr_def(IntegerAttr, default_value=integer(1))

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(conv3d_rule)
    REFRESH_RULE = staticmethod(conv3d_rule)

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def result_layout(
        operand_types: Sequence[TensorType], attrs: Mapping[str, Any]
    ) -> LayoutAttr | None:
        """The result means what x means: x's layout, never the filter's."""
        return kept_layout(operand_types[:1], 5)

    def verify_(self) -> None:
        verify_convolution_operands(self)
        verify_groups(self)

    def work(self) -> float:
        """Multiply-adds: each output element takes filter size / output channels."""
        channels = shape_of(self.y.type)[self.value_of("data_format").index("C")]
        return element_count(self.y) * element_count(self.filter) / max(channels, 1)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Output from strides, pads, dilations and groups (filter OIDHW)."""
        x = require_rank(shapes[0], 5, "input")
        w = require_rank(shapes[1], 5, "filter")
        data_format = volume_format(attrs)
        c = data_format.index("C")
        check_convolution_channels(shapes, x[c], w[0], w[1], required(attrs, "groups"))
        if dtypes[0] != dtypes[1]:
            raise ShapeError(
                f"filter dtype {dtypes[1]} differs from input dtype {dtypes[0]}"
            )
        strides = list(attrs.get("strides", [1] * 5))
        dilations = list(attrs.get("dilations", [1] * 5))
        pads = list(attrs.get("pads", [0] * 6))
        if len(strides) != 5 or len(dilations) != 5 or len(pads) != 6:
            raise ShapeError("strides and dilations need 5 values, pads 6")
        shape = convolved_shape(x, w[2:], data_format, strides, dilations, pads)
        shape[c] = w[0]
        return [(tuple(shape), dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        filter: np.ndarray,
        bias: np.ndarray | None,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        groups: int,
        data_format: str,
    ) -> np.ndarray:
        """Grouped 3-D convolution, ONNX Conv: im2col + batched matmul per
        group."""
        y = convolve(
            channels_first(x, data_format),
            filter,
            spatial_values(strides, data_format),
            spatial_values(dilations, data_format),
            pads,
            groups,
        )
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1, 1)
        return from_channels_first(y, data_format)


@irdl_op_definition
class Conv3DTransposeOp(GEOperation):
    """3-D transposed convolution (GE's Conv3DTranspose, ONNX ConvTranspose)
    with optional bias; the filter is [I, O / groups, kd, kh, kw].

    `strides` and `dilations` hold one value per axis of `data_format`
    (N and C are 1), `pads` six ([front, back, top, bottom, left, right],
    cropped from the full output), `output_padding` three (zeros added at
    the end of D, H and W).
    """

    name = "ge.conv3d_transpose"

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    strides = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    pads = attr_def(DenseArrayBase, default_value=ints(0, 0, 0, 0, 0, 0))
    dilations = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    groups = attr_def(IntegerAttr, default_value=integer(1))
    output_padding = attr_def(DenseArrayBase, default_value=ints(0, 0, 0))

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(conv3d_rule)
    REFRESH_RULE = staticmethod(conv3d_rule)

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def result_layout(
        operand_types: Sequence[TensorType], attrs: Mapping[str, Any]
    ) -> LayoutAttr | None:
        """The result means what x means: x's layout, never the filter's."""
        return kept_layout(operand_types[:1], 5)

    def verify_(self) -> None:
        data_format = verify_convolution_operands(self)
        check_output_padding(
            int_list_length(self, "output_padding", 3),
            data_format,
            self.value_of("strides"),
            self.value_of("dilations"),
        )
        verify_groups(self)

    def work(self) -> float:
        """Multiply-adds: each input element spreads over filter size / input
        channels outputs."""
        channels = shape_of(self.x.type)[self.value_of("data_format").index("C")]
        return element_count(self.x) * element_count(self.filter) / max(channels, 1)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """ONNX ConvTranspose output: per axis `stride * (size - 1) +
        output_padding + dilation * (k - 1) + 1 - pads`."""
        x = require_rank(shapes[0], 5, "input")
        w = require_rank(shapes[1], 5, "filter")
        data_format = volume_format(attrs)
        c = data_format.index("C")
        out_channels = transposed_channels(shapes, x[c], required(attrs, "groups"))
        if dtypes[0] != dtypes[1]:
            raise ShapeError(
                f"filter dtype {dtypes[1]} differs from input dtype {dtypes[0]}"
            )
        strides = list(attrs.get("strides", [1] * 5))
        dilations = list(attrs.get("dilations", [1] * 5))
        pads = list(attrs.get("pads", [0] * 6))
        output_padding = list(attrs.get("output_padding", [0] * 3))
        lengths = [len(strides), len(dilations), len(pads), len(output_padding)]
        if lengths != [5, 5, 6, 3]:
            raise ShapeError(
                "strides and dilations need 5 values, pads 6, output_padding 3"
            )
        shape = transposed_shape(
            x, w[2:], data_format, strides, dilations, pads, output_padding
        )
        shape[c] = out_channels
        return [(tuple(shape), dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        filter: np.ndarray,
        bias: np.ndarray | None,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        groups: int,
        data_format: str,
        output_padding: Sequence[int],
    ) -> np.ndarray:
        """Grouped 3-D transposed convolution, ONNX ConvTranspose: each
        input element times the filter per group (einsum), scattered into
        the full output one tap at a time, then the pads cropped."""
        y = transposed_convolve(
            channels_first(x, data_format),
            filter,
            spatial_values(strides, data_format),
            spatial_values(dilations, data_format),
            pads,
            output_padding,
            groups,
        )
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1, 1)
        return from_channels_first(y, data_format)


class Pool3DOp(GEOperation):
    """Base of the 3-D windowed pools; `REDUCTION` names how a window combines.

    `ksize`, `strides` and `dilations` hold one value per axis of
    `data_format` (N and C are 1), `pads` six: [front, back, top, bottom,
    left, right]; `ceil_mode` keeps a partial last window that does not
    start in the end pad.
    """

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    ksize = attr_def(DenseArrayBase)
    strides = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    pads = attr_def(DenseArrayBase, default_value=ints(0, 0, 0, 0, 0, 0))
    dilations = attr_def(DenseArrayBase, default_value=ints(1, 1, 1, 1, 1))
    ceil_mode = attr_def(IntegerAttr, default_value=boolean(False))

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(data_format_rule)

    REDUCTION: ClassVar[str]

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_volume_format(self)
        check_rank(self.x, 5, "input")
        check_rank(self.y, 5, "result")
        check_same_element_type(self)
        lengths = (("ksize", 5), ("strides", 5), ("pads", 6), ("dilations", 5))
        for name, count in lengths:
            values = int_list_length(self, name, count)
            if name != "pads" and min(values) < 1:
                raise VerifyException(f"'{name}' must be positive, got {values}")

    def work(self) -> float:
        """Elements visited: each output element reads its window."""
        return element_count(self.y) * int(np.prod(self.value_of("ksize")))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Window pooling over D, H and W; `ceil_mode` keeps a partial last
        window not in the end pad."""
        x = require_rank(shapes[0], 5, "input")
        data_format = volume_format(attrs)
        window = {
            "ksize": list(required(attrs, "ksize")),
            "strides": list(attrs.get("strides", [1] * 5)),
            "dilations": list(attrs.get("dilations", [1] * 5)),
            "pads": list(attrs.get("pads", [0] * 6)),
        }
        if [len(v) for v in window.values()] != [5, 5, 5, 6]:
            raise ShapeError("ksize, strides and dilations need 5 values, pads 6")
        if min(min(window[n]) for n in ("ksize", "strides", "dilations")) < 1:
            raise ShapeError("'ksize', 'strides' and 'dilations' must be positive")
        ceil_mode = bool(attrs.get("ceil_mode", False))
        shape = pooled_shape(x, data_format, **window, ceil_mode=ceil_mode)
        return [(shape, dtypes[0])]


@irdl_op_definition
class MaxPool3DOp(Pool3DOp):
    """3-D max pooling (GE's MaxPool3D); padding never wins, a NaN in a
    window makes it NaN."""

    name = "ge.max_pool3d"

    REDUCTION: ClassVar[str] = "max"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        data_format: str,
        ceil_mode: bool,
    ) -> np.ndarray:
        """Max pooling (ONNX MaxPool) over windows padded with the lowest value."""
        geometry = pool_geometry(
            x, data_format, ksize, strides, dilations, pads, ceil_mode
        )
        return max_pool(x, data_format, geometry, lowest(x.dtype))


@irdl_op_definition
class AvgPool3DOp(Pool3DOp):
    """3-D average pooling (GE's AvgPool3D); `count_include_pad` counts
    padded zeros."""

    name = "ge.avg_pool3d"

    count_include_pad = attr_def(IntegerAttr, default_value=boolean(False))

    REDUCTION: ClassVar[str] = "mean"

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        data_format: str,
        ceil_mode: bool,
        count_include_pad: bool,
    ) -> np.ndarray:
        """Average pooling (ONNX AveragePool): the divisor counts window taps
        inside the input, or inside the padded input with
        `count_include_pad`; ceil-mode overhang is never counted."""
        geometry = pool_geometry(
            x, data_format, ksize, strides, dilations, pads, ceil_mode
        )
        return avg_pool(x, data_format, geometry, count_include_pad)
