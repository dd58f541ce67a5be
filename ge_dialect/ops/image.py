"""Resampling: `ge.resize` (ONNX Resize, Upsample; GE's ResizeNearestNeighborV2,
ResizeBilinearV2 and their cubic/N-D generalisation), `ge.grid_sample`
(ONNX GridSample, GE's GridSampler2D/3D) and `ge.roi_align` (ONNX RoiAlign,
GE's ROIAlign).

ONNX's interpolation is separable: along each axis every output index reads
a few input indices with fixed weights (`interpolation_taps`: one for
nearest, two for linear, four for cubic, more with antialiasing when
downscaling), so every mode and coordinate transformation ONNX defines is
one formula applied axis by axis. Coordinates are computed in
float32, as onnxruntime does, so nearest rounding and output sizes agree
with it at ties.

```mlir
%y = ge.resize %x {sizes = array<i64: 1, 3, 16, 16>,
                   scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear"}
    : tensor<1x3x8x8xf32> -> tensor<1x3x16x16xf32>
```

`sizes` is the output shape (-1: the input's dim, which must have scale 1)
and `scales` the per-axis scale the coordinate transformation divides by
(they differ when ONNX gives scales whose product with the input size is
not an integer); `roi` (`tf_crop_and_resize`) has the starts of every
axis, then the ends.
"""

from __future__ import annotations

import itertools
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
    f32,
)
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

from ge_dialect.attributes import LayoutAttr
from ge_dialect.format_rules import same_rank_rule, stop_rule
from ge_dialect.formats import Format
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import float32_compute
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_same_element_type,
    element_count,
    integer,
    real,
    split_channel_axis,
    string,
)
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    UnknownDims,
    dims_match,
    parameter_axes,
    parameter_ints,
    required,
)
from ge_dialect.traits import KeepsLayout

RESIZE_MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
"""`simple`: opset 10's rule (floor when upsampling, ceil when downsampling)."""


def source_coordinates(
    transform: str,
    out_len: int,
    in_len: int,
    scale: float,
    roi: tuple[float, float] = (0.0, 1.0),
    resized_length: float | None = None,
) -> np.ndarray:
    """The input coordinate each output index maps to, along one axis
    (float32); `align_corners` divides by `resized_length` minus one (the
    output length when None)."""
    f = np.float32
    x = np.arange(out_len, dtype=f)
    scale_f, length, out_f = f(scale), f(in_len), f(out_len)
    half, one = f(0.5), f(1)
    if transform == "half_pixel":
        return (x + half) / scale_f - half
    if transform == "half_pixel_symmetric":
        adjustment = out_f / (scale_f * length)
        offset = length / f(2) * (one - adjustment)
        return offset + (x + half) / scale_f - half
    if transform == "pytorch_half_pixel":
        if out_len > 1:
            return (x + half) / scale_f - half
        return np.zeros_like(x)
    if transform == "align_corners":
        if out_len > 1:
            resized = out_f if resized_length is None else f(resized_length)
            return x * (length - one) / (resized - one)
        return np.zeros_like(x)
    if transform == "asymmetric":
        return x / scale_f
    if transform == "tf_half_pixel_for_nn":
        return (x + half) / scale_f
    assert transform == "tf_crop_and_resize"
    start, end = f(roi[0]), f(roi[1])
    if out_len > 1:
        return start * (length - one) + x * (end - start) * (length - one) / (
            out_f - one
        )
    return np.full_like(x, f(0.5) * (start + end) * (length - one))


def nearest_indices(coords: np.ndarray, rule: str, downscale: bool) -> np.ndarray:
    """The input index each coordinate takes in nearest mode."""
    if rule == "simple":
        rule = "ceil" if downscale else "floor"
    if rule == "round_prefer_floor":
        floor = np.floor(coords)
        return np.where(coords - floor == 0.5, floor, np.round(coords))
    if rule == "round_prefer_ceil":
        return np.floor(coords + np.float32(0.5))
    return np.floor(coords) if rule == "floor" else np.ceil(coords)


