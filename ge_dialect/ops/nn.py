"""Neural-network ops with a `data_format`: convolutions, pooling,
normalisations and the per-channel bias add.

Their `data_format` makes them anchors of origin-format inference. Each class
holds its traits, shape function, format rule, reference kernel and, for the
per-channel elementwise ops (`ge.bias_add`, `ge.batch_norm`), its scalar
loop body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
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

from ge_dialect.attributes import LayoutAttr
from ge_dialect.format_rules import (
    bias_add_rule,
    conv_rule,
    data_format_rule,
    same_rank_rule,
)
from ge_dialect.layout import kept_layout, shape_of
from ge_dialect.numpy_helpers import (
    channel_axis,
    float32_compute,
    lowest,
    lp_norm,
    pad_array,
    per_channel,
    spatial_array_axes,
)
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_data_format,
    check_rank,
    check_same_element_type,
    element_count,
    int_list_length,
    integer,
    ints,
    real,
)
from ge_dialect.ops.elementwise import ElementwiseOp, float_only
from ge_dialect.ops.windows import (
    avg_pool,
    channels_first,
    check_output_padding,
    convolve,
    convolved_shape,
    from_channels_first,
    max_pool,
    pool_geometry,
    pool_windows,
    pooled_shape,
    spatial_values,
    transposed_convolve,
    transposed_shape,
)
from ge_dialect.scalar import ScalarBuilder
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    dims_match,
    four_values,
    require_rank,
    required,
    same_dtype,
    spatial_axes,
)
from ge_dialect.traits import KeepsLayout, MayRunInPlace


class SpatialOp(GEOperation):
    """Base of ops with a `data_format` on a rank-4 input `x`."""

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(data_format_rule)

    def verify_(self) -> None:
        check_data_format(self)
        check_rank(self.x, 4, "input")
        self.verify_spatial()

    def verify_spatial(self) -> None:
        """Op-specific checks."""


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------

FILTER_AXES = {"NCHW": (0, 1, 2, 3), "HWCN": (3, 2, 0, 1), "NHWC": (0, 3, 1, 2)}
"""Filter origin format -> positions of (O, I, kh, kw)."""


def filter_to_oihw(w: np.ndarray, filter_format: str) -> np.ndarray:
    """A conv2d filter in OIHW from its origin format (NCHW=OIHW, HWCN, NHWC=OHWI)."""
    if filter_format not in FILTER_AXES:
        raise ValueError(f"unsupported filter_format {filter_format!r}")
    return w.transpose(FILTER_AXES[filter_format])


CONV_DEFAULTS = {
    "strides": ints(1, 1, 1, 1),
    "pads": ints(0, 0, 0, 0),
    "dilations": ints(1, 1, 1, 1),
}


class ConvolutionOp(SpatialOp):
    """Base of the convolutions: input, filter, optional bias; strides, pads,
    dilations and groups; `data_format` names x's and y's layout (the anchor)."""

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    strides = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["strides"])
    pads = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["pads"])
    dilations = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["dilations"])
    groups = attr_def(IntegerAttr, default_value=integer(1))

    FORMAT_RULE = staticmethod(conv_rule)
    REFRESH_RULE = staticmethod(conv_rule)

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def result_layout(
        operand_types: Sequence[TensorType], attrs: Mapping[str, Any]
    ) -> LayoutAttr | None:
        """The result means what x means: x's layout, never the filter's."""
        return kept_layout(operand_types[:1], 4)

    def verify_window(self) -> None:
        """4 strides, pads and dilations, strides and dilations positive;
        groups positive and dividing the input channels."""
        check_rank(self.filter, 4, "filter")
        for name in ("strides", "pads", "dilations"):
            values = int_list_length(self, name, 4)
            if name != "pads" and min(values) < 1:
                raise VerifyException(f"'{name}' must be positive, got {values}")
        verify_groups(self)


EIGHT_BIT_INTEGERS = ("int8", "uint8")
"""The dtypes of GE's int8 convolution inputs (its result is int32)."""


