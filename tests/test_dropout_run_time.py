"""ONNX Dropout with a run-time `training_mode` or `ratio` (`ge.dropout`):
the identity and an all-true mask in inference or with ratio 0, on the JIT;
a training-mode ratio above 0 (a random mask no generator reproduces) stops
the run with one line at the op, in the JIT and in the reference, never a
made-up mask; a known random mask is refused by ge-atc."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import Executor, compile_model


def dropout_inputs(ratio, training, shape=(3, 17)):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:3] = [np.nan, np.inf, -0.0]
    return {"x": x, "r": np.array(ratio, np.float32), "t": np.array(training)}


@pytest.mark.parametrize(
    ("ratio", "training"), [(0.0, True), (0.5, False), (0.0, False)]
)
def test_deterministic_cases_match_onnxruntime_on_the_jit(tmp_path, ratio, training):
    inputs = dropout_inputs(ratio, training)
    model = one_node_model("Dropout", inputs, outputs=("y", "mask"), opset=13)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def dropout_graph():
    b = GraphBuilder("g")
    x, ratio, training = b.data([3, 17]), b.data([]), b.data([], "bool")
    b.output(*b.dropout(x, ratio, training))
    return b.build()


def test_a_random_mask_stops_the_run():
    inputs = dropout_inputs(0.25, True)
    arrays = dict(enumerate(inputs.values()))
    module = dropout_graph()
    with pytest.raises(GEError, match="draws a random mask"):
        compile_model(module).run(arrays)
    with pytest.raises(GEError, match=r"draws a random mask.*\(ratio 0.25\)"):
        evaluate(module, arrays)
    model = compile_model(module)
    y, mask = model.run(dict(enumerate(dropout_inputs(0.0, True).values())))
    assert all(e.executor == Executor.JIT for e in model.trace)
    np.testing.assert_array_equal(y, inputs["x"])
    assert mask.dtype == bool and mask.all()


def test_a_known_random_mask_is_refused(tmp_path, capsys):
    inputs = {"x": dropout_inputs(0, 0)["x"]}
    constants = {"r": np.array(0.3, np.float32), "t": np.array(True)}
    model = one_node_model("Dropout", inputs, initializers=constants, opset=13)
    typed = with_output_types(model, [inputs["x"]])
    assert numpy_helper.to_array(typed.graph.initializer[1])
    error = atc_error(typed, tmp_path, capsys)
    assert "Dropout in training mode with ratio 0.3 (a random mask)" in error
