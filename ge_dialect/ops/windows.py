"""Per-axis window arithmetic of the convolutions and pools, for any number
of spatial axes: the 2-D ops (`ge.conv2d`, `ge.conv2d_transpose`,
`ge.max_pool`, ...) and the 3-D ones (`ge.conv3d`, `ge.max_pool3d`, ...)
share it.

Spatial axes are the letters of `data_format` other than N and C, in
order (H W, or D H W); `pads` hold a (begin, end) pair per spatial axis,
flattened ([top, bottom, left, right], [front, back, top, bottom, left,
right]); `ksize`, `strides` and `dilations` one value per axis of
`data_format`. The NumPy windows are channels-first: [N, C, *spatial].
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.utils.exceptions import VerifyException

from ge_dialect.numpy_helpers import pad_array
from ge_dialect.shape_functions import UNKNOWN, Shape, ShapeError


def spatial_letters(data_format: str) -> str:
    """The spatial axes of `data_format` in order: "HW" or "DHW"."""
    return "".join(a for a in data_format if a not in "NC")


def window_count(extent: int, kernel: int, stride: int, dilation: int) -> int:
    """How many windows of `kernel` taps `dilation` apart, one every
    `stride`, fit in `extent` (below 1 when none does)."""
    return (extent - dilation * (kernel - 1) - 1) // stride + 1


def window_size(
    size: int, kernel: int, stride: int, dilation: int, pads: tuple[int, int]
) -> int:
    """Output size of a sliding window (floor mode)."""
    if stride < 1 or dilation < 1:
        raise ShapeError(f"stride {stride} and dilation {dilation} must be positive")
    if UNKNOWN in (size, kernel):
        return UNKNOWN
    out = window_count(size + pads[0] + pads[1], kernel, stride, dilation)
    if out < 1:
        raise ShapeError(
            f"window {kernel} (dilation {dilation}) does not fit input size {size} "
            f"with pads {list(pads)}"
        )
    return out


def full_transposed_size(size: int, kernel: int, stride: int, dilation: int) -> int:
    """Extent of a transposed convolution's output before pads and
    output_padding: `stride * (size - 1) + dilation * (kernel - 1) + 1`."""
    return stride * (size - 1) + dilation * (kernel - 1) + 1


def transposed_size(
    size: int,
    kernel: int,
    stride: int,
    dilation: int,
    pads: tuple[int, int],
    output_padding: int,
) -> int:
    """Output size of a transposed convolution (ONNX ConvTranspose): the full
    extent plus `output_padding`, less the pads."""
    if stride < 1 or dilation < 1:
        raise ShapeError(f"stride {stride} and dilation {dilation} must be positive")
    if UNKNOWN in (size, kernel):
        return UNKNOWN
    full = full_transposed_size(size, kernel, stride, dilation)
    out = full + output_padding - pads[0] - pads[1]
    if out < 1:
        raise ShapeError(f"pads {list(pads)} leave no output of input size {size}")
    return out


def convolved_shape(
    shape: Shape,
    kernel: Sequence[int],
    data_format: str,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> list[int]:
    """`shape` with each spatial axis a convolution's output (floor mode);
    `kernel` holds one value per spatial axis."""
    result = list(shape)
    for k, letter in enumerate(spatial_letters(data_format)):
        a = data_format.index(letter)
        result[a] = window_size(
            shape[a], kernel[k], strides[a], dilations[a], pad_pairs(pads)[k]
        )
    return result


def transposed_shape(
    shape: Shape,
    kernel: Sequence[int],
    data_format: str,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
) -> list[int]:
    """`shape` with each spatial axis a transposed convolution's output;
    `kernel` and `output_padding` hold one value per spatial axis."""
    result = list(shape)
    for k, letter in enumerate(spatial_letters(data_format)):
        a = data_format.index(letter)
        result[a] = transposed_size(
            shape[a],
            kernel[k],
            strides[a],
            dilations[a],
            pad_pairs(pads)[k],
            output_padding[k],
        )
    return result


def check_output_padding(
    output_padding: Sequence[int],
    data_format: str,
    strides: Sequence[int],
    dilations: Sequence[int],
) -> None:
    """A VerifyException unless each spatial axis's `output_padding` is >= 0
    and below its stride or its dilation."""
    for extra, letter in zip(output_padding, spatial_letters(data_format), strict=True):
        axis = data_format.index(letter)
        if not 0 <= extra < max(strides[axis], dilations[axis]):
            raise VerifyException(
                f"output_padding {list(output_padding)} must be >= 0 and "
                "below the stride or the dilation of its axis"
            )


class WindowAxis(NamedTuple):
    """Geometry of one windowed spatial axis: `k` taps `d` apart, every `s`,
    over `size` elements with `pb` and `pe` padding, giving `out`."""

    size: int
    k: int
    s: int
    pb: int
    pe: int
    out: int
    d: int = 1

    @property
    def span(self) -> int:
        """Extent of one window: `(k - 1) * d + 1`."""
        return (self.k - 1) * self.d + 1

    @property
    def end_pad(self) -> int:
        """The end pad every window fits in: `pe`, more when a ceil-mode
        partial last window reaches past it."""
        return self.pe + max(
            (self.out - 1) * self.s + self.span - (self.size + self.pb + self.pe), 0
        )

    def live_taps(self) -> tuple[int, WindowAxis]:
        """The first tap that reads an input element for some output, and
        this axis with its window cut to the taps from there to the last
        that does (both `self` when there is nothing to cut).

        The taps cut read padding for every output, which adds nothing to a
        sum and never wins a max: a pool whose kernel is longer than its
        input (Hugging Face EfficientNet's 320-tap average on a 2x2 map)
        keeps 2 taps, a 3x3 convolution with pads 1 on a 1x1 map 1. The cut
        axis's begin pad is what is left of `pb` before `first` (`first`
        never passes it), its end pad the least its windows need."""
        reading = (self._taps_reading(o) for o in range(self.out))
        first_window = next((taps for taps in reading if taps), None)
        if first_window is None:  # no window reads the input
            return 0, self
        reading = (self._taps_reading(o) for o in reversed(range(self.out)))
        last_window = next(taps for taps in reading if taps)
        first = min(last_window.start, self.pb // self.d)
        end = first_window.stop
        if (first, end) == (0, self.k):
            return 0, self
        return first, self._replace(k=end - first, pb=self.pb - first * self.d, pe=0)

    def _taps_reading(self, out: int) -> range:
        """The taps of window `out` that read an input element (windows
        further on read from earlier taps: both ends never grow with
        `out`)."""
        start = self.pb - out * self.s  # the input's first element, from the window
        return range(
            max(0, -(-start // self.d)), min(self.k, -(-(start + self.size) // self.d))
        )


def pooled_size(
    size: int, span: int, stride: int, begin: int, end: int, ceil_mode: bool
) -> int:
    """Output length of one pooled axis (ONNX): in ceil mode a partial last
    window is kept unless it starts in the end pad. A window longer than the
    padded input by less than the stride gives one output (onnxruntime's
    division rounds toward zero: Hugging Face EfficientNet's
    `AveragePool(kernel 640, stride 640)` on a 2x2 map is its mean); longer
    still, none (0)."""
    overhang = size + begin + end - span
    if overhang < 0:
        return 1 if overhang > -stride else 0
    out = (overhang + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + begin:
        out -= 1
    return out


def pool_axes(
    shape: Shape,
    data_format: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil_mode: bool,
) -> list[tuple[int, WindowAxis]]:
    """Position in `data_format` and geometry of each spatial axis of a pool
    over an input of `shape` (an unknown size pools to an unknown size)."""
    axes = []
    for k, letter in enumerate(spatial_letters(data_format)):
        a = data_format.index(letter)
        size, begin, end = shape[a], pads[2 * k], pads[2 * k + 1]
        span = (ksize[a] - 1) * dilations[a] + 1
        out = (
            UNKNOWN
            if size == UNKNOWN
            else pooled_size(size, span, strides[a], begin, end, ceil_mode)
        )
        axes.append(
            (a, WindowAxis(size, ksize[a], strides[a], begin, end, out, dilations[a]))
        )
    return axes


def result_axes(
    shape: Shape,
    result: Shape,
    data_format: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> list[tuple[int, WindowAxis]]:
    """Position in `data_format` and geometry of each spatial axis of a
    window op from an input of `shape` to a `result` of the given extents;
    `kernel`, `strides` and `dilations` hold one value per spatial axis."""
    axes = [data_format.index(a) for a in spatial_letters(data_format)]
    return [
        (a, WindowAxis(shape[a], k, s, begin, end, result[a], d))
        for a, k, s, d, (begin, end) in zip(
            axes, kernel, strides, dilations, pad_pairs(pads), strict=True
        )
    ]


def pooled_shape(
    shape: Shape,
    data_format: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil_mode: bool,
) -> tuple[int, ...]:
    """The result shape of a windowed pool; a ShapeError when a window leaves
    no output."""
    pooled = list(shape)
    axes = pool_axes(shape, data_format, ksize, strides, dilations, pads, ceil_mode)
    for a, g in axes:
        pooled[a] = g.out
        if g.out == 0:
            raise ShapeError(
                f"window {g.span} is larger than the padded input "
                f"{g.size + g.pb + g.pe} by at least the stride {g.s}: no output"
            )
    return tuple(pooled)


def avg_counts(g: WindowAxis, count_include_pad: bool) -> np.ndarray:
    """Per-window tap counts along one axis (ONNX AveragePool divisor): taps
    inside the input, or inside the padded input with `count_include_pad`."""
    taps = (np.arange(g.out) * g.s - g.pb)[:, None] + np.arange(g.k) * g.d
    lo, hi = (-g.pb, g.size + g.pe) if count_include_pad else (0, g.size)
    return ((taps >= lo) & (taps < hi)).sum(axis=1)


def avg_divisor(geometry: Sequence[WindowAxis], count_include_pad: bool) -> np.ndarray:
    """The average pool's divisor per output position (spatial axes only):
    the product of the per-axis tap counts."""
    counts = (avg_counts(g, count_include_pad) for g in geometry)
    return functools.reduce(np.multiply.outer, counts)


def channels_first(x: np.ndarray, data_format: str) -> np.ndarray:
    """`x` (in `data_format`) viewed as [N, C, *spatial]."""
    order = "NC" + spatial_letters(data_format)
    return x.transpose([data_format.index(a) for a in order])


def from_channels_first(y: np.ndarray, data_format: str) -> np.ndarray:
    """A [N, C, *spatial] array in `data_format`, contiguous."""
    order = "NC" + spatial_letters(data_format)
    return np.ascontiguousarray(y.transpose([order.index(a) for a in data_format]))


def strided_windows(
    v: np.ndarray,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> np.ndarray:
    """Window view [N, C, *out, *kernel] of a padded channels-first array:
    `kernel` taps `dilations` apart, every `strides`."""
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    win = sliding_window_view(v, spans, axis=tuple(range(2, 2 + len(spans))))
    steps = [slice(None, None, s) for s in (*strides, *dilations)]
    return win[(slice(None), slice(None), *steps)]


def pool_geometry(
    x: np.ndarray,
    data_format: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil_mode: bool,
) -> list[WindowAxis]:
    """The geometry of each spatial axis of a pool over the array `x`."""
    axes = pool_axes(x.shape, data_format, ksize, strides, dilations, pads, ceil_mode)
    return [g for _, g in axes]


def pool_windows(
    x: np.ndarray, data_format: str, geometry: Sequence[WindowAxis], value: float
) -> np.ndarray:
    """Window view [N, C, *out, *ksize] of x (in `data_format`) padded with
    `value`, the end further where a ceil-mode partial window needs it."""
    pads = [(g.pb, g.end_pad) for g in geometry]
    v = pad_array(channels_first(x, data_format), [(0, 0), (0, 0), *pads], value=value)
    win = strided_windows(
        v, [g.k for g in geometry], [g.s for g in geometry], [g.d for g in geometry]
    )
    return win[(slice(None), slice(None), *(slice(g.out) for g in geometry))]


def max_pool(
    x: np.ndarray,
    data_format: str,
    geometry: Sequence[WindowAxis],
    lowest: float,
) -> np.ndarray:
    """The maximum of each window over any number of spatial axes, padded
    with `lowest` (padding never wins), in `data_format`."""
    win = pool_windows(x, data_format, geometry, lowest)
    return from_channels_first(win.max(axis=_window_axes(geometry)), data_format)


def avg_pool(
    x: np.ndarray,
    data_format: str,
    geometry: Sequence[WindowAxis],
    count_include_pad: bool,
) -> np.ndarray:
    """The mean of each window over any number of spatial axes: the divisor
    counts taps inside the input, or inside the padded input with
    `count_include_pad`; ceil-mode overhang is never counted."""
    total = pool_windows(x, data_format, geometry, 0.0).sum(axis=_window_axes(geometry))
    count = avg_divisor(geometry, count_include_pad).astype(total.dtype)
    return from_channels_first(total / count, data_format)


def _window_axes(geometry: Sequence[WindowAxis]) -> tuple[int, ...]:
    """The trailing window axes of `pool_windows`' view."""
    return tuple(range(-len(geometry), 0))


