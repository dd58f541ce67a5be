"""What the JIT's generated code calls at run time: views, copies, GEMMs.

The NumPy emitter (`emit.numpy_nest`) plans everything it can at compile time
(axes, transposes, shapes); these helpers do the rest on the arrays:

- `strided_view` is a load or store of an affine access: a zero-copy view;
- `copy_into` copies a strided view into a buffer, moving each contiguous
  innermost run (an NC1HWC0 block of C0 floats) as one element, which is
  up to several times faster than NumPy's element loop for short runs,
  and a large copy runs as a C loop split over the kernels' threads
  (`STRIDED_COPY`) when they are more than one;
- `pack` lays a (transposed) operand out as the contiguous matrix BLAS
  wants, into a preallocated buffer, or not at all when it already is one.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from functools import cache

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ge_runtime.jit import c_runtime

MIN_RUN_BYTES = 8
"""Innermost runs from this size on move as one opaque element (`copy_into`)."""

PARALLEL_COPY_BYTES = 1 << 18
"""Copies (`copy_into`) of at least this many bytes run split over the
kernels' threads (`STRIDED_COPY`): the im2col packs of ResNet-50's GEMM
operands (0.9-1.8 MB each, 3.4 ms a run at 1 thread, most of its serial
NumPy) are NumPy element loops on one core otherwise."""

STRIDED_COPY = """
#include <stdint.h>
#include <string.h>
#define GE_ROW(type) for (int64_t j = 0; j < count; j++) \\
    *(type *) (t + j * step) = *(const type *) (s + j * pace)
void strided_copy(char *target, const char *source, const int64_t *geometry) {
    int64_t rank = geometry[0], item = geometry[1];
    const int64_t *shape = geometry + 2, *to = shape + rank, *from = to + rank;
    int64_t count = shape[rank - 1], step = to[rank - 1], pace = from[rank - 1];
    int64_t rows = 1;
    for (int64_t d = 1; d < rank - 1; d++) rows *= shape[d];
    #pragma omp parallel for num_threads(ge_threads) if(ge_threads > 1) schedule(static)
    for (int64_t i = 0; i < shape[0]; i++) {
        int64_t index[64] = {0};
        char *t = target + i * to[0];
        const char *s = source + i * from[0];
        for (int64_t row = 0; row < rows; row++) {
            switch (item) {
            case 1: GE_ROW(uint8_t); break;
            case 2: GE_ROW(uint16_t); break;
            case 4: GE_ROW(uint32_t); break;
            case 8: GE_ROW(uint64_t); break;
            default:
                for (int64_t j = 0; j < count; j++)
                    memcpy(t + j * step, s + j * pace, item);
            }
            for (int64_t d = rank - 2; d >= 1; d--) {
                t += to[d];
                s += from[d];
                if (++index[d] < shape[d]) break;
                t -= to[d] * shape[d];
                s -= from[d] * shape[d];
                index[d] = 0;
            }
        }
    }
}
"""
"""A copy of rank 2 to 64, any strides, its outermost axis split over the
threads, its innermost one a loop moving elements of 1-8 bytes as integers:
`geometry` is the rank, the element size, then the shape, the target's and
the source's byte strides (after `c_runtime.THREADS`)."""

COPY_LIBRARY = c_runtime.THREADS + STRIDED_COPY
"""The translation unit of `STRIDED_COPY` (what is loaded and what an
`.om` carries: `build_helper_kernels`)."""


def strided_view(
    base: np.ndarray, offset: int, shape: tuple, strides: tuple
) -> np.ndarray:
    """A view of `shape` and byte `strides` from element `offset` of a buffer
    (an `ndarray` over its memory: several times faster than `as_strided`)."""
    if base.flags.c_contiguous:
        return np.ndarray(shape, base.dtype, base, offset * base.itemsize, strides)
    return as_strided(base.reshape(-1)[offset:], shape, strides)


def copy_into(target: np.ndarray, source: np.ndarray) -> None:
    """`np.copyto(target, source)` (same shape and dtype), the innermost run
    moved as one element when it is contiguous in both."""
    if (
        source.ndim
        and source.shape[-1] > 1
        and source.strides[-1] == source.itemsize == target.strides[-1]
    ):
        run = source.shape[-1] * source.itemsize
        if run >= MIN_RUN_BYTES:
            opaque = np.dtype(f"V{run}")
            target, source = target.view(opaque)[..., 0], source.view(opaque)[..., 0]
    if (
        target.ndim > 1
        and source.nbytes >= PARALLEL_COPY_BYTES
        and source.dtype == target.dtype
        and c_runtime.kernel_threads() > 1
        and not np.may_share_memory(target, source)
    ):
        _strided_copy(target, np.broadcast_to(source, target.shape))
        return
    np.copyto(target, source)


def _strided_copy(target: np.ndarray, source: np.ndarray) -> None:
    """`np.copyto(target, source)` of the same shape and dtype, not
    overlapping, by `STRIDED_COPY` on the kernels' threads."""
    geometry = np.array(
        [target.ndim, target.itemsize, *target.shape, *target.strides, *source.strides],
        np.int64,
    )
    _copy_kernel()(target.ctypes.data, source.ctypes.data, geometry.ctypes.data)


