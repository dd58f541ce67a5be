"""NumPy helpers shared by the ops' reference kernels (`numpy_kernel`).

Every kernel computes in the tensor's *origin* layout (NCHW or NHWC as the
`data_format` attribute says) and follows ONNX/onnxruntime semantics for the
equivalent ONNX op. float16/bfloat16 inputs are computed in float32 and the
result is cast back (`float32_compute`). Compute kernels return fresh arrays;
pure data-movement kernels (reshape, transpose, slice, ...) may return views
of their input, so callers must not modify results in place.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")

FORMATS = ("NCHW", "NHWC")
LOW_PRECISION = ("float16", "bfloat16")
"""The float dtypes computed in float32 (by name: bfloat16 is ml_dtypes', whose
import costs about a second, paid only by a model that has one)."""


def float32_compute(fn: Callable[P, R]) -> Callable[P, R]:
    """Run `fn` in float32 when its first operand is float16/bfloat16.

    All low-precision array operands (also inside list operands) are upcast to
    float32 and the result(s) are cast back to the first operand's dtype.
    """

    def up(a: Any) -> Any:
        if isinstance(a, list | tuple):
            return [up(v) for v in a]
        if isinstance(a, np.ndarray) and a.dtype.name in LOW_PRECISION:
            return a.astype(np.float32)
        return a

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        first = args[0][0] if isinstance(args[0], list | tuple) else args[0]
        dtype = np.asarray(first).dtype
        if dtype.name not in LOW_PRECISION:
            return fn(*args, **kwargs)
        out: Any = fn(*(up(a) for a in args), **kwargs)
        if isinstance(out, list):
            return [o.astype(dtype) for o in out]  # type: ignore[return-value]
        return out.astype(dtype)

    return wrapper


def check_format(data_format: str) -> None:
    """A ValueError unless `data_format` is NCHW or NHWC."""
    if data_format not in FORMATS:
        raise ValueError(f"unsupported data_format {data_format!r}")


def channel_axis(data_format: str, ndim: int) -> int:
    """Channel axis of an `ndim`-D tensor in `data_format` (N C ... / N ... C)."""
    check_format(data_format)
    return 1 if data_format == "NCHW" else ndim - 1


def spatial_array_axes(data_format: str, ndim: int) -> tuple[int, ...]:
    """All axes except batch (0) and channel."""
    c = channel_axis(data_format, ndim)
    return tuple(a for a in range(1, ndim) if a != c)


def per_channel(v: np.ndarray, data_format: str, ndim: int) -> np.ndarray:
    """Reshape a [C] vector so it broadcasts along the channel axis."""
    shape = [1] * ndim
    shape[channel_axis(data_format, ndim)] = -1
    return np.reshape(v, shape)


def pad_array(
    x: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    mode: str = "constant",
    value: float = 0.0,
) -> np.ndarray:
    """Pad with (begin, end) per axis; negative amounts crop (ONNX Pad).
    ValueError when `mode` cannot extend an axis that far (`pad_reach_error`)."""
    if (reason := pad_reach_error(x.shape, pairs, mode)) is not None:
        raise ValueError(reason)
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


def pad_reach_error(
    dims: Sequence[int], pairs: Sequence[tuple[int, int]], mode: str
) -> str | None:
    """Why `mode` padding cannot grow the axes of `dims` by `pairs`, or None.

    Padding applies to each axis as cropped by the negative amounts. ONNX
    Pad's `reflect` mirrors the axis around its first and last element, so
    each amount must be below the cropped length (at most `n - 1`; ONNX's
    spec and onnxruntime, where numpy would reflect again); `edge` repeats
    the first or last element and `wrap` repeats the axis, so the axis must
    not be empty. Unknown dims (negative) are checked when they are known.
    """
    if mode not in ("reflect", "edge", "wrap"):
        return None
    for axis, (dim, (begin, end)) in enumerate(zip(dims, pairs, strict=True)):
        if dim < 0:
            continue
        length = dim + min(begin, 0) + min(end, 0)
        for side, amount in (("before", begin), ("after", end)):
            if amount <= 0:
                continue
            if mode in ("edge", "wrap") and length <= 0:
                return (
                    f"'{mode}' padding of {amount} {side} axis {axis} needs a "
                    "non-empty axis, it has 0 elements"
                )
            if mode == "reflect" and amount > length - 1:
                return (
                    f"'reflect' padding of {amount} {side} axis {axis} must be "
                    f"below its length {max(length, 0)} (at most {max(length - 1, 0)})"
                )
    return None


def reduction_axes(axes: Sequence[int] | None) -> tuple[int, ...] | None:
    """Reduction axes; None or empty reduces over all axes (ONNX)."""
    return tuple(axes) if axes else None


def is_int(x: np.ndarray) -> bool:
    """Whether `x` holds integers."""
    return np.issubdtype(x.dtype, np.integer)


def highest(dtype: np.dtype) -> Any:
    """The highest value of a NumPy dtype (inf for floats, True for bool)."""
    if dtype == np.bool_:
        return True
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).max
    return np.inf


def lowest(dtype: np.dtype) -> Any:
    """The lowest value of a NumPy dtype (-inf for floats, False for bool)."""
    if dtype == np.bool_:
        return False
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min
    return -np.inf


def lp_norm(x: np.ndarray, p: float, axis: Any) -> np.ndarray:
    """`(sum |x|^p) ^ (1/p)` over `axis`, kept (p = 1 and 2 without a power)."""
    if p == 1:
        return np.abs(x).sum(axis=axis, keepdims=True)
    if p == 2:
        return np.sqrt((x * x).sum(axis=axis, keepdims=True))
    total = (np.abs(x) ** np.float32(p)).sum(axis=axis, keepdims=True)
    return total ** np.float32(1 / p)


def erf(x: Any) -> Any:
    """The Gauss error function (SciPy's, imported on first use: NumPy has
    none, and SciPy is slow to import)."""
    from scipy.special import erf as scipy_erf

    return scipy_erf(x)
