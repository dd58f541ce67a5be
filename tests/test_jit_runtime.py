"""The JIT's run-time helpers (`ge_runtime.jit.runtime`): packing, copies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_runtime.jit import c_runtime, runtime
from ge_runtime.jit.runtime import copy_into, pack


@st.composite
def strided_views(draw):
    """A view of a random buffer: odd extents (C0-padded channel counts
    3, 17, 33 among them), some axes sliced with a step, axes permuted."""
    shape = draw(
        st.lists(st.sampled_from([1, 2, 3, 5, 16, 17, 33]), min_size=1, max_size=4)
    )
    steps = [draw(st.sampled_from([1, 1, 2])) for _ in shape]
    base = np.arange(int(np.prod([n * s for n, s in zip(shape, steps, strict=True)])))
    base = base.astype(np.float32).reshape(
        [n * s for n, s in zip(shape, steps, strict=True)]
    )
    view = base[tuple(slice(None, None, s) for s in steps)]
    perm = draw(st.permutations(range(len(shape))))
    return view.transpose(perm)


@settings(max_examples=200, deadline=None)
@given(strided_views(), st.booleans())
def test_pack_is_the_contiguous_matrix(view, into_buffer):
    rows = view.shape[0]
    shape = (rows, view.size // rows)
    out = np.full(view.size, np.nan, np.float32) if into_buffer else None
    packed = pack(view, shape, out)
    assert packed.shape == shape
    np.testing.assert_array_equal(packed, np.ascontiguousarray(view).reshape(shape))


def test_pack_returns_a_view_when_blas_reads_it_in_place():
    buffer = np.arange(17 * 33 * 16, dtype=np.float32).reshape(17, 33, 16)
    packed = pack(buffer, (17 * 33, 16), np.empty(0, np.float32))
    assert np.shares_memory(packed, buffer)
    transposed = buffer.reshape(17 * 33, 16).T  # column-major: BLAS takes it too
    scratch = np.empty(transposed.size, np.float32)
    assert np.shares_memory(pack(transposed, (16, 17 * 33), scratch), buffer)


def test_pack_copies_a_thin_or_once_packed_column_major_matrix():
    """OpenBLAS is slow on a column-major operand of a few columns; a
    matrix packed once (no buffer: a weight at bind) is made row-major."""
    thin = np.arange(288 * 2, dtype=np.float32).reshape(2, 288).T
    scratch = np.empty(thin.size, np.float32)
    packed = pack(thin, (288, 2), scratch)
    assert np.shares_memory(packed, scratch) and packed.flags.c_contiguous
    np.testing.assert_array_equal(packed, thin)
    wide = np.arange(16 * 33, dtype=np.float32).reshape(33, 16).T
    once = pack(wide, (16, 33))
    assert not np.shares_memory(once, wide) and once.flags.c_contiguous
    np.testing.assert_array_equal(once, wide)


def test_pack_of_a_window_view_copies_once_into_the_buffer():
    """An im2col window (C1 blocks outside the pixels) is not a matrix: it is
    copied into the caller's buffer, which the result then is."""
    x = np.random.default_rng(0).standard_normal((3, 9, 9, 16)).astype(np.float32)
    window = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))
    view = window.transpose(1, 2, 0, 4, 5, 3)  # (h, w, c1, kh, kw, c0)
    out = np.empty(view.size, np.float32)
    packed = pack(view, (49, 3 * 9 * 16), out)
    assert np.shares_memory(packed, out)
    np.testing.assert_array_equal(packed, np.ascontiguousarray(view).reshape(49, -1))


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, -0.0])
def test_copy_into_keeps_special_values_bit_for_bit(value):
    source = np.full((5, 3, 16), value, np.float32).transpose(1, 0, 2)
    target = np.empty(source.shape, np.float32)
    copy_into(target, source)
    assert target.tobytes() == np.ascontiguousarray(source).tobytes()


def test_pack_into_a_buffer_allocates_nothing_the_size_of_the_operand():
    """The refused reshape must not copy first (assigning `.shape` to a
    strided view makes the whole copy before it raises)."""
    import tracemalloc

    x = np.zeros((4, 33, 33, 16), np.float32)
    view = x.transpose(1, 2, 0, 3)  # (h, w, c1, c0): a 1x1 conv's operand
    out = np.empty(view.size, np.float32)
    tracemalloc.start()
    try:
        pack(view, (33 * 33, 4 * 16), out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < view.nbytes // 4


def test_pack_copies_a_misaligned_matrix():
    """A weight at an odd offset of a mapped file is not handed to BLAS
    (NumPy would multiply it with its slow loops): packed once, aligned."""
    raw = np.zeros(17 * 33 * 4 + 1, np.uint8)
    matrix = np.frombuffer(raw.data, np.float32, 17 * 33, offset=1).reshape(17, 33)
    assert not matrix.flags.aligned
    packed = pack(matrix, (17, 33))
    assert packed.flags.aligned and packed.flags.c_contiguous
    np.testing.assert_array_equal(packed, matrix)


@pytest.fixture
def threaded_copies(monkeypatch):
    """Every copy large enough to run split over 2 threads (`STRIDED_COPY`);
    one thread again afterwards."""
    if c_runtime.compiler() is None or c_runtime.openmp_missing():
        pytest.skip("no C compiler with OpenMP")
    monkeypatch.setattr(runtime, "PARALLEL_COPY_BYTES", 0)
    c_runtime.set_kernel_threads(2)
    yield
    c_runtime.set_kernel_threads(1)


@pytest.mark.usefixtures("threaded_copies")
@settings(max_examples=100, deadline=None)
@given(view=strided_views())
def test_a_copy_split_over_threads_equals_numpys(view):
    """Strided, permuted views of odd extents (3, 17, 33: runs of 1-33
    elements, moved as one opaque element or not) copied on 2 threads equal
    the view, element for element; so do 1-byte and 8-byte elements."""
    for source in (view, view.astype(np.int8), view.astype(np.float64).T):
        target = np.full(source.shape, 7, source.dtype)
        copy_into(target, source)
        np.testing.assert_array_equal(target, source)


@pytest.mark.usefixtures("threaded_copies")
def test_a_threaded_copy_broadcasts_and_leaves_overlaps_to_numpy():
    """A source broadcast along an axis (stride 0) is copied on threads;
    a source overlapping its target is NumPy's (which buffers it)."""
    row = RNG_COPIES.standard_normal(100).astype(np.float32)
    target = np.empty((17, 33, 100), np.float32)
    copy_into(target, np.broadcast_to(row, target.shape))
    np.testing.assert_array_equal(target, np.broadcast_to(row, target.shape))
    buffer = np.arange(3 * 100, dtype=np.float32).reshape(3, 100)
    expected = buffer[:, ::-1].copy()
    copy_into(buffer, buffer[:, ::-1])
    np.testing.assert_array_equal(buffer, expected)


RNG_COPIES = np.random.default_rng(35)
