"""Comparisons, logic, select and erf: the JIT (lowered loops) and the
reference kernels against NumPy, on every dtype family and special values
(NaN, ±0, ±inf, unsigned values above the signed range, booleans)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph

FLOATS = np.array([np.nan, 0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 7.0], np.float32)

OPERANDS = {
    "float32": (FLOATS.reshape(1, 8), np.array([[np.nan], [0.0], [1.5]], np.float32)),
    "int32": (
        np.array([[-3, 0, 5, 2**31 - 1, -(2**31)]], np.int32),
        np.array([[0], [-3], [5]], np.int32),
    ),
    "uint8": (
        np.array([[0, 1, 127, 128, 255]], np.uint8),
        np.array([[128], [0], [200]], np.uint8),
    ),
    "bool": (np.array([[False, True]]), np.array([[True], [False], [True]])),
}

COMPARISONS = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}

LOGIC = {
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}


def run_both(build, inputs):
    """(JIT, reference) outputs of the graph `build(b, *data)` builds."""
    b = GraphBuilder("g")
    data = [b.data(list(a.shape), a.dtype.name) for a in inputs]
    b.output(build(b, *data))
    module = b.build()
    feeds = dict(enumerate(inputs))
    with np.errstate(all="ignore"):
        return run_graph(module, feeds)[0], evaluate(module, feeds)[0]


@pytest.mark.parametrize("dtype", list(OPERANDS))
@pytest.mark.parametrize("name", [*COMPARISONS, *LOGIC])
def test_predicates_match_numpy(name, dtype):
    a, c = OPERANDS[dtype]
    jit, reference = run_both(lambda b, x, y: b.op(name, x, y), [a, c])
    expected = {**COMPARISONS, **LOGIC}[name](a, c)
    for got in (jit, reference):
        assert got.dtype == np.bool_ and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", list(OPERANDS))
def test_logical_not_reads_truth_values(dtype):
    a, _ = OPERANDS[dtype]
    jit, reference = run_both(lambda b, x: b.logical_not(x), [a])
    for got in (jit, reference):
        np.testing.assert_array_equal(got, np.logical_not(a))  # NaN is true


@pytest.mark.parametrize("condition_dtype", list(OPERANDS))
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_select_broadcasts_its_three_operands(condition_dtype, dtype):
    condition = OPERANDS[condition_dtype][0]  # [1, n]
    rng = np.random.default_rng(3)
    x1 = rng.standard_normal((3, 1)).astype(dtype) * 10
    x2 = np.asarray(-np.inf if dtype != "int64" else -7, dtype)
    jit, reference = run_both(lambda b, c, p, q: b.select(c, p, q), [condition, x1, x2])
    expected = np.where(condition.astype(bool), x1, x2)
    for got in (jit, reference):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, expected)


def test_erf_special_values_and_accuracy():
    x = np.concatenate(
        [FLOATS, np.linspace(-6, 6, 97, dtype=np.float32), [1e-30, -4e-39]]
    ).astype(np.float32)
    jit, reference = run_both(lambda b, v: b.erf(v), [x])
    expected = np.array([math.erf(v) if not math.isnan(v) else np.nan for v in x])
    for got in (jit, reference):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=2e-7, atol=0, equal_nan=True)
        assert np.signbit(got[2]) and got[5] == 1 and got[6] == -1  # -0, ±inf