def conv_result_dtype(dtypes: Sequence[str]) -> str:
    """A convolution's result dtype: its input's, or int32 for 8-bit integer
    input and filter (of either signedness, as GE's int8 Conv2D and ONNX's
    ConvInteger take them) whose bias, if any, is int32."""
    if dtypes[0] in EIGHT_BIT_INTEGERS and dtypes[1] in EIGHT_BIT_INTEGERS:
        if len(dtypes) > 2 and dtypes[2] != "int32":
            raise ShapeError(
                f"an 8-bit integer convolution's bias is int32, got {dtypes[2]}"
            )
        return "int32"
    if dtypes[0] != dtypes[1]:
        raise ShapeError(
            f"filter dtype {dtypes[1]} differs from input dtype {dtypes[0]}"
        )
    return dtypes[0]


def check_convolution_channels(
    shapes: Sequence[Shape],
    channels: int,
    out_channels: int,
    in_channels: int,
    groups: int,
) -> None:
    """A convolution's channels agree (ShapeError otherwise): `groups`
    positive and dividing the `out_channels` filters, the input's `channels`
    `in_channels * groups`, the bias (`shapes[2]`, if given) one per filter."""
    if groups < 1:
        raise ShapeError(f"groups must be positive, got {groups}")
    expected = UNKNOWN if in_channels == UNKNOWN else in_channels * groups
    if not dims_match(channels, expected):
        raise ShapeError(
            f"input has {channels} channels, filter expects {expected} "
            f"(groups = {groups})"
        )
    if out_channels != UNKNOWN and out_channels % groups:
        raise ShapeError(f"{out_channels} filters are not divisible by groups {groups}")
    if len(shapes) > 2:
        bias = require_rank(shapes[2], 1, "bias")
        if not dims_match(bias[0], out_channels):
            raise ShapeError(f"bias has {bias[0]} entries for {out_channels} filters")


def transposed_channels(shapes: Sequence[Shape], channels: int, groups: int) -> int:
    """The output channels of a transposed convolution whose filter
    (`shapes[1]`) is [C, O / groups, *kernel], once its channels agree
    (ShapeError otherwise): `groups` positive, the input's `channels` C,
    the bias (`shapes[2]`, if given) one per output channel."""
    w = shapes[1]
    if groups < 1:
        raise ShapeError(f"groups must be positive, got {groups}")
    if not dims_match(channels, w[0]):
        raise ShapeError(f"input has {channels} channels, filter expects {w[0]}")
    out_channels = UNKNOWN if w[1] == UNKNOWN else w[1] * groups
    if len(shapes) > 2:
        bias = require_rank(shapes[2], 1, "bias")
        if not dims_match(bias[0], out_channels):
            raise ShapeError(f"bias has {bias[0]} entries for {out_channels} channels")
    return out_channels


def verify_groups(op: GEOperation) -> None:
    """`groups` is positive and divides the input channels (when known)."""
    groups = op.value_of("groups")
    channels = shape_of(op.x.type)[op.value_of("data_format").index("C")]
    if groups < 1 or (channels > 0 and channels % groups):
        raise VerifyException(
            f"groups {groups} must divide the {channels} input channels"
        )


