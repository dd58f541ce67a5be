"""`ge.unique` (ONNX Unique): how many distinct slices is known only from
x's values; the host schedules it (`UniqueOp.value_shapes`), then a JIT
kernel compiled for those shapes runs. Checked against `np.unique`, the
kernel and onnxruntime (JIT only): sorted and in order of first
occurrence, flattened and along each axis, dtypes, odd sizes, special
values (NaN equal to NaN, -0.0 equal to 0.0, ±inf), hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx_jit import assert_runs_on_the_jit, one_node_model

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import Executor, compile_model


def jit_and_reference(x, axis, ordered):
    b = GraphBuilder("g")
    data = b.data(list(x.shape), x.dtype.name)
    b.output(*b.unique(data, axis=axis, sorted=ordered))
    module = b.build()
    model = compile_model(module)
    got = model.run({0: x})
    entry = next(e for e in model.trace if e.op == "ge.unique")
    assert entry.executor == Executor.JIT and entry.detail.startswith("jit kernel")
    return got, evaluate(module, {0: x})


def first_occurrence_definition(x, axis):
    """Unsorted Unique by a scan over the slices."""
    rows = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
    seen: list[int] = []
    inverse = []
    for i, row in enumerate(rows):
        match = next(
            (k for k, s in enumerate(seen) if np.array_equal(rows[s], row)), None
        )
        if match is None:
            seen.append(i)
            match = len(seen) - 1
        inverse.append(match)
    counts = np.bincount(inverse, minlength=len(seen))
    return np.take(x, seen, axis=axis), seen, inverse, counts


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "int8"])
def test_flat_unique_matches_numpy(ordered, dtype):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 9, 33).astype(dtype)
    got, expected = jit_and_reference(x, 0, ordered)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)
    y, indices, inverse, counts = got
    if ordered:
        want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        for ours, ref in zip(got, want, strict=True):
            np.testing.assert_array_equal(ours, ref)
    else:
        want = first_occurrence_definition(x, 0)
        for ours, ref in zip(got, want, strict=True):
            np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(y[inverse], x)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("ordered", [True, False])
def test_slices_along_an_axis(axis, ordered):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2, (3, 5, 4)).astype(np.float32)
    x = np.concatenate([x, np.take(x, [0, 2], axis=axis)], axis=axis)  # repeats
    got, expected = jit_and_reference(x, axis, ordered)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)
    y, _, inverse, counts = got
    np.testing.assert_array_equal(np.take(y, inverse, axis=axis), x)
    assert counts.sum() == x.shape[axis]
    if ordered:
        want = np.unique(x, axis=axis % 3)
        np.testing.assert_array_equal(y, want)


def test_special_values():
    x = np.array([np.nan, 1.0, -0.0, np.inf, 0.0, np.nan, -np.inf, 1.0], np.float32)
    got, expected = jit_and_reference(x, 0, True)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)
    y, indices, inverse, counts = got
    np.testing.assert_array_equal(y, [-np.inf, -0.0, 1.0, np.inf, np.nan])
    assert np.signbit(y[1])  # the first of -0.0 and 0.0
    np.testing.assert_array_equal(indices, [6, 2, 1, 3, 0])
    np.testing.assert_array_equal(counts, [1, 2, 2, 1, 2])
    np.testing.assert_array_equal(inverse, [4, 2, 1, 3, 1, 4, 0, 2])
    rows = np.array([[np.nan, 1], [0.0, 2], [np.nan, 1], [-0.0, 2]], np.float32)
    got, expected = jit_and_reference(rows, 0, True)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(got[3], [2, 2])


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=20), st.booleans())
def test_hypothesis(values, ordered):
    x = np.array(values, np.int32)
    got, expected = jit_and_reference(x, 0, ordered)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize(("axis", "ordered"), [(None, 1), (None, 0), (0, 1), (-1, 1)])
def test_onnx_models_match_onnxruntime_on_the_jit(tmp_path, axis, ordered):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 3, (4, 3)).astype(np.float32)
    x[2] = x[0]
    attributes = (
        {"sorted": ordered} if axis is None else {"sorted": ordered, "axis": axis}
    )
    model = one_node_model(
        "Unique",
        {"x": x},
        outputs=("y", "indices", "inverse", "counts"),
        opset=11,
        **attributes,
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)
