"""`ge.compress` (ONNX Compress): a result dim known only from the
condition's values. The host schedules it: `CompressOp.value_shapes` gives
the result shape, then a JIT kernel compiled for that shape runs (one per
result shape, cached). Checked against `np.compress` and onnxruntime (JIT
only) for every axis, flattened input, conditions shorter than the axis,
all-false and all-true conditions, dtypes and special values."""

from __future__ import annotations

import numpy as np
import pytest
from onnx_jit import assert_runs_on_the_jit, one_node_model

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import Executor, compile_model


def compress_model(shape, dtype, entries, axis):
    b = GraphBuilder("g")
    x = b.data(list(shape), dtype)
    condition = b.data([entries], "bool")
    b.output(b.compress(x, condition, axis=axis))
    return b.build()


def run_on_the_jit(module, x, condition):
    model = compile_model(module)
    (got,) = model.run({0: x, 1: condition})
    entry = next(e for e in model.trace if e.op == "ge.compress")
    assert entry.executor == Executor.JIT, entry.detail
    assert entry.detail.startswith("jit kernel"), entry.detail
    (expected,) = evaluate(module, {0: x, 1: condition})
    return got, expected, model


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool"])
def test_jit_matches_numpy(axis, dtype):
    rng = np.random.default_rng(3)
    shape = (3, 17, 5)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if dtype.startswith("float"):
        x.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.0]
    entries = shape[axis] - 1  # shorter than the axis: the rest is left out
    condition = rng.integers(0, 2, entries).astype(bool)
    got, expected, _ = run_on_the_jit(
        compress_model(shape, dtype, entries, axis), x, condition
    )
    want = np.compress(condition, x, axis=axis)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(expected, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)) or dtype == "bool"


def test_a_kernel_per_result_shape():
    """Conditions with other counts compile other kernels; a count seen
    before reuses its kernel; all false gives an empty result."""
    module = compress_model((4, 33), "float32", 33, 1)
    model = compile_model(module)
    x = np.arange(4 * 33, dtype=np.float32).reshape(4, 33)
    for count in (3, 0, 33, 3):
        condition = np.zeros(33, bool)
        condition[np.random.default_rng(count).permutation(33)[:count]] = True
        (got,) = model.run({0: x, 1: condition})
        np.testing.assert_array_equal(got, np.compress(condition, x, axis=1))
    assert len(model.evaluator.kernels.kernels) == 3


@pytest.mark.parametrize("axis", [None, 0, -2])
def test_onnx_models_match_onnxruntime_on_the_jit(tmp_path, axis):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 17)).astype(np.float32)
    entries = 17 if axis is None else 3
    condition = rng.integers(0, 2, entries).astype(bool)
    attributes = {} if axis is None else {"axis": axis}
    inputs = {"x": x, "condition": condition}
    model = one_node_model("Compress", inputs, opset=11, **attributes)
    assert_runs_on_the_jit(model, inputs, tmp_path)