@cache
def _copy_kernel() -> Callable[..., None]:
    """`STRIDED_COPY`'s function (its library compiled, or found, once)."""
    return c_runtime.kernel(COPY_LIBRARY, "strided_copy", 3)


def build_helper_kernels() -> None:
    """Compile the runtime's own C kernels (`STRIDED_COPY`) into the code
    cache, so an `.om` carries them with the model's (`ge_xdsl.run.
    with_kernels`) and a served run compiles nothing."""
    c_runtime.library_file(COPY_LIBRARY)


def add_into(product: np.ndarray, start: np.ndarray, target: np.ndarray) -> None:
    """`target = start + product` where `product` is a GEMM's contiguous result
    and `target` a (transposed) view of the output: the add runs over the
    product in its own order (long inner loops), then one relayout copy moves
    it, unless the output's innermost axis is not contiguous."""
    contiguous = target.ndim and target.strides[-1] == target.itemsize
    if not contiguous or product.dtype != target.dtype:
        np.add(start, product, out=target)
        return
    np.add(product, start, out=product)
    copy_into(target, product)


def merge_dims(
    buffer: np.ndarray,
    perm: tuple[int, ...],
    shape: tuple[int, ...],
    out: np.ndarray | None = None,
) -> np.ndarray:
    """`buffer` transposed by `perm` and reshaped to `shape`: a view when the
    transpose keeps it contiguous, else a copy (into `out` if given)."""
    permuted = buffer.transpose(perm)
    if permuted.flags.c_contiguous:
        return permuted.reshape(shape)
    if out is None:
        out = np.empty(permuted.shape, buffer.dtype)
    copy_into(out, permuted)
    return out.reshape(shape)


THIN = 4
"""Columns (or rows) at most this many make a column-major GEMM operand slow."""


def pack(
    view: np.ndarray, shape: tuple[int, ...], out: np.ndarray | None = None
) -> np.ndarray:
    """`view` as an array of `shape` BLAS reads without copying it: itself
    reshaped when it is one (rows of unit stride, any row pitch), else
    copied into `out` (a new array when None).

    A column-major matrix is copied too when it is thin (OpenBLAS multiplies
    a 288x2 one 3-10x slower than its row-major copy) or when the copy is
    made once (`out` None: a weight packed at bind)."""
    matrix = _reshaped(view, shape)
    if matrix is not None and _blasable(matrix):
        row_major = matrix.ndim < 2 or matrix.strides[-1] == matrix.itemsize
        thin = matrix.ndim >= 2 and min(matrix.shape[-2:]) <= THIN
        if row_major or not (thin or out is None):
            return matrix
    if out is None:
        out = np.empty(view.shape, view.dtype)
        copy_into(out, view)
        release_mapped_pages(view)
        return out.reshape(shape)
    out = out.reshape(view.shape)
    copy_into(out, view)
    return out.reshape(shape)


def release_mapped_pages(view: np.ndarray) -> None:
    """Drop the pages of a read-only file mapping that `view` reads from
    this process (a weight of an offline model, once packed): they stay in
    the page cache and are read again if touched, so the packed copy and
    its source are not both resident. Anything else: nothing."""
    base = view
    while isinstance(base, np.ndarray):
        base = base.base
    mapping = base.obj if isinstance(base, memoryview) else base
    if not isinstance(mapping, mmap.mmap) or view.size == 0:
        return
    whole = np.frombuffer(mapping, np.uint8)
    if whole.flags.writeable:  # copy-on-write: its pages may hold changes
        return
    start = whole.ctypes.data
    low = high = view.ctypes.data - start
    for extent, stride in zip(view.shape, view.strides, strict=True):
        reach = (extent - 1) * stride
        low, high = (low + reach, high) if stride < 0 else (low, high + reach)
    first = low - low % mmap.PAGESIZE
    end = min(high + view.itemsize, len(mapping))
    if end > first:
        mapping.madvise(mmap.MADV_DONTNEED, first, end - first)


def _reshaped(view: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """`view` with `shape` as a view (None if that needs a copy).

    Asked with `copy=False` (NumPy >= 2.1): assigning `.shape` instead makes
    the whole copy before it finds out that it must refuse."""
    try:
        return np.reshape(view, shape, copy=False)
    except ValueError:
        return None
    except TypeError:  # NumPy < 2.1: no `copy` argument
        reshaped = view.view()
        try:
            reshaped.shape = shape
        except AttributeError:
            return None
        return reshaped


def _blasable(matrix: np.ndarray) -> bool:
    """Whether BLAS reads the last two axes in place (row- or column-major,
    aligned: NumPy multiplies a misaligned operand, a weight at an odd
    offset of a mapped model file, with its own slow loops)."""
    if not matrix.flags.aligned:
        return False
    item = matrix.itemsize
    *_, rows, columns = matrix.shape
    *_, row_stride, column_stride = matrix.strides
    if rows <= 1 or columns <= 1:
        return matrix.flags.c_contiguous
    row_major = column_stride == item and row_stride >= columns * item
    column_major = row_stride == item and column_stride >= rows * item
    return (
        row_major or column_major
    ) and row_stride % item == column_stride % item == 0
