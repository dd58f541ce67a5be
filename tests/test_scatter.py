"""`ge.scatter_elements` / `ge.scatter_nd` (ONNX ScatterElements, Scatter,
ScatterND): the NumPy kernel against an update-by-update definition, the
lowered JIT against the kernel (every reduction, duplicates, negative
indices, dtypes incl. bool, special values, odd sizes, empty updates), ONNX
models through `ge-atc` + `ge-run` against onnxruntime (JIT only), and
out-of-range indices as one-line errors at run time."""

from __future__ import annotations

import itertools
import re

import kernel_calls
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx_jit import assert_runs_on_the_jit, one_node_model

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph

REDUCTIONS = ["none", "add", "mul", "max", "min"]
COMBINE = {
    "none": lambda old, new: new,
    "add": lambda old, new: old + new,
    "mul": lambda old, new: old * new,
    "max": lambda old, new: np.maximum(old, new),
    "min": lambda old, new: np.minimum(old, new),
}


def definition_elements(data, indices, updates, axis, reduction):
    """One update after the other, in row-major order."""
    y = data.copy()
    for at in itertools.product(*map(range, indices.shape)):
        target = list(at)
        target[axis] = int(indices[at]) % data.shape[axis]
        y[tuple(target)] = COMBINE[reduction](y[tuple(target)], updates[at])
    return y


def definition_nd(data, indices, updates, reduction):
    y = data.copy()
    depth = indices.shape[-1]
    for at in itertools.product(*map(range, indices.shape[:-1])):
        target = tuple(
            int(i) % n for i, n in zip(indices[at], data.shape, strict=False)
        )
        y[target] = COMBINE[reduction](y[target], updates[at])
    assert depth <= data.ndim
    return y


def values(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0 if dtype.startswith("uint") else -5, 6, shape).astype(dtype)


def jit_and_reference(op, arrays, **attrs):
    b = GraphBuilder("g")
    inputs = [b.data(list(a.shape), a.dtype.name) for a in arrays]
    b.output(getattr(b, op)(*inputs, **attrs))
    module = b.build()
    feeds = dict(enumerate(arrays))
    (got,) = run_graph(module, feeds, poison=True)
    (expected,) = evaluate(module, feeds)
    return got, expected


