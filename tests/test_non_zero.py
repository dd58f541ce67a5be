"""`ge.non_zero` (ONNX NonZero): the coordinates of the non-zero elements,
[rank, count], the count known only from the values. The host schedules it
(`NonZeroOp.value_shapes`), a JIT kernel compiled for the count runs;
checked against `np.nonzero` and onnxruntime at odd sizes, dtypes, ranks
and special values (NaN is non-zero, -0.0 is zero), all zero and none."""

from __future__ import annotations

import numpy as np
import pytest
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.scheduler import Executor, compile_model


def non_zero_model(shape, dtype):
    b = GraphBuilder("g")
    b.output(b.non_zero(b.data(list(shape), dtype)))
    return compile_model(b.build())


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(17,), (3, 17), (2, 3, 5)])
def test_jit_matches_numpy(shape, dtype):
    rng = np.random.default_rng(len(shape))
    x = (rng.integers(0, 3, shape) * (rng.standard_normal(shape) > 0)).astype(dtype)
    if dtype.startswith("float"):
        x.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    model = non_zero_model(shape, dtype)
    (got,) = model.run({0: x})
    entry = next(e for e in model.trace if e.op == "ge.non_zero")
    assert entry.executor == Executor.JIT, entry.detail
    np.testing.assert_array_equal(got, np.array(np.nonzero(x), np.int64))


def test_all_zero_and_none_zero():
    model = non_zero_model((3, 5), "float32")
    (got,) = model.run({0: np.zeros((3, 5), np.float32)})
    assert got.shape == (2, 0)
    (got,) = model.run({0: np.ones((3, 5), np.float32)})
    np.testing.assert_array_equal(got, np.array(np.nonzero(np.ones((3, 5)))))


@pytest.mark.parametrize("shape", [(17,), (3, 17)])
def test_onnx_models_match_onnxruntime_on_the_jit(tmp_path, shape):
    rng = np.random.default_rng(5)
    inputs = {"x": rng.integers(-1, 2, shape).astype(np.int32)}
    assert_runs_on_the_jit(
        one_node_model("NonZero", inputs, opset=13), inputs, tmp_path
    )


def test_a_scalar_is_refused(tmp_path, capsys):
    inputs = {"x": np.array(1.0, np.float32)}
    model = one_node_model("NonZero", inputs, opset=13)
    typed = with_output_types(model, [np.zeros((0, 1), np.int64)])
    error = atc_error(typed, tmp_path, capsys)
    assert "unsupported ONNX ops: NonZero of a scalar" in error
