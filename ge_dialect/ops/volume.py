"""3-D convolution: GE's `Conv3D`, on NCDHW or NDHWC volumes (video,
medical imaging).

Its activations are stored in NDC1HWC0 (GE's 3-D 5HD: [N, D, C1, H, W, C0])
and its filter in FRACTAL_Z_3D ([D * C1 * H * W, N1, N0, C0]), as GE's
Conv3D kernel reads them; the op class holds its shape function, format
rule, reference kernel and work count like the 2-D convolutions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
from ge_dialect.format_rules import FormatView
from ge_dialect.formats import Format
from ge_dialect.layout import kept_layout, shape_of
from ge_dialect.numpy_helpers import float32_compute
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    check_rank,
    element_count,
    int_list_length,
    integer,
    ints,
)
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    dims_match,
    require_rank,
    required,
    window_size,
)
from ge_dialect.traits import KeepsLayout

VOLUME_FORMATS = ("NCDHW", "NDHWC")
"""The data formats of a 3-D convolution's input and result."""


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
        data_format = self.value_of("data_format")
        if data_format not in VOLUME_FORMATS:
            raise VerifyException(
                f"data_format must be one of {', '.join(VOLUME_FORMATS)}, "
                f"got '{data_format}'"
            )
        check_rank(self.x, 5, "input")
        check_rank(self.filter, 5, "filter")
        check_rank(self.y, 5, "result")
        if self.bias is not None:
            check_rank(self.bias, 1, "bias")
        for name, count in (("strides", 5), ("pads", 6), ("dilations", 5)):
            values = int_list_length(self, name, count)
            if name != "pads" and min(values) < 1:
                raise VerifyException(f"'{name}' must be positive, got {values}")
        groups = self.value_of("groups")
        channels = shape_of(self.x.type)[data_format.index("C")]
        if groups < 1 or (channels > 0 and channels % groups):
            raise VerifyException(
                f"groups {groups} must divide the {channels} input channels"
            )

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
        data_format = required(attrs, "data_format")
        if data_format not in VOLUME_FORMATS:
            raise ShapeError(f"data_format must be NCDHW or NDHWC, got {data_format}")
        c = data_format.index("C")
        groups = required(attrs, "groups")
        if groups < 1:
            raise ShapeError(f"groups must be positive, got {groups}")
        out_channels, in_channels = w[0], w[1]
        expected = UNKNOWN if in_channels == UNKNOWN else in_channels * groups
        if not dims_match(x[c], expected):
            raise ShapeError(
                f"input has {x[c]} channels, filter expects {expected} "
                f"(groups = {groups})"
            )
        if out_channels != UNKNOWN and out_channels % groups:
            raise ShapeError(
                f"{out_channels} filters are not divisible by groups {groups}"
            )
        if len(shapes) > 2:
            bias = require_rank(shapes[2], 1, "bias")
            if not dims_match(bias[0], out_channels):
                raise ShapeError(
                    f"bias has {bias[0]} entries for {out_channels} filters"
                )
        if dtypes[0] != dtypes[1]:
            raise ShapeError(
                f"filter dtype {dtypes[1]} differs from input dtype {dtypes[0]}"
            )
        strides = list(attrs.get("strides", [1] * 5))
        dilations = list(attrs.get("dilations", [1] * 5))
        pads = list(attrs.get("pads", [0] * 6))
        if len(strides) != 5 or len(dilations) != 5 or len(pads) != 6:
            raise ShapeError("strides and dilations need 5 values, pads 6")
        shape = list(x)
        shape[c] = out_channels
        for k, letter in enumerate("DHW"):
            axis = data_format.index(letter)
            shape[axis] = window_size(
                x[axis], w[2 + k], strides[axis], dilations[axis],
                (pads[2 * k], pads[2 * k + 1]),
            )  # fmt: skip
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
        """Grouped 3-D convolution, ONNX Conv: windows + einsum per group."""
        order = [data_format.index(a) for a in "NCDHW"]
        v = x.transpose(order)
        n, channels = v.shape[:2]
        cout, cg = filter.shape[:2]
        if channels != cg * groups:
            raise ValueError(
                f"input has {channels} channels, filter expects {cg * groups} "
                f"(groups={groups})"
            )
        spatial = [(pads[2 * k], pads[2 * k + 1]) for k in range(3)]
        v = np.pad(v, [(0, 0), (0, 0), *spatial])
        steps = [strides[data_format.index(a)] for a in "DHW"]
        gaps = [dilations[data_format.index(a)] for a in "DHW"]
        spans = [(k - 1) * g + 1 for k, g in zip(filter.shape[2:], gaps, strict=True)]
        win = np.lib.stride_tricks.sliding_window_view(v, spans, axis=(2, 3, 4))
        win = win[
            :, :, :: steps[0], :: steps[1], :: steps[2],
            :: gaps[0], :: gaps[1], :: gaps[2],
        ]  # fmt: skip
        od, oh, ow = win.shape[2:5]
        win = win.reshape(n, groups, cg, od, oh, ow, *filter.shape[2:])
        w = filter.reshape(groups, cout // groups, cg, *filter.shape[2:])
        y = np.einsum("ngcdhwijk,gocijk->ngodhw", win, w, optimize=True)
        y = y.reshape(n, cout, od, oh, ow)
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1, 1)
        return y.transpose(np.argsort(order)).astype(x.dtype, copy=False)