@irdl_op_definition
class Conv2DOp(ConvolutionOp):
    """2-D convolution (cross-correlation) with optional bias.

    The filter is OIHW, HWIO or OHWI as its origin format (NCHW, HWCN, NHWC)
    says; an unannotated (ND) filter is OIHW. 8-bit integer input and filter
    give an int32 result (GE's int8 Conv2D), summed exactly in int32.
    """

    name = "ge.conv2d"

    def verify_spatial(self) -> None:
        check_rank(self.y, 4, "result")
        self.verify_window()
        if self.bias is not None:
            check_rank(self.bias, 1, "bias")

    def work(self) -> float:
        """Multiply-adds: each output element takes filter size / output channels."""
        channels = shape_of(self.y.type)[self.value_of("data_format").index("C")]
        return element_count(self.y) * element_count(self.filter) / max(channels, 1)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Output from strides, pads [t, b, l, r], dilations and groups; the
        filter layout is `filter_format` (NCHW, HWCN or NHWC)."""
        x = require_rank(shapes[0], 4, "input")
        w = require_rank(shapes[1], 4, "filter")
        data_format, c, _, _ = spatial_axes(attrs)
        filter_format = attrs.get("filter_format", "NCHW")
        if filter_format not in FILTER_AXES:
            raise ShapeError(
                f"filter format must be NCHW, HWCN or NHWC, got {filter_format}"
            )
        o_axis, i_axis, kh_axis, kw_axis = FILTER_AXES[filter_format]
        out_channels, in_channels = w[o_axis], w[i_axis]
        check_convolution_channels(
            shapes, x[c], out_channels, in_channels, required(attrs, "groups")
        )
        result_dtype = conv_result_dtype(dtypes)
        strides, dilations, pads = (
            four_values(attrs, n) for n in ("strides", "dilations", "pads")
        )
        shape = convolved_shape(
            x, (w[kh_axis], w[kw_axis]), data_format, strides, dilations, pads
        )
        shape[c] = out_channels
        return [(tuple(shape), result_dtype)]

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
        filter_format: str = "NCHW",
    ) -> np.ndarray:
        """2-D (grouped) convolution, ONNX Conv; im2col + batched matmul per
        group. `filter_format` is the filter's origin format (ND: NCHW).
        Integer operands multiply and add in int32 (8-bit ones widened)."""
        w = filter_to_oihw(filter, filter_format)
        if x.dtype.kind in "iu":
            x, w = x.astype(np.int32), w.astype(np.int32)
        y = convolve(
            channels_first(x, data_format),
            w,
            spatial_values(strides, data_format),
            spatial_values(dilations, data_format),
            pads,
            groups,
        )
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1)
        return from_channels_first(y, data_format)


@irdl_op_definition
class Conv2DTransposeOp(ConvolutionOp):
    """2-D transposed convolution (ONNX ConvTranspose), filter [Cin, Cout/g, kh, kw]."""

    name = "ge.conv2d_transpose"

    output_padding = attr_def(DenseArrayBase, default_value=ints(0, 0))

    def verify_spatial(self) -> None:
        self.verify_window()
        check_output_padding(
            int_list_length(self, "output_padding", 2),
            self.value_of("data_format"),
            self.value_of("strides"),
            self.value_of("dilations"),
        )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """ONNX ConvTranspose output; the filter is [Cin, Cout / groups, kh, kw]."""
        x = require_rank(shapes[0], 4, "input")
        w = require_rank(shapes[1], 4, "filter")
        data_format, c, _, _ = spatial_axes(attrs)
        out_channels = transposed_channels(shapes, x[c], required(attrs, "groups"))
        strides, dilations, pads = (
            four_values(attrs, n) for n in ("strides", "dilations", "pads")
        )
        shape = transposed_shape(
            x,
            w[2:],
            data_format,
            strides,
            dilations,
            pads,
            list(required(attrs, "output_padding")),
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
        """Transposed convolution, ONNX ConvTranspose; filter [Cin, Cout/g, kh, kw].

        Matmul to per-tap columns, then col2im scatter-add (one slice per tap).
        """
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
            y = y + bias.reshape(1, -1, 1, 1)
        return from_channels_first(y, data_format)


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


class PoolOp(SpatialOp):
    """Base of windowed pooling ops; `REDUCTION` names how a window combines.

    A window has `ksize` taps `dilations` apart along H and W; `ceil_mode`
    keeps a partial last window that does not start in the end pad.
    """

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    ksize = attr_def(DenseArrayBase)
    strides = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["strides"])
    pads = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["pads"])
    dilations = attr_def(DenseArrayBase, default_value=CONV_DEFAULTS["dilations"])
    ceil_mode = attr_def(IntegerAttr, default_value=boolean(False))

    REDUCTION: ClassVar[str]

    assembly_format = UNARY_FORMAT

    def verify_spatial(self) -> None:
        check_same_element_type(self)
        self.verify_window()

    def verify_window(self) -> None:
        """4 ksize, strides, pads and dilations; all but pads positive."""
        for name in ("ksize", "strides", "pads", "dilations"):
            int_list_length(self, name, 4)
        if min(self.value_of("ksize")) < 1 or min(self.value_of("strides")) < 1:
            raise VerifyException("'ksize' and 'strides' must be positive")
        if min(self.value_of("dilations")) < 1:
            raise VerifyException("'dilations' must be positive")

    def work(self) -> float:
        """Elements visited: each output element reads its window."""
        ksize = self.value_of("ksize")
        return element_count(self.y) * int(np.prod(ksize))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Window pooling; `ceil_mode` keeps a partial last window not in the
        end pad."""
        x = require_rank(shapes[0], 4, "input")
        data_format, _, h, wi = spatial_axes(attrs)
        ksize, strides, pads, dilations = (
            four_values(attrs, n) for n in ("ksize", "strides", "pads", "dilations")
        )
        for axis in (h, wi):
            if min(ksize[axis], strides[axis], dilations[axis]) < 1:
                raise ShapeError("'ksize', 'strides' and 'dilations' must be positive")
        ceil_mode = bool(attrs.get("ceil_mode", False))
        shape = pooled_shape(x, data_format, ksize, strides, dilations, pads, ceil_mode)
        return [(shape, dtypes[0])]


