"""ONNX LSTM, GRU and RNN (`ge_frontend.onnx_recurrent`, a decomposition into
matmuls and elementwise ops) against onnxruntime, over every direction, both
layouts, with and without bias and initial state, and the attributes ONNX
defines (peepholes, clip, input_forget, linear_before_reset, activations with
alpha/beta), at opsets 7 and 14 (onnxruntime has no `layout = 1`: those
cases compare with onnx's reference evaluator)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit

from ge_dialect.diagnostics import GEError
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.reference import evaluate

ort = pytest.importorskip("onnxruntime")

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
TOLERANCE = 1e-5
"""max |ours - ref| <= TOLERANCE * max |ref| (float32, a few steps)."""


def recurrent_model(
    op: str,
    *,
    direction: str = "forward",
    layout: int = 0,
    bias: bool = True,
    initial: bool = True,
    peepholes: bool = False,
    opset: int = 14,
    steps: int = 4,
    batch: int = 3,
    inputs: int = 5,
    hidden: int = 6,
    seed: int = 0,
    **attrs: Any,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node recurrent model (seeded weights) and its run-time inputs."""
    rng = np.random.default_rng(seed)
    dirs, gates = (2 if direction == "bidirectional" else 1), GATES[op]

    def rand(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    x_shape = (batch, steps, inputs) if layout else (steps, batch, inputs)
    state_shape = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    feeds = {"X": rand(*x_shape)}
    weights = {
        "W": rand(dirs, gates * hidden, inputs, scale=0.5),
        "R": rand(dirs, gates * hidden, hidden, scale=0.5),
    }
    names = ["X", "W", "R", "", ""]
    if bias:
        weights["B"] = rand(dirs, 2 * gates * hidden, scale=0.3)
        names[3] = "B"
    states = ["h0", "c0"] if op == "LSTM" else ["h0"]
    for state in states:
        if initial:
            feeds[state] = rand(*state_shape)
        names.append(state if initial else "")
    if peepholes:
        weights["P"] = rand(dirs, 3 * hidden)
        names.append("P")
    while not names[-1]:
        names.pop()
    outputs = ["Y", "Y_h", "Y_c"][: 3 if op == "LSTM" else 2]
    if layout:
        attrs["layout"] = 1
    node = helper.make_node(
        op, names, outputs, hidden_size=hidden, direction=direction, **attrs
    )
    y_shape = (batch, steps, dirs, hidden) if layout else (steps, dirs, batch, hidden)
    graph = helper.make_graph(
        [node],
        "recurrent",
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
            for n, a in feeds.items()
        ],
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
            for n, s in zip(outputs, [y_shape, state_shape, state_shape], strict=False)
        ],
        [numpy_helper.from_array(a, n) for n, a in weights.items()],
    )
    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=opsets), feeds


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    """Our import (reference evaluator) against onnxruntime or onnx's reference."""
    layout = any(a.name == "layout" and a.i for a in model.graph.node[0].attribute)
    if layout:
        expected = ReferenceEvaluator(model).run(None, feeds)
    else:
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        expected = session.run(None, feeds)
    imported = import_onnx(model)
    ours = evaluate(imported.module, feeds, weights=imported.weights)
    assert len(ours) == len(expected)
    for mine, ref in zip(ours, expected, strict=True):
        assert mine.shape == ref.shape
        error = np.abs(mine - ref).max()
        assert error <= TOLERANCE * np.abs(ref).max(), f"max abs error {error}"


@pytest.mark.parametrize(
    ("op", "direction", "layout", "bias", "initial"),
    list(
        itertools.product(
            GATES,
            ["forward", "reverse", "bidirectional"],
            [0, 1],
            [True, False],
            [True, False],
        )
    ),
)
def test_every_direction_layout_bias_and_state(op, direction, layout, bias, initial):
    check(
        *recurrent_model(
            op, direction=direction, layout=layout, bias=bias, initial=initial
        )
    )


