"""`ge.one_hot` (ONNX OneHot): the kernel against ONNX's reference, the
lowered JIT (one vectorised select) against the kernel for every axis,
integer and float indices (negative, out of range, fractional), special
`values`, ONNX models with a constant depth through `ge-atc` + `ge-run`
against onnxruntime (JIT only), and a bad depth as a one-line error."""

from __future__ import annotations

import kernel_calls
import numpy as np
import pytest
from onnx.reference.ops.op_one_hot import _one_hot
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import compile_graph, run_graph

INDICES = np.array([[0, 4, -1, -5, 5, -6], [2, 3, 1, 1, 0, -2], [16, -17, 8, 9, 3, 0]])


def jit_and_reference(indices, values, **attrs):
    b = GraphBuilder("g")
    i = b.data(list(indices.shape), indices.dtype.name)
    v = b.data(list(values.shape), values.dtype.name)
    b.output(b.one_hot(i, v, **attrs))
    module = b.build()
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    (got,) = run_graph(module, {0: indices, 1: values}, poison=True)
    (expected,) = evaluate(module, {0: indices, 1: values})
    return got, expected


@pytest.mark.parametrize("axis", [-1, 0, 1, 2, -3])
@pytest.mark.parametrize("index_dtype", ["int64", "int32", "float32", "int8"])
def test_jit_kernel_and_onnx_reference_agree(axis, index_dtype):
    indices = INDICES.astype(index_dtype)
    values = np.array([-0.0, np.inf], np.float32)
    got, expected = jit_and_reference(indices, values, depth=17, axis=axis)
    onnx_reference = _one_hot(indices, 17, axis=axis, dtype=bool)
    want = np.where(onnx_reference, values[1], values[0])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(expected, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_fractional_float_indices_match_nothing():
    indices = np.array([1.5, -0.5, 2.0], np.float32)
    got = kernel_calls.one_hot(indices, np.array([0, 1], np.int32), depth=3)
    np.testing.assert_array_equal(got, [[0, 0, 0], [0, 0, 0], [0, 0, 1]])
    jit, _ = jit_and_reference(indices, np.array([0, 1], np.int32), depth=3)
    np.testing.assert_array_equal(jit, got)


@pytest.mark.parametrize("dtype", ["float16", "int64", "uint8", "bool"])
def test_value_dtypes(dtype):
    values = np.array([0, 1], dtype)
    got, expected = jit_and_reference(INDICES, values, depth=5, axis=1)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, expected)


def test_empty_indices():
    got, _ = jit_and_reference(
        np.zeros((0, 3), np.int64), np.array([0.0, 1.0], np.float32), depth=4
    )
    assert got.shape == (0, 3, 4)


@pytest.mark.parametrize(
    ("indices", "depth", "axis", "opset"),
    [
        (INDICES, np.array(17, np.int64), -1, 11),
        (INDICES.astype(np.float32), np.array([10.0], np.float32), 1, 11),
        (INDICES.astype(np.int32), np.array([33], np.int32), 0, 9),
    ],
)
def test_onnx_models_match_onnxruntime_on_the_jit(
    tmp_path, indices, depth, axis, opset
):
    if opset == 9:  # OneHot-9 has no negative indices
        indices = np.abs(indices)
    values = np.array([2.0, -3.0], np.float32)
    model = one_node_model(
        "OneHot",
        {"indices": indices},
        initializers={"depth": depth, "values": values},
        opset=opset,
        axis=axis,
    )
    assert_runs_on_the_jit(model, {"indices": indices}, tmp_path)


@pytest.mark.parametrize(
    ("depth", "message"),
    [
        (np.array(0, np.int64), "depth 0 must be positive"),
        (np.array([2, 3], np.int64), "depth must be one number"),
    ],
)
def test_bad_depth_is_a_one_line_error(tmp_path, capsys, depth, message):
    indices = np.zeros((3,), np.int64)
    model = one_node_model(
        "OneHot",
        {"indices": indices},
        initializers={"depth": depth, "values": np.array([0.0, 1.0], np.float32)},
        opset=11,
    )
    model = with_output_types(model, [np.zeros((3, 2), np.float32)])
    err = atc_error(model, tmp_path, capsys)
    assert message in err, err


@pytest.mark.parametrize("depth", [np.array(3.0, np.float32), np.array([17], np.int64)])
def test_run_time_depth_matches_onnxruntime_on_the_jit(tmp_path, depth):
    """depth a graph input (float or integer): the host binds it, then the
    JIT runs ge.one_hot."""
    inputs = {
        "indices": INDICES.astype(np.int64),
        "depth": depth,
        "values": np.array([0.5, -1.0], np.float32),
    }
    model = one_node_model("OneHot", inputs, opset=11, axis=1)
    assert_runs_on_the_jit(model, inputs, tmp_path)