@irdl_op_definition
class MaxPoolOp(PoolOp):
    """Max pooling over `ksize` windows (padding never wins)."""

    name = "ge.max_pool"

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
        """Max pooling (ONNX MaxPool); padding never wins the max."""
        geo = pool_geometry(x, data_format, ksize, strides, dilations, pads, ceil_mode)
        return max_pool(x, data_format, geo, lowest(x.dtype))


@irdl_op_definition
class MaxPoolWithArgmaxOp(PoolOp):
    """Max pooling that also gives where each maximum is (ONNX MaxPool's
    Indices output, GE's MaxPoolWithArgmax): `argmax` holds its position in
    the flattened NCHW input, `n*C*H*W + c*H*W + h*W + w`, or with
    `storage_order` 1 (column major) `... + w*H + h`. The first maximum in
    window order wins; padding never does (an all -inf window gives its
    first input element)."""

    name = "ge.max_pool_with_argmax"

    y = result_def(TensorType)  # redeclared: results are (y, argmax)
    argmax = result_def(TensorType)
    storage_order = attr_def(IntegerAttr, default_value=integer(0))

    REDUCTION: ClassVar[str] = "max"

    assembly_format = "$x attr-dict `:` type($x) `->` type($y) `,` type($argmax)"

    def verify_spatial(self) -> None:
        if self.x.type.element_type != self.y.type.element_type:
            raise VerifyException("the pooled values must have the input's dtype")
        if self.argmax.type.element_type != IntegerType(64):
            raise VerifyException("argmax must be int64")
        if self.value_of("data_format") != "NCHW":
            raise VerifyException("argmax positions are defined on NCHW input only")
        if self.value_of("storage_order") not in (0, 1):
            raise VerifyException("storage_order must be 0 or 1")
        self.verify_window()

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The pooled shape twice: values in x's dtype, positions in int64."""
        ((shape, dtype),) = PoolOp.shape_function(shapes, dtypes, attrs)
        if attrs.get("data_format") != "NCHW":
            raise ShapeError("argmax positions are defined on NCHW input only")
        if attrs.get("storage_order", 0) not in (0, 1):
            raise ShapeError("storage_order must be 0 or 1")
        return [(shape, dtype), (shape, "int64")]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        data_format: str,
        ceil_mode: bool,
        storage_order: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Windows of x and of its flat positions (-1 in the padding); the
        first valid maximum of each."""
        n, c, h, w = x.shape
        geo = pool_geometry(x, data_format, ksize, strides, dilations, pads, ceil_mode)
        positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)
        if storage_order:
            plane = np.arange(n * c, dtype=np.int64)[:, None, None] * h * w
            columns = np.arange(h)[:, None] + np.arange(w)[None, :] * h
            positions = (plane + columns).reshape(x.shape)
        values = pool_windows(x, data_format, geo, lowest(x.dtype))
        where = pool_windows(positions, data_format, geo, -1)
        flat_values = values.reshape(*values.shape[:4], -1)
        flat_where = where.reshape(flat_values.shape)
        valid = flat_where >= 0
        best = np.where(valid, flat_values, lowest(x.dtype))
        first = np.argmax(best, axis=-1)
        peak = np.take_along_axis(best, first[..., None], axis=-1)[..., 0]
        first = np.where(peak == lowest(x.dtype), np.argmax(valid, axis=-1), first)
        y = np.take_along_axis(flat_values, first[..., None], axis=-1)[..., 0]
        argmax = np.take_along_axis(flat_where, first[..., None], axis=-1)[..., 0]
        return (
            from_channels_first(y, data_format),
            from_channels_first(argmax, data_format),
        )


@irdl_op_definition
class AvgPoolOp(PoolOp):
    """Average pooling; `count_include_pad` counts padded zeros."""

    name = "ge.avg_pool"

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
        """Average pooling (ONNX AveragePool).

        The divisor counts window taps inside the input, or inside the
        padded input with `count_include_pad`; ceil-mode overhang is never
        counted.
        """
        geo = pool_geometry(x, data_format, ksize, strides, dilations, pads, ceil_mode)
        return avg_pool(x, data_format, geo, count_include_pad)


def check_p(op: GEOperation) -> None:
    """`p` must be positive (the norm's order)."""
    if not op.value_of("p") > 0:
        raise VerifyException(f"'p' must be positive, got {op.value_of('p')}")


@irdl_op_definition
class LpPoolOp(PoolOp):
    """Lp pooling: `(sum |x|^p) ^ (1/p)` over each window (ONNX LpPool);
    padding adds nothing."""

    name = "ge.lp_pool"

    p = attr_def(FloatAttr, default_value=real(2.0))

    REDUCTION: ClassVar[str] = "lp"

    def verify_spatial(self) -> None:
        super().verify_spatial()
        check_p(self)

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
        p: float,
    ) -> np.ndarray:
        """Lp pooling over zero-padded windows."""
        geo = pool_geometry(x, data_format, ksize, strides, dilations, pads, ceil_mode)
        win = pool_windows(x, data_format, geo, 0.0)
        return from_channels_first(lp_norm(win, p, (-2, -1))[..., 0, 0], data_format)


