"""`ge.cum_sum` / `ge.cum_prod` (ONNX CumSum, CumProd): the NumPy kernel
against NumPy, the lowered JIT against the kernel (every dtype, odd sizes,
each `exclusive`/`reverse`, negative axes, special values, empty tensors),
ONNX models through `ge-atc` + `ge-run` against onnxruntime (JIT only), and
bad axes as one-line errors."""

from __future__ import annotations

import itertools

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

DTYPES = ["float32", "float16", "float64", "int32", "int64", "uint32", "uint64"]
FLAGS = list(itertools.product((False, True), repeat=2))


def numpy_cumulative(x, op, axis, exclusive, reverse):
    """The definition: `y[i]` combines `x[j]` over the window of `i`."""
    combine = np.sum if op == "cum_sum" else np.prod
    identity = 0 if op == "cum_sum" else 1
    moved = np.moveaxis(x, axis, -1)
    n = moved.shape[-1]
    y = np.empty_like(moved)
    for i in range(n):
        if reverse:
            window = moved[..., i + 1 :] if exclusive else moved[..., i:]
        else:
            window = moved[..., :i] if exclusive else moved[..., : i + 1]
        y[..., i] = (
            combine(window, axis=-1, dtype=x.dtype) if window.shape[-1] else identity
        )
    return np.moveaxis(y, -1, axis)


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 0.5 + 1).astype(dtype)
    if dtype.startswith("uint"):
        return rng.integers(0, 5, shape).astype(dtype)
    return rng.integers(-4, 5, shape).astype(dtype)


def jit_and_reference(op, x_value, **attrs):
    """The JIT's result (every nest vectorised) and the reference evaluator's."""
    b = GraphBuilder("g")
    x = b.data(list(x_value.shape), x_value.dtype.name)
    b.output(getattr(b, op)(x, **attrs))
    module = b.build()
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    (got,) = run_graph(module, {0: x_value}, poison=True)
    (expected,) = evaluate(module, {0: x_value})
    return got, expected


@pytest.mark.parametrize("op", ["cum_sum", "cum_prod"])
@pytest.mark.parametrize(("exclusive", "reverse"), FLAGS)
def test_kernel_is_the_definition(op, exclusive, reverse):
    x = sample("int64", (3, 17, 5))
    for axis in (0, 1, -1):
        got = getattr(kernel_calls, op)(
            x, axis=axis, exclusive=exclusive, reverse=reverse
        )
        np.testing.assert_array_equal(
            got, numpy_cumulative(x, op, axis % 3, exclusive, reverse)
        )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["cum_sum", "cum_prod"])
def test_jit_matches_the_kernel(dtype, op):
    x = sample(dtype, (3, 17, 4))
    for (exclusive, reverse), axis in itertools.product(FLAGS, (1, -1, 0)):
        got, expected = jit_and_reference(
            op, x, axis=axis, exclusive=exclusive, reverse=reverse
        )
        assert got.dtype == expected.dtype == x.dtype
        tolerance = 2e-3 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(
            got.astype(np.float64), expected.astype(np.float64), rtol=tolerance
        )


def test_integers_wrap_in_their_own_type():
    x = np.array([2**31 - 1, 1, 2**30, 2**30], np.int32)
    got, expected = jit_and_reference("cum_sum", x, axis=0)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got, np.cumsum(x, dtype=np.int32))
    big = np.full(5, 2**40, np.int64)
    got, _ = jit_and_reference("cum_prod", big, axis=0)
    np.testing.assert_array_equal(got, np.cumprod(big, dtype=np.int64))


@pytest.mark.parametrize(("exclusive", "reverse"), FLAGS)
def test_special_values_stay_in_their_window(exclusive, reverse):
    """NaN and ±inf reach only the positions whose window holds them (the
    positions outside contribute the identity, not `0 * inf`)."""
    x = np.array(
        [[1.5, np.nan, 2.0, -1.0], [np.inf, 0.0, -np.inf, 3.0], [-0.0, 2.0, 0.5, 4]],
        np.float32,
    )
    for op in ("cum_sum", "cum_prod"):
        got, expected = jit_and_reference(
            op, x, axis=1, exclusive=exclusive, reverse=reverse
        )
        definition = numpy_cumulative(x, op, 1, exclusive, reverse)
        np.testing.assert_array_equal(got, definition)
        np.testing.assert_array_equal(expected, definition)


def test_empty_tensors():
    for shape, axis in (((0, 5), 0), ((3, 0), 1), ((3, 0), 0)):
        x = np.zeros(shape, np.float32)
        got, expected = jit_and_reference("cum_sum", x, axis=axis)
        assert got.shape == expected.shape == shape


@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=3),
    st.data(),
    st.booleans(),
    st.booleans(),
)
def test_hypothesis_float_shapes(shape, data, exclusive, reverse):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = sample("float32", tuple(shape), seed=len(shape))
    got, _ = jit_and_reference(
        "cum_sum", x, axis=axis, exclusive=exclusive, reverse=reverse
    )
    np.testing.assert_allclose(
        got,
        numpy_cumulative(x, "cum_sum", axis % len(shape), exclusive, reverse),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    ("op_type", "dtype", "axis", "exclusive", "reverse", "opset"),
    [
        ("CumSum", np.float32, 1, 0, 0, 14),
        ("CumSum", np.int64, -1, 1, 1, 14),
        ("CumSum", np.float64, 0, 0, 1, 11),
        ("CumSum", np.int32, -2, 1, 0, 14),
        ("CumProd", np.float32, 2, 1, 1, 26),
        ("CumProd", np.int64, 0, 0, 0, 26),
    ],
)
def test_onnx_models_match_onnxruntime_on_the_jit(
    tmp_path, op_type, dtype, axis, exclusive, reverse, opset
):
    """The axis as a constant input (int32 or int64, 0-d or 1-element)."""
    if op_type == "CumProd":
        pytest.importorskip("onnxruntime", minversion="1.24")
    x = sample(np.dtype(dtype).name, (3, 17, 5), seed=7)
    axis_value = np.array(
        [axis] if opset > 11 else axis, np.int32 if opset == 11 else np.int64
    )
    model = one_node_model(
        op_type,
        {"x": x},
        initializers={"axis": axis_value},
        opset=opset,
        exclusive=exclusive,
        reverse=reverse,
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize(
    ("axis", "message"),
    [
        (np.array(3, np.int64), "axis 3 is out of range for rank 2"),
        (np.array(-3, np.int64), "axis -3 is out of range for rank 2"),
        (np.array([0, 1], np.int64), "axis must be one integer"),
        (np.array(0.0, np.float32), "input #1 'axis' is tensor(float)"),
    ],
)
def test_bad_axes_are_one_line_errors(tmp_path, capsys, axis, message):
    x = np.zeros((2, 3), np.float32)
    model = one_node_model("CumSum", {"x": x}, initializers={"axis": axis}, opset=14)
    model = with_output_types(model, [x])
    err = atc_error(model, tmp_path, capsys)
    assert message in err and "CumSum" in err, err