@pytest.mark.parametrize(
    ("op", "options"),
    [
        ("LSTM", {"peepholes": True}),
        ("LSTM", {"peepholes": True, "initial": False}),
        ("LSTM", {"peepholes": True, "direction": "bidirectional"}),
        ("LSTM", {"clip": 0.5}),
        ("LSTM", {"clip": 0.7, "peepholes": True, "direction": "bidirectional"}),
        ("LSTM", {"input_forget": 1}),
        ("LSTM", {"input_forget": 1, "peepholes": True}),
        ("LSTM", {"opset": 7}),
        ("LSTM", {"steps": 1, "batch": 1, "inputs": 17, "hidden": 33}),
        (
            "LSTM",
            {
                "activations": ["HardSigmoid", "Elu", "Softsign"],
                "activation_alpha": [0.3, 0.8],
                "activation_beta": [0.4],
            },
        ),
        (
            "LSTM",
            {
                "activations": ["Sigmoid", "Tanh", "Tanh", "Sigmoid", "Relu", "Tanh"],
                "direction": "bidirectional",
            },
        ),
        ("GRU", {"linear_before_reset": 1}),
        ("GRU", {"linear_before_reset": 1, "initial": False}),
        ("GRU", {"linear_before_reset": 1, "bias": False}),
        ("GRU", {"clip": 0.2, "linear_before_reset": 1}),
        ("GRU", {"clip": 0.3, "direction": "bidirectional"}),
        ("GRU", {"opset": 7, "linear_before_reset": 1}),
        (
            "GRU",
            {
                "activations": ["HardSigmoid", "LeakyRelu"],
                "activation_alpha": [0.3, 0.2],
                "activation_beta": [0.4],
            },
        ),
        ("RNN", {"opset": 7}),
        ("RNN", {"clip": 0.4}),
        ("RNN", {"activations": ["Relu"]}),
        ("RNN", {"activations": ["LeakyRelu"]}),
        (
            "RNN",
            {
                "activations": ["Affine"],
                "activation_alpha": [0.5],
                "activation_beta": [0.1],
            },
        ),
        (
            "RNN",
            {
                "activations": ["ScaledTanh"],
                "activation_alpha": [1.5],
                "activation_beta": [0.7],
            },
        ),
        ("RNN", {"activations": ["HardSigmoid"]}),
        ("RNN", {"activations": ["Elu"]}),
        ("RNN", {"activations": ["Softplus"]}),
        (
            "RNN",
            {
                "activations": ["Elu", "LeakyRelu"],
                "activation_alpha": [0.5, 0.3],
                "direction": "bidirectional",
            },
        ),
    ],
    ids=lambda value: (
        value
        if isinstance(value, str)
        else "-".join(f"{k}={v}" for k, v in value.items())
    ),
)
def test_attributes_match_onnxruntime(op: str, options: dict[str, Any]):
    check(*recurrent_model(op, **options))


def test_the_steps_become_matmuls_without_a_recurrent_op():
    model, _ = recurrent_model("GRU", steps=3, direction="bidirectional")
    names = [op.name for op in import_onnx(model).module.walk()]
    # per direction: one input projection of the whole sequence (batched over
    # the steps), then two recurrent matmuls per step (the z/r gates, the h gate)
    assert names.count("ge.batch_matmul") == 2
    assert names.count("ge.matmul") == 2 * 2 * 3


def test_only_the_outputs_read_are_built():
    model, feeds = recurrent_model("LSTM", steps=3)
    del model.graph.output[2]  # Y_c
    del model.graph.output[0]  # Y
    model.graph.node[0].output[0] = ""
    model.graph.node[0].output[2] = ""
    imported = import_onnx(model)
    assert "ge.concat" not in str(imported.module)  # Y's stacking
    check(model, feeds)


def with_sequence_lens(
    lens: np.ndarray | None, op: str = "RNN", **options: Any
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A recurrent model reading `sequence_lens` (a constant, or a graph
    input when `lens` is None) and its feeds."""
    model, feeds = recurrent_model(op, steps=4, batch=3, **options)
    node = model.graph.node[0]
    names = list(node.input) + [""] * (5 - len(node.input))
    names[4] = "lens"
    del node.input[:]
    node.input.extend(names)
    if lens is None:
        model.graph.input.append(
            helper.make_tensor_value_info("lens", TensorProto.INT32, [3])
        )
    else:
        model.graph.initializer.append(numpy_helper.from_array(lens, "lens"))
    return model, feeds


def test_full_sequence_lens_are_accepted():
    model, feeds = with_sequence_lens(np.array([4, 4, 4], np.int32), initial=False)
    check(model, feeds)


@pytest.mark.parametrize("run_time", [False, True])
@pytest.mark.parametrize("op", sorted(GATES))
def test_per_row_sequence_lens_match_onnxruntime(op, run_time):
    """A row past its length keeps its state (Y_h, Y_c) and outputs zeros."""
    lens = np.array([4, 1, 3], np.int32)
    options = {"peepholes": True} if op == "LSTM" else {}
    model, feeds = with_sequence_lens(None if run_time else lens, op, **options)
    if run_time:
        feeds["lens"] = lens
    check(model, feeds)


def test_per_row_sequence_lens_run_on_the_jit(tmp_path):
    lens = np.array([2, 4, 1], np.int32)
    model, feeds = with_sequence_lens(None, "LSTM", peepholes=True)
    assert_runs_on_the_jit(model, {**feeds, "lens": lens}, tmp_path)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (
            with_sequence_lens(np.array([4, 2, 4], np.int32), direction="reverse")[0],
            "RNN with per-row sequence_lens in the reverse direction",
        ),
        (
            with_sequence_lens(None, direction="bidirectional")[0],
            "RNN with per-row sequence_lens in the reverse direction",
        ),
        (
            recurrent_model("RNN", activations=["ThresholdedRelu"])[0],
            "RNN with the ThresholdedRelu activation",
        ),
    ],
    ids=["reverse_sequence_lens", "bidirectional_sequence_lens", "thresholded_relu"],
)
def test_unsupported_configurations_are_named(model, message):
    with pytest.raises(GEError, match=f"unsupported ONNX ops: {message}"):
        import_onnx(model)


def test_unknown_sequence_length_is_refused():
    model, _ = recurrent_model("LSTM")
    dim = model.graph.input[0].type.tensor_type.shape.dim[0]
    dim.Clear()
    dim.dim_param = "seq"
    with pytest.raises(
        GEError, match="unsupported ONNX ops: LSTM on a sequence of unknown length"
    ):
        import_onnx(model)
    fixed = import_onnx(model, input_shapes={"X": [4, 3, 5]}).module
    assert "ge.matmul" in str(fixed)
