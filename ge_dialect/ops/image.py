"""Resampling: `ge.resize` (ONNX Resize, Upsample; GE's ResizeNearestNeighborV2,
ResizeBilinearV2 and their cubic/N-D generalisation).

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

from ge_dialect.format_rules import same_rank_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import (
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_same_element_type,
    real,
    string,
)
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    UnknownDims,
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


def resize_array(
    x: np.ndarray,
    sizes: Sequence[int],
    scales: Sequence[float],
    roi: Sequence[float],
    extrapolation_value: float,
    **interpolation: Any,
) -> np.ndarray:
    """`x` resized to `sizes` (-1: unchanged), one axis after the other (in
    float64)."""
    rank = x.ndim
    sizes = [x.shape[a] if s == -1 else s for a, s in enumerate(sizes)]
    y = x.astype(np.float64)
    outside_any: np.ndarray | None = None
    for axis in range(rank):
        span = (roi[axis], roi[rank + axis]) if roi else (0.0, 1.0)
        if x.shape[axis] == 0 or sizes[axis] == 0:
            shape = list(y.shape)
            shape[axis] = sizes[axis]
            y = np.zeros(shape)
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
    if outside_any is not None:
        y = np.where(np.broadcast_to(outside_any, y.shape), extrapolation_value, y)
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
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
