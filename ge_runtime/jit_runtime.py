"""What the JIT's generated code calls at run time: views, copies, GEMMs.

The vectoriser (`jit_vectorize`) plans everything it can at compile time
(axes, transposes, shapes); these helpers do the rest on the arrays:

- `strided_view` is a load or store of an affine access: a zero-copy view;
- `copy_into` copies a strided view into a buffer, moving each contiguous
  innermost run (an NC1HWC0 block of C0 floats) as one element, which is
  several times faster than NumPy's element loop for short runs;
- `pack` lays a (transposed) operand out as the contiguous matrix BLAS
  wants, into a preallocated buffer, or not at all when it already is one.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

RUN_BYTES = (8, 16, 32, 64, 128)
"""Innermost runs `copy_into` moves as one opaque element."""


def strided_view(
    base: np.ndarray, offset: int, shape: tuple, strides: tuple
) -> np.ndarray:
    """`as_strided` over a contiguous buffer from element `offset`."""
    return as_strided(base.reshape(-1)[offset:], shape, strides)


def copy_into(target: np.ndarray, source: np.ndarray) -> None:
    """`np.copyto(target, source)` for a C-contiguous `target` of the same
    shape and dtype, the innermost contiguous run moved as one element."""
    if source.ndim and source.shape[-1] > 1 and source.strides[-1] == source.itemsize:
        run = source.shape[-1] * source.itemsize
        if run in RUN_BYTES:
            opaque = np.dtype(f"V{run}")
            np.copyto(target.view(opaque)[..., 0], source.view(opaque)[..., 0])
            return
    np.copyto(target, source)


def pack(
    view: np.ndarray, shape: tuple[int, ...], out: np.ndarray | None = None
) -> np.ndarray:
    """`view` as a C-contiguous array of `shape`: itself when it already is
    contiguous, else copied into `out` (a new array when None)."""
    if view.flags.c_contiguous:
        return view.reshape(shape)
    if out is None:
        out = np.empty(view.shape, view.dtype)
    else:
        out = out.reshape(view.shape)
    copy_into(out, view)
    return out.reshape(shape)
