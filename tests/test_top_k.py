"""`ge.top_k` (ONNX TopK): the kernel against a sort-based definition (ties
by lower index, NaN the largest), the lowered JIT (ranks, every nest
vectorised) against the kernel on odd sizes, dtypes and special values,
ONNX models with a constant K through `ge-atc` + `ge-run` against
onnxruntime (JIT only), and bad K as one-line errors."""

from __future__ import annotations

import kernel_calls
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import compile_graph, run_graph


def definition(x, k, axis, largest):
    """Python's stable sort per row: the key puts NaN largest."""
    moved = np.moveaxis(x, axis, -1)
    values = np.empty((*moved.shape[:-1], k), x.dtype)
    indices = np.empty((*moved.shape[:-1], k), np.int64)
    for at in np.ndindex(moved.shape[:-1]):
        row = moved[at]

        def key(i, row=row):
            v = row[i]
            nan = bool(np.isnan(v)) if row.dtype.kind == "f" else False
            rank = (1, 0) if nan else (0, v)
            if largest:
                return (-rank[0], -rank[1] if not nan else 0)
            return rank

        chosen = sorted(range(row.size), key=key)[:k]
        values[at], indices[at] = row[chosen], chosen
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def jit_and_reference(x_value, **attrs):
    b = GraphBuilder("g")
    x = b.data(list(x_value.shape), x_value.dtype.name)
    b.output(*b.top_k(x, **attrs))
    module = b.build()
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    got = run_graph(module, {0: x_value}, poison=True)
    expected = evaluate(module, {0: x_value})
    return got, expected


def with_ties_and_specials(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        x = np.round(rng.standard_normal(shape) * 2).astype(dtype)  # many ties
        flat = x.reshape(-1)
        flat[::7], flat[3::11], flat[5::13] = np.nan, np.inf, -np.inf
        flat[1::17] = -0.0
        return x
    info = np.iinfo(dtype)
    x = rng.integers(0, 4, shape).astype(dtype)
    x.reshape(-1)[::9] = info.max
    x.reshape(-1)[4::9] = info.min
    return x


@pytest.mark.parametrize("largest", [True, False])
def test_kernel_is_the_definition(largest):
    x = with_ties_and_specials("float32", (3, 17, 5))
    for axis, k in ((1, 5), (-1, 5), (0, 3), (1, 0), (1, 17)):
        values, indices = kernel_calls.top_k(x, k=k, axis=axis, largest=largest)
        want_values, want_indices = definition(x, k, axis % 3, largest)
        np.testing.assert_array_equal(indices, want_indices)
        np.testing.assert_array_equal(values, want_values)


@pytest.mark.parametrize(
    "dtype", ["float32", "float16", "float64", "int32", "int8", "uint8", "uint64"]
)
@pytest.mark.parametrize("largest", [True, False])
def test_jit_matches_the_kernel(dtype, largest):
    x = with_ties_and_specials(dtype, (3, 17, 5), seed=2)
    for axis, k in ((1, 4), (-1, 5), (0, 1)):
        (values, indices), (want_values, want_indices) = jit_and_reference(
            x, k=k, axis=axis, largest=largest
        )
        assert values.dtype == x.dtype and indices.dtype == np.int64
        np.testing.assert_array_equal(indices, want_indices)
        np.testing.assert_array_equal(values, want_values)
        np.testing.assert_array_equal(np.signbit(values), np.signbit(want_values))


def test_k_zero_and_empty_rows():
    x = np.zeros((3, 0), np.float32)
    (values, indices), _ = jit_and_reference(x, k=0, axis=1)
    assert values.shape == indices.shape == (3, 0)
    x = np.arange(33, dtype=np.float32)
    (values, indices), _ = jit_and_reference(x, k=0)
    assert values.shape == (0,)


@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=3),
    st.data(),
    st.booleans(),
)
def test_hypothesis(shape, data, largest):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(0, shape[axis]))
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-3, 3, shape).astype(np.float32)
    (values, indices), _ = jit_and_reference(x, k=k, axis=axis, largest=largest)
    want_values, want_indices = definition(x, k, axis % len(shape), largest)
    np.testing.assert_array_equal(indices, want_indices)
    np.testing.assert_array_equal(values, want_values)


@pytest.mark.parametrize(
    ("dtype", "axis", "largest", "opset"),
    [
        (np.float32, 1, 1, 11),
        (np.float32, -1, 0, 11),
        (np.int64, 2, 1, 11),
        (np.float64, 1, 1, 10),
    ],
)
def test_onnx_models_match_onnxruntime_on_the_jit(
    tmp_path, dtype, axis, largest, opset
):
    """K a constant input; distinct values (onnxruntime breaks ties its own
    way on some paths), NaN among the floats."""
    rng = np.random.default_rng(5)
    x = rng.permutation(3 * 17 * 5).reshape(3, 17, 5).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[0, 3, 1] = np.nan
    attributes = {"axis": axis} if opset == 10 else {"axis": axis, "largest": largest}
    model = one_node_model(
        "TopK",
        {"x": x},
        outputs=("values", "indices"),
        initializers={"k": np.array([4], np.int64)},
        opset=opset,
        **attributes,
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize(
    ("k", "message"),
    [
        (np.array([18], np.int64), "k 18 is out of range for an axis of 17"),
        (np.array([-1], np.int64), "k -1 is out of range for an axis of 17"),
        (np.array([1, 2], np.int64), "k must be one integer"),
    ],
)
def test_bad_k_is_a_one_line_error(tmp_path, capsys, k, message):
    x = np.zeros((3, 17), np.float32)
    model = one_node_model(
        "TopK", {"x": x}, outputs=("v", "i"), initializers={"k": k}, opset=11
    )
    model = with_output_types(model, [x[:, :1], x[:, :1].astype(np.int64)])
    err = atc_error(model, tmp_path, capsys)
    assert message in err, err


@pytest.mark.parametrize("k", [0, 3, 17])
def test_run_time_k_matches_onnxruntime_on_the_jit(tmp_path, k):
    """K a graph input: the host binds it, then the JIT runs ge.top_k."""
    x = np.random.default_rng(k).permutation(3 * 17).reshape(3, 17).astype(np.float32)
    inputs = {"x": x, "k": np.array([k], np.int64)}
    model = one_node_model("TopK", inputs, outputs=("values", "indices"), opset=11)
    assert_runs_on_the_jit(model, inputs, tmp_path)