@irdl_op_definition
class MaxUnpoolOp(GEOperation):
    """The inverse of max pooling with positions (ONNX MaxUnpool): zeros of
    `output_shape`, with each element of `x` written at its flat position
    in `indices` (as `ge.max_pool_with_argmax` gives them; the last of
    repeated positions wins).

    ```mlir
    %y = ge.max_unpool %x, %i {output_shape = array<i64: 1, 1, 4, 4>}
        : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
    """

    name = "ge.max_unpool"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    output_shape = attr_def(DenseArrayBase)

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if self.x.type.element_type != self.y.type.element_type:
            raise VerifyException("the result must have the input's dtype")
        if not isinstance(self.indices.type.element_type, IntegerType):
            raise VerifyException("indices must be integers")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y has `output_shape`: x's batch and channels, and at least as many
        elements as x (every position must exist)."""
        x, indices = shapes
        shape = tuple(required(attrs, "output_shape"))
        if len(x) != len(indices) or not all(
            dims_match(a, b) for a, b in zip(x, indices, strict=True)
        ):
            raise ShapeError(f"indices {list(indices)} must have x's shape {list(x)}")
        if len(shape) != len(x) or not all(
            dims_match(a, b) for a, b in zip(shape[:2], x[:2], strict=True)
        ):
            raise ShapeError(
                f"output_shape {list(shape)} must keep x's batch and channels {list(x)}"
            )
        return [(shape, dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, indices: np.ndarray, *, output_shape: Sequence[int]
    ) -> np.ndarray:
        """Scatter into zeros; a position outside the result is an error."""
        y = np.zeros(int(np.prod(output_shape)), x.dtype)
        flat = indices.reshape(-1).astype(np.int64)
        if flat.size and (flat.min() < 0 or flat.max() >= y.size):
            raise ValueError(
                f"indices must be in [0, {y.size}), got [{flat.min()}, {flat.max()}]"
            )
        y[flat] = x.reshape(-1)
        return y.reshape(tuple(output_shape))


class GlobalPoolOp(SpatialOp):
    """Base of pools over all of H and W (result keeps H = W = 1)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)

    REDUCTION: ClassVar[str]

    assembly_format = UNARY_FORMAT

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """H and W become 1."""
        x = require_rank(shapes[0], 4, "input")
        _, _, h, wi = spatial_axes(attrs)
        shape = list(x)
        shape[h] = shape[wi] = 1
        return [(tuple(shape), dtypes[0])]


@irdl_op_definition
class GlobalAvgPoolOp(GlobalPoolOp):
    """Mean over H and W."""

    name = "ge.global_avg_pool"

    REDUCTION: ClassVar[str] = "mean"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, data_format: str) -> np.ndarray:
        return x.mean(axis=spatial_array_axes(data_format, x.ndim), keepdims=True)