def elements_case(dtype, seed=0, shape=(3, 17, 5), axis=1):
    rng = np.random.default_rng(seed)
    data = values(dtype, shape, rng)
    index_shape = (3, 33, 4)
    indices = rng.integers(-shape[axis], shape[axis], index_shape)  # duplicates
    updates = values(dtype, index_shape, rng)
    return data, indices, updates


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_scatter_elements_kernel_is_the_definition(reduction):
    data, indices, updates = elements_case("int64")
    for axis in (1, -2):
        got = kernel_calls.scatter_elements(
            data, indices, updates, axis=axis, reduction=reduction
        )
        np.testing.assert_array_equal(
            got, definition_elements(data, indices, updates, axis % 3, reduction)
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_scatter_nd_kernel_is_the_definition(reduction):
    rng = np.random.default_rng(3)
    data = values("int32", (5, 3, 17), rng)
    for depth in (1, 2, 3):
        indices = np.stack(
            [rng.integers(-n, n, (4, 7)) for n in data.shape[:depth]], axis=-1
        )
        updates = values("int32", (4, 7, *data.shape[depth:]), rng)
        got = kernel_calls.scatter_nd(data, indices, updates, reduction=reduction)
        np.testing.assert_array_equal(
            got, definition_nd(data, indices, updates, reduction)
        )


@pytest.mark.parametrize(
    "dtype", ["float32", "float16", "float64", "int32", "int8", "uint16", "bool"]
)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_jit_matches_the_kernel(dtype, reduction):
    data, indices, updates = elements_case(dtype, seed=5)
    got, expected = jit_and_reference(
        "scatter_elements",
        [data, indices.astype(np.int32), updates],
        axis=1,
        reduction=reduction,
    )
    np.testing.assert_allclose(
        got.astype(np.float64), expected.astype(np.float64), rtol=2e-3
    )
    rng = np.random.default_rng(9)
    nd_data = values(dtype, (4, 3, 17), rng)
    nd_indices = np.stack(
        [rng.integers(-4, 4, (6,)), rng.integers(-3, 3, (6,))], axis=-1
    )
    nd_updates = values(dtype, (6, 17), rng)
    got, expected = jit_and_reference(
        "scatter_nd", [nd_data, nd_indices, nd_updates], reduction=reduction
    )
    np.testing.assert_allclose(
        got.astype(np.float64), expected.astype(np.float64), rtol=2e-3
    )


def test_special_values():
    """NaN propagates through max/min/add at its position only; ±inf and
    -0.0 are written as they are."""
    data = np.array([1.0, -0.0, np.inf, 2.0, 5.0], np.float32)
    indices = np.array([0, 0, 3, 1, -1], np.int64)
    updates = np.array([np.nan, 3.0, -np.inf, -0.0, 0.5], np.float32)
    for reduction in REDUCTIONS:
        got, expected = jit_and_reference(
            "scatter_elements", [data, indices, updates], reduction=reduction
        )
        definition = definition_elements(data, indices, updates, 0, reduction)
        np.testing.assert_array_equal(got, definition)
        np.testing.assert_array_equal(expected, definition)
        assert np.array_equal(np.signbit(got), np.signbit(definition))


def test_empty_updates_leave_data():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    got, _ = jit_and_reference(
        "scatter_elements",
        [data, np.zeros((2, 0), np.int64), np.zeros((2, 0), np.float32)],
        axis=1,
    )
    np.testing.assert_array_equal(got, data)


@given(st.integers(1, 7), st.integers(1, 9), st.sampled_from(REDUCTIONS), st.data())
def test_hypothesis_scatter_elements(rows, cols, reduction, data):
    rng = np.random.default_rng(rows * 10 + cols)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    count = data.draw(st.integers(0, cols))
    indices = rng.integers(-cols, cols, (rows, count))
    updates = rng.standard_normal((rows, count)).astype(np.float32)
    got, _ = jit_and_reference(
        "scatter_elements", [x, indices, updates], axis=1, reduction=reduction
    )
    np.testing.assert_allclose(
        got, definition_elements(x, indices, updates, 1, reduction), rtol=1e-6
    )


@pytest.mark.parametrize("bad", [5, -6, 100])
def test_out_of_range_index_is_a_run_time_error(bad):
    data = np.zeros((2, 5), np.float32)
    indices = np.array([[0, bad]], np.int64)
    updates = np.ones((1, 2), np.float32)
    b = GraphBuilder("g")
    inputs = [b.data(list(a.shape), a.dtype.name) for a in (data, indices, updates)]
    b.output(b.scatter_elements(*inputs, axis=1, reduction="add", name="s"))
    module = b.build()
    feeds = {0: data, 1: indices, 2: updates}
    message = (
        "node 's': error: 'ge.scatter_elements' op index out of range [-5, 4] on axis 1"
    )
    with pytest.raises(GEError, match=re.escape(message)) as info:
        run_graph(module, feeds)
    assert "\n" not in str(info.value)
    with pytest.raises(GEError, match=f"index {bad} is out of bounds"):
        evaluate(module, feeds)


def test_gather_index_below_minus_size_is_an_error_not_wrapped_twice():
    """Regression: a gather index of -4 on an axis of 3 read x[2] (NumPy
    wrapped the already wrapped -1); now it is out of bounds."""
    b = GraphBuilder("g")
    x = b.data([3, 4])
    indices = b.data([3, 4], "int64")
    b.output(b.gather_elements(x, indices, axis=0))
    module = b.build()
    bad = np.zeros((3, 4), np.int64)
    bad[1, 1] = -4
    with pytest.raises(
        GEError, match=re.escape("index out of range [-3, 2] on axis 0")
    ):
        run_graph(module, {0: np.ones((3, 4), np.float32), 1: bad})


@pytest.mark.parametrize(
    ("op_type", "attributes", "opset"),
    [
        ("ScatterElements", {"axis": 1}, 11),
        ("ScatterElements", {"axis": -1, "reduction": "add"}, 16),
        ("ScatterElements", {"axis": 0, "reduction": "max"}, 18),
        ("Scatter", {"axis": 1}, 10),
    ],
)
def test_scatter_elements_models_match_onnxruntime_on_the_jit(
    tmp_path, op_type, attributes, opset
):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((3, 17)).astype(np.float32)
    if attributes["axis"] == 0:  # "max": duplicates are well defined
        indices = rng.integers(-3, 3, (2, 17))
    else:  # distinct positions per row: "none" leaves duplicates unspecified
        indices = np.stack([rng.permutation(17)[:5] - 17 * (r % 2) for r in range(3)])
    updates = rng.standard_normal(indices.shape).astype(np.float32)
    inputs = {"data": data, "indices": indices, "updates": updates}
    model = one_node_model(op_type, inputs, opset=opset, **attributes)
    assert_runs_on_the_jit(model, inputs, tmp_path)


@pytest.mark.parametrize("reduction", ["none", "mul", "min"])
def test_scatter_nd_models_match_onnxruntime_on_the_jit(tmp_path, reduction):
    rng = np.random.default_rng(2)
    data = rng.integers(-9, 9, (4, 3, 17)).astype(np.int64)
    indices = np.array([[0, 2], [-1, 0], [2, -2]], np.int64)
    updates = rng.integers(-9, 9, (3, 17)).astype(np.int64)
    inputs = {"data": data, "indices": indices, "updates": updates}
    model = one_node_model("ScatterND", inputs, opset=18, reduction=reduction)
    assert_runs_on_the_jit(model, inputs, tmp_path)
