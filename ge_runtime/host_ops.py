"""NumPy host-op library: one reference kernel per ``ge`` op.

Every kernel computes in the tensor's *origin* layout (NCHW or NHWC as the
``data_format`` attribute says) and follows ONNX/onnxruntime semantics for the
equivalent ONNX op.  Operands are positional in the order of ``docs/OPS.md``,
attributes are keyword-only with the same names.  float16/bfloat16 inputs are
computed in float32 and the result is cast back; float32 stays float32.

Compute kernels return freshly allocated C-contiguous arrays; pure data
movement kernels (reshape, transpose, slice, ...) may return views of their
input, so callers must not modify results in place.

``HOST_OPS`` maps each op name (without the ``ge.`` prefix) to its kernel.
Some kernels (``abs``, ``pow``, ``slice``) shadow builtins, so only
``HOST_OPS`` is star-exported; import kernels by name or via the module.
"""

from __future__ import annotations

import builtins
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, ParamSpec, TypeVar

import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["HOST_OPS"]

P = ParamSpec("P")
R = TypeVar("R")

_FORMATS = ("NCHW", "NHWC")
_PAD_MODES = ("constant", "reflect", "edge")
_LOW_PRECISION = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------


def _float32_compute(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` in float32 when its first operand is float16/bfloat16.

    All low-precision array operands (also inside list operands) are upcast to
    float32 and the result(s) are cast back to the first operand's dtype.
    """

    def up(a: Any) -> Any:
        if isinstance(a, list | tuple):
            return [up(v) for v in a]
        if isinstance(a, np.ndarray) and a.dtype in _LOW_PRECISION:
            return a.astype(np.float32)
        return a

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        first = args[0][0] if isinstance(args[0], list | tuple) else args[0]
        dtype = np.asarray(first).dtype
        if dtype not in _LOW_PRECISION:
            return fn(*args, **kwargs)
        out: Any = fn(*(up(a) for a in args), **kwargs)
        if isinstance(out, list):
            return [o.astype(dtype) for o in out]  # type: ignore[return-value]
        return out.astype(dtype)

    return wrapper


def _check_format(data_format: str) -> None:
    if data_format not in _FORMATS:
        raise ValueError(f"unsupported data_format {data_format!r}")


def _channel_axis(data_format: str, ndim: int) -> int:
    """Channel axis of an ``ndim``-D tensor in ``data_format`` (N C ... / N ... C)."""
    _check_format(data_format)
    return 1 if data_format == "NCHW" else ndim - 1


def _spatial_axes(data_format: str, ndim: int) -> tuple[int, ...]:
    """All axes except batch (0) and channel."""
    c = _channel_axis(data_format, ndim)
    return tuple(a for a in range(1, ndim) if a != c)


def _per_channel(v: np.ndarray, data_format: str, ndim: int) -> np.ndarray:
    """Reshape a [C] vector so it broadcasts along the channel axis."""
    shape = [1] * ndim
    shape[_channel_axis(data_format, ndim)] = -1
    return np.reshape(v, shape)


def _hw(values: Sequence[int], data_format: str) -> tuple[int, int]:
    """(H, W) entries of a 4-value attribute given in data_format order."""
    _check_format(data_format)
    if len(values) != 4:
        raise ValueError(f"expected 4 values in {data_format} order, got {values}")
    return (values[2], values[3]) if data_format == "NCHW" else (values[1], values[2])


def _to_nhwc(x: np.ndarray, data_format: str) -> np.ndarray:
    _check_format(data_format)
    return x.transpose(0, 2, 3, 1) if data_format == "NCHW" else x


def _from_nhwc(y: np.ndarray, data_format: str) -> np.ndarray:
    _check_format(data_format)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if data_format == "NCHW" else y)


def _pad(
    x: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    mode: str = "constant",
    value: float = 0.0,
) -> np.ndarray:
    """Pad with (begin, end) per axis; negative amounts crop (ONNX Pad)."""
    crop = tuple(
        builtins.slice(-min(b, 0), n + min(e, 0))
        for n, (b, e) in zip(x.shape, pairs, strict=True)
    )
    grow = [(max(b, 0), max(e, 0)) for b, e in pairs]
    x = x[crop]
    if not any(b or e for b, e in grow):
        return x
    if mode == "constant":
        return np.pad(x, grow, mode="constant", constant_values=value)
    return np.pad(x, grow, mode=mode)


def _pad_hw(
    x: np.ndarray, top: int, bottom: int, left: int, right: int, value: float = 0.0
) -> np.ndarray:
    """Constant-pad the H and W axes of an NHWC tensor."""
    return _pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], value=value)


def _windows(
    x: np.ndarray,
    ksize: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int] = (1, 1),
) -> np.ndarray:
    """Strided view (N, Ho, Wo, C, kh, kw) of the windows of a padded NHWC tensor."""
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    win = sliding_window_view(x, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
    return win[:, ::sh, ::sw, :, ::dh, ::dw]


def _filter_to_oihw(w: np.ndarray, filter_format: str) -> np.ndarray:
    """Conv2d filter in OIHW from its origin format (NCHW=OIHW, HWCN, NHWC=OHWI)."""
    if filter_format == "NCHW":
        return w
    if filter_format == "HWCN":
        return w.transpose(3, 2, 0, 1)
    if filter_format == "NHWC":
        return w.transpose(0, 3, 1, 2)
    raise ValueError(f"unsupported filter_format {filter_format!r}")


def _check_channels(c: int, filter_c: int, groups: int) -> None:
    """Input channels must match the filter's input channels and groups."""
    if c != filter_c or c % groups:
        raise ValueError(
            f"input has {c} channels, filter expects {filter_c} (groups={groups})"
        )


def _axes(axes: Sequence[int] | None) -> tuple[int, ...] | None:
    """Reduction axes; ``None`` or empty reduces over all axes (ONNX)."""
    return tuple(axes) if axes else None


def _lowest(dtype: np.dtype) -> Any:
    """The lowest value of a NumPy dtype (-inf for floats, False for bool)."""
    if dtype == np.bool_:
        return False
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min
    return -np.inf


def _is_int(x: np.ndarray) -> bool:
    return np.issubdtype(x.dtype, np.integer)


# --------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------


@_float32_compute
def conv2d(
    x: np.ndarray,
    filter: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    strides: Sequence[int] = (1, 1, 1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    dilations: Sequence[int] = (1, 1, 1, 1),
    groups: int = 1,
    data_format: str = "NCHW",
    filter_format: str = "NCHW",
) -> np.ndarray:
    """2-D (grouped) convolution, ONNX Conv; im2col + batched matmul per group."""
    w = _filter_to_oihw(filter, filter_format)
    cout, cg, kh, kw = w.shape
    xh = _to_nhwc(x, data_format)
    _check_channels(xh.shape[3], cg * groups, groups)
    xp = _pad_hw(xh, *pads)
    win = _windows(xp, (kh, kw), _hw(strides, data_format), _hw(dilations, data_format))
    n, ho, wo = win.shape[:3]
    cols = win.reshape(n * ho * wo, groups, cg * kh * kw).transpose(1, 0, 2)
    wmat = w.reshape(groups, cout // groups, cg * kh * kw).transpose(0, 2, 1)
    y = np.matmul(cols, wmat).transpose(1, 0, 2).reshape(n, ho, wo, cout)
    if bias is not None:
        y = y + bias
    return _from_nhwc(y, data_format)


@_float32_compute
def conv2d_transpose(
    x: np.ndarray,
    filter: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    strides: Sequence[int] = (1, 1, 1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    dilations: Sequence[int] = (1, 1, 1, 1),
    groups: int = 1,
    data_format: str = "NCHW",
    output_padding: Sequence[int] = (0, 0),
) -> np.ndarray:
    """Transposed convolution, ONNX ConvTranspose; filter [Cin, Cout/g, kh, kw].

    Matmul to per-tap columns, then col2im scatter-add (one slice per tap).
    """
    cin, og, kh, kw = filter.shape
    cg = cin // groups
    xh = _to_nhwc(x, data_format)
    n, h, w, c = xh.shape
    _check_channels(c, cin, groups)
    (sh, sw), (dh, dw) = _hw(strides, data_format), _hw(dilations, data_format)
    xm = xh.reshape(n * h * w, groups, cg).transpose(1, 0, 2)
    taps = np.matmul(xm, filter.reshape(groups, cg, og * kh * kw))
    taps = taps.reshape(groups, n, h, w, og, kh, kw).transpose(1, 2, 3, 0, 4, 5, 6)
    full_h, full_w = sh * (h - 1) + dh * (kh - 1) + 1, sw * (w - 1) + dw * (kw - 1) + 1
    full = np.zeros((n, full_h, full_w, groups, og), dtype=taps.dtype)
    for i in range(kh):
        for j in range(kw):
            hs = builtins.slice(i * dh, i * dh + sh * (h - 1) + 1, sh)
            ws = builtins.slice(j * dw, j * dw + sw * (w - 1) + 1, sw)
            full[:, hs, ws] += taps[..., i, j]
    top, bottom, left, right = pads
    oph, opw = output_padding
    y = _pad_hw(
        full.reshape(n, full_h, full_w, groups * og),
        -top,
        oph - bottom,
        -left,
        opw - right,
    )
    if bias is not None:
        y = y + bias
    return _from_nhwc(y, data_format)


# --------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------


@_float32_compute
def batch_norm(
    x: np.ndarray,
    scale: np.ndarray,
    offset: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    *,
    epsilon: float = 1e-5,
    data_format: str = "NCHW",
) -> np.ndarray:
    """Inference batch normalisation (ONNX BatchNormalization)."""
    a = scale / np.sqrt(variance + epsilon)
    b = offset - mean * a
    nd = x.ndim
    return x * _per_channel(a, data_format, nd) + _per_channel(b, data_format, nd)


@_float32_compute
def instance_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    *,
    epsilon: float = 1e-5,
    data_format: str = "NCHW",
) -> np.ndarray:
    """Instance normalisation over the spatial axes (ONNX InstanceNormalization)."""
    spatial = _spatial_axes(data_format, x.ndim)
    mu = x.mean(axis=spatial, keepdims=True)
    var = x.var(axis=spatial, keepdims=True)
    g = _per_channel(gamma, data_format, x.ndim)
    return (x - mu) / np.sqrt(var + epsilon) * g + _per_channel(
        beta, data_format, x.ndim
    )


@_float32_compute
def lrn(
    x: np.ndarray,
    *,
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    bias: float = 1.0,
    data_format: str = "NCHW",
) -> np.ndarray:
    """Local response normalisation across channels (ONNX LRN formula)."""
    c = _channel_axis(data_format, x.ndim)
    sq = np.moveaxis(x * x, c, -1)
    lo = (size - 1) // 2
    sq = _pad(sq, [(0, 0)] * (x.ndim - 1) + [(lo, size - 1 - lo)])
    ssum = np.moveaxis(sliding_window_view(sq, size, axis=-1).sum(axis=-1), -1, c)
    return x / (bias + (alpha / size) * ssum) ** beta


@_float32_compute
def bias_add(
    x: np.ndarray, bias: np.ndarray, *, data_format: str = "NCHW"
) -> np.ndarray:
    """Add a [C] bias on the channel axis."""
    return x + _per_channel(bias, data_format, x.ndim)


# --------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------


@_float32_compute
def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0)."""
    return np.maximum(x, 0)


@_float32_compute
def sigmoid(x: np.ndarray) -> np.ndarray:
    """Logistic sigmoid, overflow-free: exp(-log(1 + exp(-x)))."""
    return np.exp(-np.logaddexp(0, -x))


@_float32_compute
def tanh(x: np.ndarray) -> np.ndarray:
    """Hyperbolic tangent."""
    return np.tanh(x)


@_float32_compute
def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + exp(x)), overflow-free."""
    return np.logaddexp(0, x)


def neg(x: np.ndarray) -> np.ndarray:
    """-x."""
    return np.negative(x)


def abs(x: np.ndarray) -> np.ndarray:
    """|x|."""
    return np.absolute(x)


@_float32_compute
def exp(x: np.ndarray) -> np.ndarray:
    """e**x."""
    return np.exp(x)


@_float32_compute
def sqrt(x: np.ndarray) -> np.ndarray:
    """Square root."""
    return np.sqrt(x)


@_float32_compute
def log(x: np.ndarray) -> np.ndarray:
    """Natural logarithm."""
    return np.log(x)


@_float32_compute
def reciprocal(x: np.ndarray) -> np.ndarray:
    """1 / x."""
    return np.reciprocal(x)


def identity(x: np.ndarray) -> np.ndarray:
    """x itself."""
    return x


@_float32_compute
def leaky_relu(x: np.ndarray, *, alpha: float = 0.01) -> np.ndarray:
    """x if x >= 0 else alpha * x."""
    return np.where(x >= 0, x, alpha * x)


@_float32_compute
def elu(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


@_float32_compute
def selu(
    x: np.ndarray,
    *,
    alpha: float = 1.67326319217681884765625,
    gamma: float = 1.05070102214813232421875,
) -> np.ndarray:
    """gamma * (x if x > 0 else alpha * (exp(x) - 1))  (ONNX Selu)."""
    return gamma * elu(x, alpha=alpha)


@_float32_compute
def prelu(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """x if x >= 0 else weight * x; weight broadcasts to x (ONNX PRelu)."""
    return np.where(x >= 0, x, weight * x).astype(x.dtype, copy=False)


@_float32_compute
def clip(
    x: np.ndarray, *, min: float | None = None, max: float | None = None
) -> np.ndarray:
    """Clamp x to [min, max]; a missing bound is unbounded (ONNX Clip).

    The result keeps x's dtype: on integers the bounds are taken inside the
    dtype's range (an infinite bound clamps nothing).
    """
    if _is_int(x):
        info = np.iinfo(x.dtype)
        if min is not None:
            min = x.dtype.type(np.ceil(np.clip(min, info.min, info.max)))
        if max is not None:
            max = x.dtype.type(np.floor(np.clip(max, info.min, info.max)))
    return np.clip(x, min, max)


@_float32_compute
def add(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 + x2 with NumPy broadcasting."""
    return np.add(x1, x2)


@_float32_compute
def sub(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 - x2 with NumPy broadcasting."""
    return np.subtract(x1, x2)


@_float32_compute
def mul(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 * x2 with NumPy broadcasting."""
    return np.multiply(x1, x2)


@_float32_compute
def div(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 / x2; integer division truncates toward zero (ONNX Div)."""
    if not (_is_int(x1) and _is_int(x2)):
        return np.divide(x1, x2)
    q, r = np.divmod(x1, x2)
    return np.where((r != 0) & ((x1 < 0) != (x2 < 0)), q + 1, q)


@_float32_compute
def pow(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 ** x2; the result has x1's dtype (ONNX Pow)."""
    return np.power(x1, x2, dtype=np.result_type(x1, x2, np.float32)).astype(
        x1.dtype, copy=False
    )


@_float32_compute
def maximum(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Elementwise maximum with NumPy broadcasting."""
    return np.maximum(x1, x2)


@_float32_compute
def minimum(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Elementwise minimum with NumPy broadcasting."""
    return np.minimum(x1, x2)


@_float32_compute
def add_n(inputs: Sequence[np.ndarray]) -> np.ndarray:
    """Sum of all inputs with NumPy broadcasting (ONNX Sum)."""
    return functools.reduce(np.add, inputs)


# --------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------


class _PoolAxis(NamedTuple):
    """Geometry of one pooled spatial axis."""

    size: int
    k: int
    s: int
    pb: int
    pe: int
    out: int


def _pool_geometry(
    x: np.ndarray,
    ksize: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    data_format: str,
    ceil_mode: bool,
) -> tuple[_PoolAxis, _PoolAxis]:
    """H and W geometry; in ceil mode a window starting in the end pad is dropped."""
    top, bottom, left, right = pads
    axes = []
    for size, k, s, pb, pe in zip(
        _to_nhwc(x, data_format).shape[1:3],
        _hw(ksize, data_format),
        _hw(strides, data_format),
        (top, left),
        (bottom, right),
        strict=True,
    ):
        out = (size + pb + pe - k + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= size + pb:
            out -= 1
        axes.append(_PoolAxis(size, k, s, pb, pe, out))
    return axes[0], axes[1]


def _pool_windows(
    x: np.ndarray, geo: tuple[_PoolAxis, _PoolAxis], data_format: str, value: float
) -> np.ndarray:
    """Window view (N, Ho, Wo, C, kh, kw) of x padded with ``value``.

    The end is padded further when needed so a ceil-mode partial window exists.
    """
    ends = [
        g.pe + max((g.out - 1) * g.s + g.k - (g.size + g.pb + g.pe), 0) for g in geo
    ]
    h, w = geo
    xp = _pad_hw(_to_nhwc(x, data_format), h.pb, ends[0], w.pb, ends[1], value=value)
    return _windows(xp, (h.k, w.k), (h.s, w.s))[:, : h.out, : w.out]


def _avg_counts(g: _PoolAxis, count_include_pad: bool) -> np.ndarray:
    """Per-window element counts along one axis (ONNX AveragePool divisor)."""
    start = np.arange(g.out) * g.s - g.pb
    lo, hi = (-g.pb, g.size + g.pe) if count_include_pad else (0, g.size)
    return np.minimum(start + g.k, hi) - np.maximum(start, lo)


@_float32_compute
def max_pool(
    x: np.ndarray,
    *,
    ksize: Sequence[int],
    strides: Sequence[int] = (1, 1, 1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    data_format: str = "NCHW",
    ceil_mode: bool = False,
) -> np.ndarray:
    """Max pooling (ONNX MaxPool); padding never wins the max."""
    geo = _pool_geometry(x, ksize, strides, pads, data_format, ceil_mode)
    low = np.iinfo(x.dtype).min if _is_int(x) else -np.inf
    win = _pool_windows(x, geo, data_format, low)
    return _from_nhwc(win.max(axis=(-2, -1)), data_format)


@_float32_compute
def avg_pool(
    x: np.ndarray,
    *,
    ksize: Sequence[int],
    strides: Sequence[int] = (1, 1, 1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    data_format: str = "NCHW",
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Average pooling (ONNX AveragePool).

    The divisor counts window elements inside the input, or inside the padded
    input with ``count_include_pad``; ceil-mode overhang is never counted.
    """
    geo = _pool_geometry(x, ksize, strides, pads, data_format, ceil_mode)
    total = _pool_windows(x, geo, data_format, 0.0).sum(axis=(-2, -1))
    ch, cw = (_avg_counts(g, count_include_pad) for g in geo)
    count = np.outer(ch, cw).astype(total.dtype)[None, :, :, None]
    return _from_nhwc(total / count, data_format)


@_float32_compute
def global_avg_pool(x: np.ndarray, *, data_format: str = "NCHW") -> np.ndarray:
    """Mean over H and W, keeping them as size 1."""
    return x.mean(axis=_spatial_axes(data_format, x.ndim), keepdims=True)


@_float32_compute
def global_max_pool(x: np.ndarray, *, data_format: str = "NCHW") -> np.ndarray:
    """Max over H and W, keeping them as size 1."""
    return x.max(axis=_spatial_axes(data_format, x.ndim), keepdims=True)


# --------------------------------------------------------------------------
# Matrix products
# --------------------------------------------------------------------------


@_float32_compute
def matmul(
    x1: np.ndarray,
    x2: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    transpose_x1: bool = False,
    transpose_x2: bool = False,
) -> np.ndarray:
    """Rank-2 matrix product op(x1) @ op(x2) (+ bias broadcast)."""
    y = np.matmul(x1.T if transpose_x1 else x1, x2.T if transpose_x2 else x2)
    return y if bias is None else y + bias


@_float32_compute
def batch_matmul(
    x1: np.ndarray, x2: np.ndarray, *, adj_x1: bool = False, adj_x2: bool = False
) -> np.ndarray:
    """Batched matrix product with NumPy broadcasting; adj_* transposes last 2 axes."""
    a = np.swapaxes(x1, -1, -2) if adj_x1 else x1
    b = np.swapaxes(x2, -1, -2) if adj_x2 else x2
    return np.matmul(a, b)


@_float32_compute
def gemm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    trans_a: bool = False,
    trans_b: bool = False,
) -> np.ndarray:
    """alpha * op(a) @ op(b) + beta * c (ONNX Gemm)."""
    y = alpha * matmul(a, b, transpose_x1=trans_a, transpose_x2=trans_b)
    return y if c is None else y + beta * c


# --------------------------------------------------------------------------
# Shape and data movement
# --------------------------------------------------------------------------


def concat(inputs: Sequence[np.ndarray], *, axis: int) -> np.ndarray:
    """Concatenate along ``axis``."""
    return np.concatenate(inputs, axis=axis)


def split(x: np.ndarray, *, axis: int, sizes: Sequence[int]) -> list[np.ndarray]:
    """Split along ``axis`` into pieces of the given sizes (must sum to the dim)."""
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"split sizes {sizes} do not sum to dim {x.shape[axis]}")
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def slice(
    x: np.ndarray,
    *,
    begins: Sequence[int],
    ends: Sequence[int],
    axes: Sequence[int] | None = None,
    steps: Sequence[int] | None = None,
) -> np.ndarray:
    """ONNX Slice: negative indices count from the end, bounds are clamped."""
    axes = range(len(begins)) if axes is None else axes
    steps = [1] * len(begins) if steps is None else steps
    index = [builtins.slice(None)] * x.ndim
    for b, e, a, s in zip(begins, ends, axes, steps, strict=True):
        dim = x.shape[a]
        if s == 0:
            raise ValueError("slice step must be non-zero")
        b, e = (b + dim if b < 0 else b), (e + dim if e < 0 else e)
        if s > 0:
            b, e = min(max(b, 0), dim), min(max(e, 0), dim)
        else:
            b, e = min(max(b, 0), dim - 1), min(max(e, -1), dim - 1)
        index[a] = builtins.slice(b, None if e < 0 else e, s)
    return x[tuple(index)]


def gather(x: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """Take ``indices`` (negative ones count from the end) along ``axis``."""
    return np.take(x, indices, axis=axis)


def tile(x: np.ndarray, *, multiples: Sequence[int]) -> np.ndarray:
    """Repeat x ``multiples[i]`` times along each axis."""
    return np.tile(x, multiples)


def pad(
    x: np.ndarray,
    *,
    paddings: Sequence[int],
    mode: str = "constant",
    value: float = 0.0,
) -> np.ndarray:
    """ONNX Pad; paddings [b0.., e0..], negative values crop."""
    if mode not in _PAD_MODES:
        raise ValueError(f"unsupported pad mode {mode!r}")
    n = x.ndim
    return _pad(x, list(zip(paddings[:n], paddings[n:], strict=True)), mode, value)


def reshape(x: np.ndarray, *, shape: Sequence[int]) -> np.ndarray:
    """Reshape; 0 copies the input dim, one -1 is inferred (ONNX Reshape)."""
    return np.reshape(x, [x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


def flatten(x: np.ndarray, *, axis: int = 1) -> np.ndarray:
    """Flatten to 2-D: dims before ``axis`` and from ``axis`` on (ONNX Flatten)."""
    return np.reshape(x, (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))))


def squeeze(x: np.ndarray, *, axes: Sequence[int] | None = None) -> np.ndarray:
    """Remove the given size-1 axes (all size-1 axes when empty/None)."""
    return np.squeeze(x, axis=_axes(axes))


def unsqueeze(x: np.ndarray, *, axes: Sequence[int]) -> np.ndarray:
    """Insert size-1 axes at ``axes`` (positions in the output rank)."""
    return np.expand_dims(x, tuple(axes))


def expand_dims(x: np.ndarray, *, axis: int) -> np.ndarray:
    """Insert one size-1 axis at ``axis``."""
    return unsqueeze(x, axes=[axis])


def transpose(x: np.ndarray, *, perm: Sequence[int] | None = None) -> np.ndarray:
    """Permute axes (reverse them when ``perm`` is None)."""
    return np.transpose(x, perm)


def permute(x: np.ndarray, *, order: Sequence[int]) -> np.ndarray:
    """GE/Caffe Permute: transpose with ``order``."""
    return transpose(x, perm=order)


# --------------------------------------------------------------------------
# Softmax and reductions
# --------------------------------------------------------------------------


@_float32_compute
def softmax(x: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """Softmax along one axis (ONNX opset >= 13)."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@_float32_compute
def log_softmax(x: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """Log of softmax along one axis, computed stably."""
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


@_float32_compute
def reduce_sum(
    x: np.ndarray, *, axes: Sequence[int] | None = None, keep_dims: bool = False
) -> np.ndarray:
    """Sum over ``axes`` (all when None/empty)."""
    return np.asarray(np.sum(x, axis=_axes(axes), keepdims=keep_dims, dtype=x.dtype))


@_float32_compute
def reduce_mean(
    x: np.ndarray, *, axes: Sequence[int] | None = None, keep_dims: bool = False
) -> np.ndarray:
    """Mean over ``axes`` (all when None/empty); keeps the input dtype."""
    m = np.mean(x, axis=_axes(axes), keepdims=keep_dims)
    return np.asarray(m).astype(x.dtype, copy=False)


@_float32_compute
def reduce_max(
    x: np.ndarray, *, axes: Sequence[int] | None = None, keep_dims: bool = False
) -> np.ndarray:
    """Max over ``axes`` (all when None/empty); over an empty set it is the
    dtype's lowest value (-inf, the integer minimum, False), as in ONNX."""
    return np.asarray(
        np.max(x, axis=_axes(axes), keepdims=keep_dims, initial=_lowest(x.dtype))
    )


def cast(x: np.ndarray, *, dst_type: str) -> np.ndarray:
    """Convert to the NumPy dtype named ``dst_type`` (e.g. "float16", "bfloat16")."""
    return np.asarray(x).astype(np.dtype(dst_type))


HOST_OPS: dict[str, Callable[..., Any]] = {
    name: fn
    for name, fn in list(globals().items())
    if inspect.isfunction(fn) and fn.__module__ == __name__ and name[0] != "_"
}