def cubic_weight(t: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel with coefficient `a`."""
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def interpolation_taps(
    in_len: int,
    out_len: int,
    scale: float,
    *,
    mode: str,
    coordinate_transformation_mode: str,
    nearest_mode: str,
    cubic_coeff_a: float,
    exclude_outside: bool,
    antialias: bool,
    roi: tuple[float, float] = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One axis as taps: the input indices and weights ([out, taps]) each
    output index reads, and the outputs whose coordinate falls outside the
    input (`tf_crop_and_resize`; else None). Taps with weight 0 for every
    output are dropped, so an axis that maps onto itself reads each element
    once with weight 1 (infinities stay infinite)."""
    # Interpolating modes take the resized length as scale * length, as
    # ONNX's reference and conformance data do (onnxruntime takes the output
    # length; they differ when scale * length is fractional); nearest takes
    # the output length, as both agree on for it.
    resized = None if mode == "nearest" else scale * in_len
    coords = source_coordinates(
        coordinate_transformation_mode, out_len, in_len, scale, roi, resized
    ).astype(np.float64)
    last = max(in_len - 1, 0)
    if mode == "nearest":
        index = nearest_indices(coords, nearest_mode, scale < 1)
        indices = np.clip(index, 0, last).astype(np.int64)[:, None]
        weights = np.ones((out_len, 1))
    else:
        stretch = min(scale, 1.0) if antialias else 1.0
        radius = (1.0 if mode == "linear" else 2.0) / stretch
        taps = (
            np.floor(coords - radius)[:, None]
            + 1
            + np.arange(int(2 * math.ceil(radius)) + 1)
        )
        distance = (taps - coords[:, None]) * stretch
        if mode == "linear":
            weights = np.clip(1 - np.abs(distance), 0, None)
        else:
            weights = cubic_weight(distance, cubic_coeff_a)
        if exclude_outside:
            weights = np.where((taps >= 0) & (taps <= last), weights, 0.0)
        if antialias or exclude_outside:
            weights = weights / weights.sum(axis=1, keepdims=True)
        indices = np.clip(taps, 0, last).astype(np.int64)
        used = np.any(weights != 0, axis=0)
        indices, weights = indices[:, used], weights[:, used]
    outside = None
    if coordinate_transformation_mode == "tf_crop_and_resize":
        outside = (coords < 0) | (coords > last)
    return indices, weights, outside


def integer_fill(value: float, dtype: np.dtype) -> int:
    """`value` rounded half to even and clamped into integer `dtype` (exact
    at the 64-bit types' extremes, which a float64 cannot hold)."""
    info = np.iinfo(dtype)
    return int(min(max(float(np.rint(value)), info.min), info.max))


def resize_array(
    x: np.ndarray,
    sizes: Sequence[int],
    scales: Sequence[float],
    roi: Sequence[float],
    extrapolation_value: float,
    **interpolation: Any,
) -> np.ndarray:
    """`x` resized to `sizes` (-1: unchanged), one axis after the other (in
    float64; integers rounded half to even and clamped back into their type,
    except that a nearest resize of integers gathers them exactly)."""
    rank = x.ndim
    sizes = [x.shape[a] if s == -1 else s for a, s in enumerate(sizes)]
    integer = np.issubdtype(x.dtype, np.integer)
    exact = integer and interpolation["mode"] == "nearest"
    y = x if exact else x.astype(np.float64)
    outside_any: np.ndarray | None = None
    for axis in range(rank):
        span = (roi[axis], roi[rank + axis]) if roi else (0.0, 1.0)
        if x.shape[axis] == 0 or sizes[axis] == 0:
            shape = list(y.shape)
            shape[axis] = sizes[axis]
            y = np.zeros(shape, y.dtype)
            continue
        indices, weights, outside = interpolation_taps(
            x.shape[axis], sizes[axis], scales[axis], roi=span, **interpolation
        )
        shape = [1] * rank
        shape[axis] = sizes[axis]
        total = None
        for tap in range(indices.shape[1]):
            picked = np.take(y, indices[:, tap], axis=axis)
            weight = weights[:, tap]
            term = picked if np.all(weight == 1) else picked * weight.reshape(shape)
            total = term if total is None else total + term
        y = total
        if outside is not None:
            mask = outside.reshape(shape)
            outside_any = mask if outside_any is None else outside_any | mask
    info = np.iinfo(x.dtype) if integer else None
    if outside_any is not None:
        fill: Any = extrapolation_value
        if exact:
            fill = x.dtype.type(integer_fill(fill, x.dtype))
        y = np.where(np.broadcast_to(outside_any, y.shape), fill, y)
    if integer and not exact:
        return np.clip(np.rint(y), info.min, info.max).astype(x.dtype)
    return y.astype(x.dtype)


RESIZE_OPTIONS = (
    "mode",
    "coordinate_transformation_mode",
    "nearest_mode",
    "cubic_coeff_a",
    "exclude_outside",
    "antialias",
    "extrapolation_value",
)
"""ONNX Resize attributes that `ge.resize` keeps as they are."""


@irdl_op_definition
class ResizeOp(GEOperation):
    """Resample `x` to `sizes` (ONNX Resize semantics, every mode and
    coordinate transformation)."""

    name = "ge.resize"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    sizes = attr_def(DenseArrayBase)
    scales = attr_def(DenseArrayBase)
    roi = opt_attr_def(DenseArrayBase)
    mode = attr_def(StringAttr, default_value=string("nearest"))
    coordinate_transformation_mode = attr_def(
        StringAttr, default_value=string("half_pixel")
    )
    nearest_mode = attr_def(StringAttr, default_value=string("round_prefer_floor"))
    cubic_coeff_a = attr_def(FloatAttr, default_value=real(-0.75))
    exclude_outside = attr_def(IntegerAttr, default_value=boolean(False))
    antialias = attr_def(IntegerAttr, default_value=boolean(False))
    extrapolation_value = attr_def(FloatAttr, default_value=real(0.0))

    traits = traits_def(Pure(), KeepsLayout())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = UNARY_FORMAT

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """NC1HWC0 (in and out, as GE's ResizeNearestNeighborV2D and
        ResizeBilinearV2D run) when C keeps its size: a detector neck's
        upsample between convolutions and the concat after it."""
        (x,), (y,) = operands, results
        if Format.NC1HWC0 not in (x.storage_format, y.storage_format):
            return True
        rank = self.x.type.get_num_dims()
        channel = split_channel_axis(x, rank)
        return (
            x == y
            and channel is not None
            and shape_of(self.x.type)[channel] == shape_of(self.y.type)[channel]
        )

    def verify_(self) -> None:
        check_same_element_type(self)
        rank = len(shape_of(self.x.type))
        sizes, scales = self.value_of("sizes"), self.value_of("scales")
        if len(sizes) != rank or len(scales) != rank:
            raise VerifyException(
                f"'sizes' and 'scales' need {rank} entries, got {len(sizes)} and "
                f"{len(scales)}"
            )
        if self.attributes.get("roi") is not None and len(self.value_of("roi")) != (
            2 * rank
        ):
            raise VerifyException(f"'roi' needs {2 * rank} entries")
        for attr, allowed in (
            ("mode", RESIZE_MODES),
            ("coordinate_transformation_mode", COORDINATE_MODES),
            ("nearest_mode", NEAREST_MODES),
        ):
            if self.value_of(attr) not in allowed:
                raise VerifyException(
                    f"'{attr}' is '{self.value_of(attr)}', not one of "
                    f"{', '.join(allowed)}"
                )
        result = shape_of(self.y.type)
        if any(-1 not in (d, s) and d != s for d, s in zip(result, sizes, strict=True)):
            raise VerifyException(f"result shape {list(result)} is not {sizes}")

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("roi", "scales", "sizes")
    """ONNX Resize's inputs, on the ONNX attribute `axes` (all when absent);
    the other ONNX attributes (`keep_aspect_ratio_policy`, the modes, ...)
    are options."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """The output sizes and per-axis scales from ONNX's `sizes` (with
        `keep_aspect_ratio_policy`) or `scales`; `roi` spread over every axis
        for `tf_crop_and_resize`. Sizes read the input dims (`UnknownDims`
        while they are unknown; a dynamic dim scaled by 1 stays as it is)."""
        x = shapes[0]
        rank = len(x)
        axes = (
            parameter_axes(values["axes"], rank) if "axes" in values else [*range(rank)]
        )
        sizes = np.asarray(values.get("sizes", []))
        scales = np.asarray(values.get("scales", []), np.float32).reshape(-1)
        out_sizes, out_scales = list(x), [1.0] * rank
        if sizes.size:
            wanted = parameter_ints(sizes, "sizes")
            if len(wanted) != len(axes):
                raise ShapeError(
                    f"'sizes' has {len(wanted)} entries for {len(axes)} axes"
                )
            given = [x[a] for a in axes]
            if UNKNOWN in given:
                raise UnknownDims("'sizes' on dims unknown until run time")
            ratios = [
                np.float32(w) / np.float32(g)
                for w, g in zip(wanted, given, strict=True)
            ]
            policy = values.get("keep_aspect_ratio_policy", "stretch")
            if policy != "stretch":
                ratio = min(ratios) if policy == "not_larger" else max(ratios)
                ratios = [ratio] * len(axes)
                wanted = [int(math.floor(ratio * g + 0.5)) for g in given]
            for axis, size, ratio in zip(axes, wanted, ratios, strict=True):
                out_sizes[axis], out_scales[axis] = size, float(ratio)
        elif scales.size:
            if len(scales) != len(axes):
                raise ShapeError(
                    f"'scales' has {len(scales)} entries for {len(axes)} axes"
                )
            for axis, scale in zip(axes, scales, strict=True):
                if not np.isfinite(scale) or scale <= 0:
                    raise ShapeError(
                        f"scale {float(scale)} of axis {axis} is not positive"
                    )
                if x[axis] == UNKNOWN and scale != 1.0:
                    raise UnknownDims("'scales' on dims unknown until run time")
                out_scales[axis] = float(scale)
                if x[axis] != UNKNOWN:  # a dynamic dim scaled by 1 stays as it is
                    out_sizes[axis] = int(scale * np.float32(x[axis]))
        else:
            raise ShapeError("one of 'scales' and 'sizes' is required")
        attrs: dict[str, Any] = {
            "sizes": out_sizes,
            "scales": out_scales,
            **{name: values[name] for name in RESIZE_OPTIONS if name in values},
        }
        if attrs.get("coordinate_transformation_mode") == "tf_crop_and_resize":
            roi = [float(v) for v in np.asarray(values.get("roi", [])).reshape(-1)]
            if len(roi) != 2 * len(axes):
                raise ShapeError(
                    f"tf_crop_and_resize needs 'roi' of {2 * len(axes)} values"
                )
            starts, ends = [0.0] * rank, [1.0] * rank
            for i, axis in enumerate(axes):
                starts[axis], ends[axis] = roi[i], roi[len(axes) + i]
            attrs["roi"] = starts + ends
        return cls, attrs

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The result has shape `sizes` (-1: the input's dim)."""
        sizes = tuple(
            d if s == -1 else s
            for s, d in zip(required(attrs, "sizes"), shapes[0], strict=False)
        )
        if len(sizes) != len(shapes[0]):
            raise ShapeError(
                f"'sizes' has {len(sizes)} entries for rank {len(shapes[0])}"
            )
        return [(sizes, dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        sizes: Sequence[int],
        scales: Sequence[float],
        roi: Sequence[float] | None = None,
        mode: str,
        coordinate_transformation_mode: str,
        nearest_mode: str,
        cubic_coeff_a: float,
        exclude_outside: bool,
        antialias: bool,
        extrapolation_value: float,
    ) -> np.ndarray:
        """Interpolate axis by axis (`interpolation_taps`)."""
        return resize_array(
            x,
            sizes,
            scales,
            list(roi or ()),
            extrapolation_value,
            mode=mode,
            coordinate_transformation_mode=coordinate_transformation_mode,
            nearest_mode=nearest_mode,
            cubic_coeff_a=cubic_coeff_a,
            exclude_outside=bool(exclude_outside),
            antialias=bool(antialias),
        )


def float_array(values: Sequence[float]) -> DenseArrayBase:
    """`array<f32: ...>`."""
    return DenseArrayBase.from_list(f32, [float(v) for v in values])


# ---------------------------------------------------------------------------
# Grid sampling
# ---------------------------------------------------------------------------

GRID_SAMPLE_MODES = ("linear", "nearest", "cubic")
PADDING_MODES = ("zeros", "border", "reflection")
GRID_CUBIC_A = -0.75
"""The cubic convolution coefficient of GridSample (Keys; PyTorch's)."""


def grid_bounds(length: int, align_corners: bool) -> tuple[float, float]:
    """The coordinates of an axis's first and last pixel edges (centres with
    `align_corners`): where reflection folds, and beyond which border clamps."""
    return (0.0, length - 1.0) if align_corners else (-0.5, length - 0.5)


def reflect_coordinates(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """`x` folded into [lo, hi] by reflections at its ends (ONNX GridSample);
    a zero-width range gives `lo`."""
    span = hi - lo
    if span <= 0:
        return np.full_like(x, lo)
    below = x < lo
    dx = np.where(below, lo - x, x - hi)
    folds = np.floor(dx / np.float32(span))
    rest = dx - folds * np.float32(span)
    odd = np.floor(folds * np.float32(0.5)) != folds * np.float32(0.5)
    from_lo, from_hi = lo + rest, hi - rest
    inside = np.where(
        below, np.where(odd, from_hi, from_lo), np.where(odd, from_lo, from_hi)
    )
    return np.where(below | (x > hi), inside, x).astype(np.float32)


def grid_cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Keys' cubic weights of taps -1, 0, 1, 2 at fraction `t` (a = -0.75)."""
    a = np.float32(GRID_CUBIC_A)
    one = np.float32(1)

    def near(u: np.ndarray) -> np.ndarray:  # |u| <= 1
        return ((a + 2) * u - (a + 3)) * u * u + one

    def far(u: np.ndarray) -> np.ndarray:  # 1 < |u| < 2
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    return [far(t + one), near(t), near(one - t), far(2 * one - t)]


def grid_axis_taps(
    coordinate: np.ndarray,
    length: int,
    mode: str,
    padding_mode: str,
    align_corners: bool,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Along one axis, from normalised grid coordinates in [-1, 1]: the
    pixel indices each output reads (within 0..length-1; -1 for a pixel
    outside the input under `zeros` padding, which reads 0) and their
    weights (0 there too)."""
    n = coordinate.astype(np.float32)
    one, half = np.float32(1), np.float32(0.5)
    if align_corners:
        x = (n + one) * half * np.float32(length - 1)
    else:
        x = ((n + one) * np.float32(length) - one) * half
    if mode == "nearest":
        x = np.rint(x)
    lo, hi = grid_bounds(length, align_corners)
    if padding_mode == "border":  # only beyond the bounds, as ONNX says
        x = np.where((x < lo) | (x > hi), np.clip(x, 0, length - 1), x)
    elif padding_mode == "reflection":
        x = reflect_coordinates(x, lo, hi)
    if mode == "nearest":
        positions, weights = [x], [np.ones_like(x)]
    else:
        start = np.floor(x)
        t = x - start
        if mode == "linear":
            positions, weights = [start, start + one], [one - t, t]
        else:
            positions = [start + k for k in (-1, 0, 1, 2)]
            weights = grid_cubic_weights(t)
    indices = []
    for k, position in enumerate(positions):
        index = clamp_index(position, length)
        if padding_mode == "zeros":
            inside = (position >= 0) & (position < length)
            weights[k] = np.where(inside, weights[k], 0)
            index = np.where(inside, index, -1)
        elif padding_mode == "reflection":
            index = clamp_index(np.trunc(reflect_coordinates(position, lo, hi)), length)
        indices.append(index)
    return indices, [w.astype(np.float32) for w in weights]


def clamp_index(position: np.ndarray, length: int) -> np.ndarray:
    """A float pixel position as an index in 0..length-1 (NaN: 0)."""
    inside = np.where(position >= 0, np.minimum(position, np.float32(length - 1)), 0)
    return inside.astype(np.int64)


@irdl_op_definition
class GridSampleOp(GEOperation):
    """Sample `x` [N, C, D1..Dr] at the normalised coordinates of `grid`
    [N, O1..Or, r] (last axis ordered W, H, D: x's spatial axes reversed):
    y [N, C, O1..Or] (ONNX GridSample, any r).

    Each axis maps a coordinate in [-1, 1] to pixel space (corner pixel
    centres with `align_corners`, else their outer edges), then reads one
    (nearest, round half to even), two (linear) or four (cubic, a = -0.75)
    pixels; `padding_mode` says what lies outside: zeros, the border pixel,
    or the input reflected at its edges. The weights are separable.

    ```mlir
    %y = ge.grid_sample %x, %grid {mode = "cubic", padding_mode = "border"}
        : (tensor<1x3x5x5xf32>, tensor<1x4x6x2xf32>) -> tensor<1x3x4x6xf32>
    ```
    """

    name = "ge.grid_sample"

    x = operand_def(TensorType)
    grid = operand_def(TensorType)
    y = result_def(TensorType)
    mode = attr_def(StringAttr, default_value=string("linear"))
    padding_mode = attr_def(StringAttr, default_value=string("zeros"))
    align_corners = attr_def(IntegerAttr, default_value=boolean(False))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        for attr, allowed in (
            ("mode", GRID_SAMPLE_MODES),
            ("padding_mode", PADDING_MODES),
        ):
            if self.value_of(attr) not in allowed:
                raise VerifyException(
                    f"'{attr}' is '{self.value_of(attr)}', not one of "
                    f"{', '.join(allowed)}"
                )
        if self.x.type.element_type != self.y.type.element_type:
            raise VerifyException("the result must have the input's dtype")

    def work(self) -> float:
        """Each output element reads 1, 2 or 4 pixels per spatial axis."""
        rank = len(shape_of(self.x.type)) - 2
        taps = {"nearest": 1, "linear": 2, "cubic": 4}[self.value_of("mode")]
        return element_count(self.y) * taps**rank

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y = [N, C, *grid[1:-1]]; grid's last dim is x's spatial rank."""
        x, grid = shapes
        if len(x) < 3:
            raise ShapeError(f"input must have rank >= 3, got rank {len(x)}")
        rank = len(x) - 2
        if len(grid) != rank + 2:
            raise ShapeError(
                f"grid must have rank {rank + 2} for a rank-{len(x)} input, "
                f"got rank {len(grid)}"
            )
        if not dims_match(grid[-1], rank):
            raise ShapeError(f"grid's last dim must be {rank}, got {grid[-1]}")
        if not dims_match(x[0], grid[0]):
            raise ShapeError(f"input batch {x[0]} differs from grid batch {grid[0]}")
        if not dtypes[1].startswith(("float", "bfloat")):
            raise ShapeError(f"grid must be floating point, got {dtypes[1]}")
        batch = grid[0] if x[0] == UNKNOWN else x[0]
        return [((batch, x[1], *grid[1:-1]), dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        grid: np.ndarray,
        *,
        mode: str,
        padding_mode: str,
        align_corners: bool,
    ) -> np.ndarray:
        """Separable taps per axis (`grid_axis_taps`), gathered per tap combination."""
        n, c, *sizes = x.shape
        rank = len(sizes)
        out = grid.shape[1:-1]
        y = np.zeros((n, *out, c), np.float32)
        if y.size == 0 or 0 in sizes:
            return np.moveaxis(y, -1, 1).astype(x.dtype)
        taps = [
            grid_axis_taps(
                grid[..., rank - 1 - axis],
                sizes[axis],
                mode,
                padding_mode,
                bool(align_corners),
            )
            for axis in range(rank)
        ]
        xt = np.moveaxis(x, 1, -1).astype(np.float32)
        batch = np.arange(n).reshape((n,) + (1,) * len(out))
        for combination in itertools.product(*(range(len(t[0])) for t in taps)):
            weight = np.ones((n, *out), np.float32)
            inside = np.ones((n, *out), bool)
            where = [batch]
            for (indices, weights), k in zip(taps, combination, strict=True):
                weight = weight * weights[k]
                inside &= indices[k] >= 0
                where.append(np.maximum(indices[k], 0))
            value = np.where(inside[..., None], xt[tuple(where)], np.float32(0))
            y += weight[..., None] * value
        return np.moveaxis(y, -1, 1).astype(x.dtype)


# ---------------------------------------------------------------------------
# Region of interest alignment
# ---------------------------------------------------------------------------

ROI_MODES = ("avg", "max")
ROI_COORDINATE_MODES = ("half_pixel", "output_half_pixel")


def roi_axis_taps(
    start: np.ndarray,
    end: np.ndarray,
    bins: int,
    grid: int,
    length: int,
    half_pixel: bool,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Along one axis, for rois spanning `start..end` (input pixels, [R]):
    the two pixel indices and bilinear weights [R, bins, grid] of each of
    `grid` sample points per bin (ONNX RoiAlign: a sample beyond one pixel
    outside the input weighs 0, one at or past the last pixel reads it)."""
    size = end - start
    if not half_pixel:
        size = np.maximum(size, np.float32(1))
    step = (size / np.float32(bins))[:, None, None]
    sample = (np.arange(grid, dtype=np.float32) + np.float32(0.5)) / np.float32(grid)
    c = (
        start[:, None, None]
        + (np.arange(bins, dtype=np.float32)[:, None] + sample) * step
    )
    valid = (c >= -1) & (c <= length)
    c = np.maximum(c, 0)
    low = np.floor(c)
    edge = low >= length - 1
    low = np.where(edge, np.float32(length - 1), low)
    high = np.where(edge, low, low + 1)
    fraction = np.where(edge, 0, c - low)
    weights = [np.where(valid, 1 - fraction, 0), np.where(valid, fraction, 0)]
    indices = [low.astype(np.int64), high.astype(np.int64)]
    return indices, [w.astype(np.float32) for w in weights]


def roi_grid(size: float, bins: int, sampling_ratio: int) -> int:
    """Sample points per bin along an axis: `sampling_ratio`, or (0) as many
    as the bin is pixels wide, rounded up (none for an empty roi)."""
    return sampling_ratio if sampling_ratio > 0 else max(int(math.ceil(size / bins)), 0)


@irdl_op_definition
class RoiAlignOp(GEOperation):
    """Pool each region of interest of `x` [N, C, H, W] into an
    `output_height` x `output_width` grid of bins (ONNX RoiAlign): `rois`
    [R, 4] are (x1, y1, x2, y2) in input coordinates times `spatial_scale`,
    `batch_indices` [R] pick the image; each bin averages (or takes the
    largest weighted corner of) `sampling_ratio`^2 bilinear samples. y is
    [R, C, output_height, output_width].

    ```mlir
    %y = ge.roi_align %x, %rois, %batch {output_height = 5 : i64,
        output_width = 5 : i64, sampling_ratio = 2 : i64}
        : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
    ```
    """

    name = "ge.roi_align"

    x = operand_def(TensorType)
    rois = operand_def(TensorType)
    batch_indices = operand_def(TensorType)
    y = result_def(TensorType)
    mode = attr_def(StringAttr, default_value=string("avg"))
    output_height = attr_def(IntegerAttr, default_value=integer(1))
    output_width = attr_def(IntegerAttr, default_value=integer(1))
    sampling_ratio = attr_def(IntegerAttr, default_value=integer(0))
    spatial_scale = attr_def(FloatAttr, default_value=real(1.0))
    coordinate_transformation_mode = attr_def(
        StringAttr, default_value=string("half_pixel")
    )

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        for attr, allowed in (
            ("mode", ROI_MODES),
            ("coordinate_transformation_mode", ROI_COORDINATE_MODES),
        ):
            if self.value_of(attr) not in allowed:
                raise VerifyException(
                    f"'{attr}' is '{self.value_of(attr)}', not one of "
                    f"{', '.join(allowed)}"
                )
        for attr in ("output_height", "output_width"):
            if self.value_of(attr) < 1:
                raise VerifyException(f"'{attr}' must be positive")
        if self.value_of("sampling_ratio") < 0:
            raise VerifyException("'sampling_ratio' must be >= 0")
        if self.x.type.element_type != self.y.type.element_type:
            raise VerifyException("the result must have the input's dtype")

    def work(self) -> float:
        """Each output element reads 4 pixels per sample point."""
        grid = max(self.value_of("sampling_ratio"), 2)
        return element_count(self.y) * 4 * grid * grid

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y = [R, C, output_height, output_width]."""
        x, rois, batch = shapes
        if len(x) != 4:
            raise ShapeError(f"input must have rank 4, got rank {len(x)}")
        if len(rois) != 2 or not dims_match(rois[1], 4):
            raise ShapeError(f"rois must be [R, 4], got {list(rois)}")
        if len(batch) != 1 or not dims_match(batch[0], rois[0]):
            raise ShapeError(
                f"batch_indices must be [{rois[0]}] for the rois, got {list(batch)}"
            )
        if not dtypes[2].startswith(("int", "uint")):
            raise ShapeError(f"batch_indices must be integers, got {dtypes[2]}")
        count = batch[0] if rois[0] == UNKNOWN else rois[0]
        height = required(attrs, "output_height")
        width = required(attrs, "output_width")
        return [((count, x[1], height, width), dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(
        x: np.ndarray,
        rois: np.ndarray,
        batch_indices: np.ndarray,
        *,
        mode: str,
        output_height: int,
        output_width: int,
        sampling_ratio: int,
        spatial_scale: float,
        coordinate_transformation_mode: str,
    ) -> np.ndarray:
        """Per roi: separable sample taps along H and W (`roi_axis_taps`),
        gathered for every corner pair."""
        _, channels, height, width = x.shape
        half_pixel = coordinate_transformation_mode == "half_pixel"
        offset = np.float32(0.5 if half_pixel else 0.0)
        boxes = rois.astype(np.float32) * np.float32(spatial_scale) - offset
        y = np.zeros((len(boxes), channels, output_height, output_width), np.float32)
        for r, (x1, y1, x2, y2) in enumerate(boxes):
            taps = []
            for lo, hi, bins, length in (
                (y1, y2, output_height, height),
                (x1, x2, output_width, width),
            ):
                size = hi - lo if half_pixel else max(hi - lo, 1)
                grid = roi_grid(size, bins, sampling_ratio)
                taps.append(
                    roi_axis_taps(
                        np.array([lo]), np.array([hi]), bins, grid, length, half_pixel
                    )
                )
            (rows, row_weights), (columns, column_weights) = taps
            if rows[0].size == 0 or columns[0].size == 0:
                continue  # no sample point: 0
            image = x[int(batch_indices[r])].astype(np.float32)
            values = [
                row_weights[a][0][None, :, :, None, None]
                * column_weights[b][0][None, None, None, :, :]
                * image[:, rows[a][0][:, :, None, None], columns[b][0][None, None]]
                for a in range(2)
                for b in range(2)
            ]  # each [C, bins_h, grid_h, bins_w, grid_w]
            if mode == "avg":
                y[r] = sum(values).sum(axis=(2, 4)) / (
                    values[0].shape[2] * values[0].shape[4]
                )
            else:
                y[r] = np.max(np.maximum.reduce(values), axis=(2, 4))
        return y.astype(x.dtype)