@irdl_op_definition
class GlobalMaxPoolOp(GlobalPoolOp):
    """Max over H and W."""

    name = "ge.global_max_pool"

    REDUCTION: ClassVar[str] = "max"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, data_format: str) -> np.ndarray:
        return x.max(axis=spatial_array_axes(data_format, x.ndim), keepdims=True)


@irdl_op_definition
class GlobalLpPoolOp(GlobalPoolOp):
    """`(sum |x|^p) ^ (1/p)` over H and W (ONNX GlobalLpPool)."""

    name = "ge.global_lp_pool"

    p = attr_def(FloatAttr, default_value=real(2.0))

    REDUCTION: ClassVar[str] = "lp"

    def verify_spatial(self) -> None:
        check_p(self)

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, data_format: str, p: float) -> np.ndarray:
        return lp_norm(x, p, spatial_array_axes(data_format, x.ndim))


# ---------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------


def check_per_channel(
    shapes: Sequence[Shape], names: Sequence[str], channels: int
) -> None:
    """Each of `shapes` is a rank-1 vector of `channels` entries."""
    for shape, name in zip(shapes, names, strict=False):
        param = require_rank(shape, 1, name)
        if not dims_match(param[0], channels):
            raise ShapeError(f"{name} has {param[0]} entries for {channels} channels")


class PerChannelOp(ElementwiseOp):
    """Elementwise ops whose operands after `x` are [C] vectors on the channel
    axis of `data_format`."""

    traits = traits_def(MayRunInPlace())
    FORMAT_RULE = staticmethod(data_format_rule)

    def channel_axis(self) -> int:
        """The channel axis of `x` (as the reference kernels read it)."""
        rank = len(shape_of(self.operands[0].type))
        data_format = self.value_of("data_format")
        if rank == 4:
            return data_format.index("C")
        return rank - 1 if data_format == "NHWC" else min(1, rank - 1)

    def operand_axes(self, position: int) -> tuple[int | None, ...]:
        if position == 0:
            return tuple(range(len(shape_of(self.operands[0].type))))
        return (self.channel_axis(),)


@irdl_op_definition
class BatchNormOp(PerChannelOp):
    """Inference batch norm: (x - mean) / sqrt(variance + epsilon) * scale + offset."""

    name = "ge.batch_norm"

    x = operand_def(TensorType)
    scale = operand_def(TensorType)
    offset = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    epsilon = attr_def(FloatAttr, default_value=real(1e-5))

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_data_format(self)
        check_rank(self.x, 4, "input")
        channels = shape_of(self.x.type)[self.value_of("data_format").index("C")]
        for name in ("scale", "offset", "mean", "variance"):
            param = check_rank(getattr(self, name), 1, name)
            if channels > 0 and shape_of(param)[0] not in (channels, -1):
                raise VerifyException(
                    f"{name} has {shape_of(param)[0]} entries for {channels} channels"
                )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape; scale/offset/mean/variance have one entry per channel."""
        x = require_rank(shapes[0], 4, "input")
        _, c, _, _ = spatial_axes(attrs)
        check_per_channel(shapes[1:], ("scale", "offset", "mean", "variance"), x[c])
        return [(x, dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        scale: np.ndarray,
        offset: np.ndarray,
        mean: np.ndarray,
        variance: np.ndarray,
        *,
        epsilon: float,
        data_format: str,
    ) -> np.ndarray:
        """Inference batch normalisation (ONNX BatchNormalization)."""
        a = scale / np.sqrt(variance + epsilon)
        b = offset - mean * a
        nd = x.ndim
        return x * per_channel(a, data_format, nd) + per_channel(b, data_format, nd)

    @float_only
    def scalar(
        self,
        b: ScalarBuilder,
        x: Any,
        scale: Any,
        offset: Any,
        mean: Any,
        variance: Any,
    ) -> Any:
        """`x * a + (offset - mean * a)`, `a = scale / sqrt(variance + epsilon)`,
        as the reference kernel computes it."""
        epsilon = b.const(self.value_of("epsilon"), x.type)
        a = b.op(
            arith.DivfOp,
            scale,
            b.op(math.SqrtOp, b.op(arith.AddfOp, variance, epsilon)),
        )
        shift = b.op(arith.SubfOp, offset, b.op(arith.MulfOp, mean, a))
        return b.op(arith.AddfOp, b.op(arith.MulfOp, x, a), shift)


@irdl_op_definition
class BiasAddOp(PerChannelOp):
    """Adds a rank-1 `bias` on the channel axis of `x`."""

    name = "ge.bias_add"

    x = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)

    FORMAT_RULE = staticmethod(bias_add_rule)
    REFRESH_RULE = staticmethod(bias_add_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_data_format(self)
        check_rank(self.bias, 1, "bias")
        shape = shape_of(self.x.type)
        if not shape:
            raise VerifyException("input must have rank >= 1")
        channels = shape[self.channel_axis()]
        bias_size = shape_of(self.bias.type)[0]
        if -1 not in (channels, bias_size) and channels != bias_size:
            raise VerifyException(
                f"bias has {bias_size} entries for {channels} channels"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape; the bias has one entry per channel of x."""
        x, bias = shapes[0], require_rank(shapes[1], 1, "bias")
        data_format = required(attrs, "data_format")
        if not x:
            raise ShapeError("input must have rank >= 1")
        if len(x) == 4:
            channels = x[spatial_axes(attrs)[1]]
        else:
            channels = x[-1] if data_format == "NHWC" else x[min(1, len(x) - 1)]
        if not dims_match(bias[0], channels):
            raise ShapeError(f"bias has {bias[0]} entries for {channels} channels")
        return [(x, same_dtype(dtypes))]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray, bias: np.ndarray, *, data_format: str
    ) -> np.ndarray:
        """Add a [C] bias on the channel axis."""
        return x + per_channel(bias, data_format, x.ndim)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any, bias: Any) -> Any:
        return b.op(arith.AddfOp, x, bias)