def spatial_values(values: Sequence[int], data_format: str) -> list[int]:
    """The spatial entries of a per-axis attribute in `data_format` order."""
    return [values[data_format.index(a)] for a in spatial_letters(data_format)]


def pad_pairs(pads: Sequence[int]) -> list[tuple[int, int]]:
    """Flattened pads as (begin, end) per spatial axis."""
    return list(zip(pads[0::2], pads[1::2], strict=True))


def convolve(
    v: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Grouped convolution (ONNX Conv, no bias) of a channels-first array
    `v` [N, C, *spatial] with a filter [O, C / groups, *kernel]: im2col and
    one batched matmul per group; [N, O, *out]."""
    cout, cg, *kernel = w.shape
    if v.shape[1] != cg * groups or v.shape[1] % groups:
        raise ValueError(
            f"input has {v.shape[1]} channels, filter expects {cg * groups} "
            f"(groups={groups})"
        )
    padded = pad_array(v, [(0, 0), (0, 0), *pad_pairs(pads)])
    win = strided_windows(padded, kernel, strides, dilations)
    rank = len(kernel)
    n, out = win.shape[0], win.shape[2 : 2 + rank]
    win = win.transpose(0, *range(2, 2 + rank), 1, *range(2 + rank, 2 + 2 * rank))
    taps = cg * int(np.prod(kernel))
    cols = win.reshape(n * int(np.prod(out)), groups, taps).transpose(1, 0, 2)
    wmat = w.reshape(groups, cout // groups, taps).transpose(0, 2, 1)
    y = np.matmul(cols, wmat).transpose(1, 0, 2).reshape(n, *out, cout)
    return np.moveaxis(y, -1, 1)


def transposed_convolve(
    v: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Grouped transposed convolution (ONNX ConvTranspose, no bias) of a
    channels-first array `v` [N, C, *spatial] with a filter [C, O / groups,
    *kernel]: a matmul to per-tap columns, a scatter-add of each tap into
    the full output (col2im), then the pads cropped and `output_padding`
    zeros added at the end; [N, O, *out]."""
    n, channels, *sizes = v.shape
    cin, og, *kernel = w.shape
    if channels != cin or channels % groups:
        raise ValueError(
            f"input has {channels} channels, filter expects {cin} (groups={groups})"
        )
    cg, rank = cin // groups, len(kernel)
    xm = np.moveaxis(v, 1, -1).reshape(-1, groups, cg).transpose(1, 0, 2)
    taps = np.matmul(xm, w.reshape(groups, cg, og * int(np.prod(kernel))))
    taps = taps.reshape(groups, n, *sizes, og, *kernel).transpose(
        1, *range(2, 2 + rank), 0, *range(2 + rank, 3 + 2 * rank)
    )
    full = [
        full_transposed_size(*axis)
        for axis in zip(sizes, kernel, strides, dilations, strict=True)
    ]
    y = np.zeros((n, *full, groups, og), dtype=taps.dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        at = (
            slice(t * d, t * d + s * (size - 1) + 1, s)
            for t, d, s, size in zip(tap, dilations, strides, sizes, strict=True)
        )
        y[(slice(None), *at)] += taps[(..., *tap)]
    crops = [
        (-begin, extra - end)
        for (begin, end), extra in zip(pad_pairs(pads), output_padding, strict=True)
    ]
    y = pad_array(y, [(0, 0), *crops, (0, 0), (0, 0)])
    return np.moveaxis(y.reshape(*y.shape[: 1 + rank], groups * og), -1, 1)
