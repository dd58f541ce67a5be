"""Signal processing: `ge.dft` (ONNX DFT: forward, inverse, one-sided, and
the inverse of a one-sided spectrum), `ge.stft` (ONNX STFT: windowed
frames, each a DFT) and `ge.mel_weight_matrix` (ONNX MelWeightMatrix).

A transform along one axis is a matrix product: every output bin is a sum
of the input samples weighted by twiddle factors. `dft_matrix` builds that
matrix from the static shapes and attributes, once, for the NumPy kernel
and the loop lowering alike (which keeps it as a constant table):

```mlir
%y = ge.dft %x {axis = 1 : i64, length = 10 : i64, onesided = true}
    : tensor<1x10x10x1xf32> -> tensor<1x6x10x2xf32>
```

Complex values are a trailing axis of 2 (real, imaginary); a trailing axis
of 1 is a real signal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import (
    AnyAttr,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.dtype_names import canonical_dtype
from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    boolean,
    check_same_element_type,
    element_count,
)
from ge_dialect.ops.trans import dst_dtype
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    UnknownDims,
    parameter_ints,
    required,
)


def dft_bins(length: int, inverse: bool, onesided: bool) -> int:
    """Output bins along the axis: `length`, or `length // 2 + 1` for a
    one-sided forward transform (an inverse one-sided one gives `length`
    real samples)."""
    return length // 2 + 1 if onesided and not inverse else length


def dft_matrix(
    samples: int, parts: int, length: int, inverse: bool, onesided: bool
) -> np.ndarray:
    """W [out part, out bin, in part, in sample] with
    `y[k, o] = sum_{q, j} W[o, k, q, j] x[j, q]`: the DFT of `length` points
    over the first `samples` input samples (`parts` = 1: real, 2: complex),
    the rest zero padding.

    Forward: `e^(-2 pi i jk / L)`; inverse: `e^(+2 pi i jk / L) / L`;
    inverse one-sided (irfft): the input holds bins 0..L/2 of a Hermitian
    spectrum, so bin j counts twice unless it is 0 or L/2, and the output
    is real. Angles reduce `jk` modulo L first (exact for long signals).
    """
    bins = dft_bins(length, inverse, onesided)
    j = np.arange(samples)
    k = np.arange(bins)
    angle = 2 * np.pi * ((k[:, None] * j[None, :]) % length) / length
    cos, sin = np.cos(angle), np.sin(angle)
    if inverse and onesided:
        scale = np.where((j == 0) | (2 * j == length), 1.0, 2.0) / length
        rows = [[cos * scale, -sin * scale]]  # real output only
    elif inverse:
        rows = [[cos / length, -sin / length], [sin / length, cos / length]]
    else:
        rows = [[cos, sin], [-sin, cos]]
    w = np.array(rows).transpose(0, 2, 1, 3)  # [o, q, K, J] -> [o, K, q, J]
    return np.ascontiguousarray(w[:, :, :parts, :])


def one_int(value: Any, what: str) -> int:
    """A run-time parameter holding one integer."""
    values = parameter_ints(value, what)
    if len(values) != 1:
        raise ShapeError(f"{what} must be one integer, got {len(values)}")
    return values[0]


def dft_samples(size: int, length: int, inverse: bool, onesided: bool) -> int:
    """Input samples the transform reads: at most `length` (the rest is
    truncated), at most the `length // 2 + 1` bins an irfft uses."""
    used = length // 2 + 1 if inverse and onesided else length
    return min(size, used)


@irdl_op_definition
class DFTOp(GEOperation):
    """Discrete Fourier transform of `length` points along `axis` (ONNX DFT).

    `x` [..., n, ..., 1 | 2] is zero-padded or truncated to `length` along
    `axis`; `y` has `length` bins there (`length // 2 + 1` when
    `onesided`), complex (a trailing 2) unless it inverts a one-sided
    spectrum, which gives `length` real samples (a trailing 1).
    """

    name = "ge.dft"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr)
    length = attr_def(IntegerAttr)
    inverse = attr_def(IntegerAttr, default_value=boolean(False))
    onesided = attr_def(IntegerAttr, default_value=boolean(False))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        rank = len(shape_of(self.x.type))
        axis = self.value_of("axis")
        if not 0 <= axis < rank - 1:
            raise VerifyException(
                f"axis {axis} must name a signal axis, in [0, {rank - 2}]"
            )
        if self.value_of("length") < 1:
            raise VerifyException(
                f"length must be positive, got {self.value_of('length')}"
            )

    def work(self) -> float:
        """Each output element sums `length` weighted samples."""
        return element_count(self.y) * self.value_of("length")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`axis` gets the bins, the trailing axis 2 (1 for an irfft)."""
        x = shapes[0]
        if len(x) < 2 or x[-1] not in (1, 2, UNKNOWN):
            raise ShapeError(
                f"input must end in an axis of 1 (real) or 2 (complex), got {list(x)}"
            )
        axis, length = required(attrs, "axis"), required(attrs, "length")
        if not 0 <= axis < len(x) - 1:
            raise ShapeError(f"axis {axis} must name a signal axis of {list(x)}")
        inverse, onesided = bool(attrs.get("inverse")), bool(attrs.get("onesided"))
        shape = list(x)
        shape[axis] = dft_bins(length, inverse, onesided)
        shape[-1] = 1 if inverse and onesided else 2
        return [(tuple(shape), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axis", "dft_length")
    """ONNX's `axis` (an input from opset 20, default -2; before, an
    attribute given as an option) and `dft_length` inputs; the options
    `inverse` and `onesided`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """The axis normalised (it must name a signal axis); `dft_length`
        by default the signal length, or 2 * (n - 1) when inverting a
        one-sided spectrum."""
        rank = len(shapes[0])
        axis = one_int(values.get("axis", -2), "axis")
        if not (-rank <= axis <= -2 or 0 <= axis <= rank - 2):
            raise ShapeError(f"axis {axis} must name a signal axis of rank {rank}")
        axis %= rank
        inverse, onesided = bool(values.get("inverse")), bool(values.get("onesided"))
        if values.get("dft_length") is not None:
            length = one_int(values["dft_length"], "dft_length")
        elif (size := shapes[0][axis]) == UNKNOWN:
            raise UnknownDims("dft_length on a signal axis unknown until run time")
        else:
            length = 2 * (size - 1) if inverse and onesided else size
        if length < 1:
            raise ShapeError(f"dft_length must be positive, got {length}")
        attrs = {"axis": axis, "length": length, "inverse": inverse}
        return cls, {**attrs, "onesided": onesided}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The trailing axis is 2 (1 for an irfft); with the axis unknown,
        the signal axes stay unless `onesided` or `dft_length` may change
        the one transformed."""
        x = list(known.shapes[0])
        inverse = bool(known.values.get("inverse"))
        onesided = bool(known.values.get("onesided"))
        if (
            onesided
            or "dft_length" in known.parameter_shapes
            or (known.values.get("dft_length") is not None)
        ):
            x[:-1] = [UNKNOWN] * (len(x) - 1)
        x[-1] = 1 if inverse and onesided else 2
        return [(tuple(x), known.dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, axis: int, length: int, inverse: bool, onesided: bool
    ) -> np.ndarray:
        """The matrix product with `dft_matrix`, in float64."""
        samples = dft_samples(x.shape[axis], length, bool(inverse), bool(onesided))
        w = dft_matrix(samples, x.shape[-1], length, bool(inverse), bool(onesided))
        signal = np.moveaxis(x.astype(np.float64), axis, -2)[..., :samples, :]
        y = np.einsum("okqj,...jq->...ko", w, signal)
        return np.moveaxis(y, -2, axis).astype(x.dtype)


def stft_shape(
    signal: Shape, window: Shape | None, step: int, length: int, onesided: bool
) -> Shape:
    """[batch, frames, bins, 2] of a short-time Fourier transform of a
    [batch, samples, 1 | 2] signal; ShapeError if the frames do not fit."""
    if len(signal) != 3 or signal[2] not in (1, 2, UNKNOWN):
        raise ShapeError(f"signal must be [batch, samples, 1 | 2], got {list(signal)}")
    if step < 1 or length < 1:
        raise ShapeError(
            f"frame_step {step} and frame_length {length} must be positive"
        )
    if window is not None and (len(window) != 1 or window[0] not in (length, UNKNOWN)):
        raise ShapeError(f"window {list(window)} must be [frame_length {length}]")
    samples = signal[1]
    if samples != UNKNOWN and length > samples:
        raise ShapeError(f"frame_length {length} is longer than the {samples} samples")
    frames = UNKNOWN if samples == UNKNOWN else 1 + (samples - length) // step
    return (signal[0], frames, dft_bins(length, False, onesided), 2)


@irdl_op_definition
class STFTOp(GEOperation):
    """Short-time Fourier transform (ONNX STFT): frames of `frame_length`
    samples every `frame_step`, each times `window` (when given) and
    transformed (`length` points, one-sided bins when `onesided`):
    [batch, samples, 1 | 2] -> [batch, frames, bins, 2], frames
    `1 + (samples - frame_length) // frame_step`.

    ```mlir
    %y = ge.stft %x, %w {frame_step = 8 : i64, frame_length = 16 : i64}
        : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
    ```
    """

    name = "ge.stft"

    signal = operand_def(TensorType)
    window = opt_operand_def(TensorType)
    y = result_def(TensorType)
    frame_step = attr_def(IntegerAttr)
    frame_length = attr_def(IntegerAttr)
    onesided = attr_def(IntegerAttr, default_value=boolean(True))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        window = None if self.window is None else shape_of(self.window.type)
        try:
            stft_shape(
                shape_of(self.signal.type),
                window,
                self.value_of("frame_step"),
                self.value_of("frame_length"),
                bool(self.value_of("onesided")),
            )
        except ShapeError as error:
            raise VerifyException(str(error)) from None

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[batch, frames, bins, 2] in the signal's dtype."""
        window = shapes[1] if len(shapes) > 1 else None
        step, length = required(attrs, "frame_step"), required(attrs, "frame_length")
        onesided = bool(attrs.get("onesided", True))
        return [(stft_shape(shapes[0], window, step, length, onesided), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("frame_step", "frame_length")
    """ONNX STFT's `frame_step` and `frame_length` inputs (scalars); the
    option `onesided`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`frame_length` by default the window's length, else the signal's."""
        step = one_int(required(values, "frame_step"), "frame_step")
        if values.get("frame_length") is not None:
            length = one_int(values["frame_length"], "frame_length")
        else:
            length = shapes[1][0] if len(shapes) > 1 else shapes[0][1]
            if length == UNKNOWN:
                raise UnknownDims("frame_length on a length unknown until run time")
        attrs = {
            "frame_step": step,
            "frame_length": length,
            "onesided": bool(values.get("onesided", True)),
        }
        cls.shape_function(shapes, ["float32"] * len(shapes), attrs)
        return cls, attrs

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """Batch and a complex trailing axis; frames and bins unknown."""
        return [((known.shapes[0][0], UNKNOWN, UNKNOWN, 2), known.dtypes[0])]

    @staticmethod
    def numpy_kernel(
        signal: np.ndarray,
        window: np.ndarray | None,
        *,
        frame_step: int,
        frame_length: int,
        onesided: bool,
    ) -> np.ndarray:
        """Frames gathered, weighted, times `dft_matrix` (in float64)."""
        frames = 1 + (signal.shape[1] - frame_length) // frame_step
        at = np.arange(frames)[:, None] * frame_step + np.arange(frame_length)
        x = signal[:, at, :].astype(np.float64)  # [batch, frames, length, parts]
        if window is not None:
            x = x * window.astype(np.float64)[None, None, :, None]
        w = dft_matrix(frame_length, signal.shape[2], frame_length, False, onesided)
        return np.einsum("okqj,bfjq->bfko", w, x).astype(signal.dtype)


def mel_points(
    num_mel_bins: np.ndarray,
    dft_length: np.ndarray,
    sample_rate: np.ndarray,
    lower_edge_hertz: np.ndarray,
    upper_edge_hertz: np.ndarray,
) -> np.ndarray:
    """The `num_mel_bins + 2` spectrogram bins bounding the triangular
    filters, as ONNX's reference computes them (the hertz edges in their
    own dtype through `log1p`, then float64): evenly spaced in mel
    (`2595 log10(1 + f / 700)`), back to hertz, times `(dft_length + 1) /
    sample_rate`, floored."""
    count = int(num_mel_bins.reshape(-1)[0])
    low_mel = 2595 * np.log1p(lower_edge_hertz.reshape(()) / 700) / np.log(10)
    high_mel = 2595 * np.log1p(upper_edge_hertz.reshape(()) / 700) / np.log(10)
    step = (high_mel - low_mel) / (count + 2)
    mels = np.arange(count + 2) * step + low_mel
    hertz = 700 * np.expm1(mels / 2595 * np.log(10))
    length, rate = dft_length.reshape(()), sample_rate.reshape(())
    return ((length + 1) * hertz // rate).astype(np.int64)


@irdl_op_definition
class MelWeightMatrixOp(GEOperation):
    """ONNX MelWeightMatrix: [dft_length // 2 + 1, num_mel_bins] weights of
    triangular filters (`mel_points`): column i rises from 0 at point i to
    1 at point i + 1 and falls to 0 at point i + 2 (a filter whose first
    two points coincide is 1 at that bin). Every operand is a one-element
    tensor; the result shape is their values (`value_shapes`), its dtype
    `dst_type`. Points outside the spectrogram are an error."""

    name = "ge.mel_weight_matrix"

    num_mel_bins = operand_def(TensorType)
    dft_length = operand_def(TensorType)
    sample_rate = operand_def(TensorType)
    lower_edge_hertz = operand_def(TensorType)
    upper_edge_hertz = operand_def(TensorType)
    y = result_def(TensorType)
    dst_type = attr_def(AnyAttr())

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        for operand in self.operands:
            if element_count(operand) != 1:
                raise VerifyException("every operand holds one element")
        if len(shape_of(self.y.type)) != 2:
            raise VerifyException("the result is 2-D")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[?, ?] of `dst_type`: the sizes are operand values."""
        for shape in shapes:
            if UNKNOWN not in shape and int(np.prod(shape)) != 1:
                raise ShapeError(f"every operand holds one element, got {list(shape)}")
        return [((UNKNOWN, UNKNOWN), dst_dtype(attrs))]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """[dft_length // 2 + 1, num_mel_bins] from the values."""
        bins, length = (int(a.reshape(-1)[0]) for a in operands[:2])
        if bins < 1 or length < 1:
            raise ValueError(
                f"num_mel_bins {bins} and dft_length {length} must be positive"
            )
        return [(length // 2 + 1, bins)]

    @staticmethod
    def numpy_kernel(
        num_mel_bins: np.ndarray,
        dft_length: np.ndarray,
        sample_rate: np.ndarray,
        lower_edge_hertz: np.ndarray,
        upper_edge_hertz: np.ndarray,
        *,
        dst_type: str,
    ) -> np.ndarray:
        """The filters' rising and falling edges, per column."""
        points = mel_points(
            num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz
        )
        spectrum = int(dft_length.reshape(-1)[0]) // 2 + 1
        if points.min() < 0 or points[:-1].max() >= spectrum or points[-1] > spectrum:
            raise ValueError(
                f"the filters' bins {points.tolist()} fall outside the "
                f"{spectrum} spectrogram bins"
            )
        j = np.arange(spectrum)[:, None]
        low, center, high = points[:-2], points[1:-1], points[2:]
        rising = np.where(
            center == low,
            (j == center).astype(np.float64),
            (j - low) / np.where(center == low, 1, center - low),
        )
        falling = (high - j) / np.where(high == center, 1, high - center)
        up = (low <= j) & (j <= center)
        down = (high > center) & (center <= j) & (j < high)
        weights = np.where(down, falling, np.where(up, rising, 0.0))
        return weights.astype(canonical_dtype(dst_type))