@irdl_op_definition
class InstanceNormOp(SpatialOp):
    """Instance normalisation over H and W per sample and channel."""

    name = "ge.instance_norm"

    x = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    epsilon = attr_def(FloatAttr, default_value=real(1e-5))

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape; gamma/beta have one entry per channel."""
        x = require_rank(shapes[0], 4, "input")
        _, c, _, _ = spatial_axes(attrs)
        check_per_channel(shapes[1:], ("gamma", "beta"), x[c])
        return [(x, dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        gamma: np.ndarray,
        beta: np.ndarray,
        *,
        epsilon: float,
        data_format: str,
    ) -> np.ndarray:
        """Instance normalisation over the spatial axes (ONNX InstanceNormalization)."""
        spatial = spatial_array_axes(data_format, x.ndim)
        mu = x.mean(axis=spatial, keepdims=True)
        var = x.var(axis=spatial, keepdims=True)
        g = per_channel(gamma, data_format, x.ndim)
        return (x - mu) / np.sqrt(var + epsilon) * g + per_channel(
            beta, data_format, x.ndim
        )


@irdl_op_definition
class LRNOp(SpatialOp):
    """Local response normalisation across channels (ONNX LRN semantics)."""

    name = "ge.lrn"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    size = attr_def(IntegerAttr)
    alpha = attr_def(FloatAttr, default_value=real(1e-4))
    beta = attr_def(FloatAttr, default_value=real(0.75))
    bias = attr_def(FloatAttr, default_value=real(1.0))

    assembly_format = UNARY_FORMAT

    def verify_spatial(self) -> None:
        if self.value_of("size") < 1:
            raise VerifyException("'size' must be positive")

    def work(self) -> float:
        """Each output element sums `size` squares."""
        return element_count(self.y) * self.value_of("size")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape and dtype as the input."""
        return [(shapes[0], dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        *,
        size: int,
        alpha: float,
        beta: float,
        bias: float,
        data_format: str,
    ) -> np.ndarray:
        """Local response normalisation across channels (ONNX LRN formula)."""
        c = channel_axis(data_format, x.ndim)
        sq = np.moveaxis(x * x, c, -1)
        lo = (size - 1) // 2
        sq = pad_array(sq, [(0, 0)] * (x.ndim - 1) + [(lo, size - 1 - lo)])
        ssum = np.moveaxis(sliding_window_view(sq, size, axis=-1).sum(axis=-1), -1, c)
        return x / (bias + (alpha / size) * ssum) ** beta
