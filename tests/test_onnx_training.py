"""ONNX's training optimizers (`ai.onnx.preview.training` Adagrad, Momentum,
Adam) decomposed into elementwise `ge` ops (`ge_frontend/onnx_training.py`):
one-node models through `ge-atc` + `ge-run`, every op on the JIT, against
ONNX's reference evaluator (onnxruntime has no kernels for this domain), at
odd sizes, with several tensors per node, the first step (`T = 0`) and
later ones, NaN and infinities in the gradients, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, atc_error

DOMAIN = "ai.onnx.preview.training"

STATE = {"Adagrad": ("H",), "Momentum": ("V",), "Adam": ("V", "H")}
"""The state each optimizer keeps per tensor, in input order."""

ATTRIBUTES = {
    "Adagrad": {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.001},
    "Momentum": {
        "alpha": 0.95,
        "beta": 0.1,
        "mode": "standard",
        "norm_coefficient": 0.01,
    },
    "Nesterov": {
        "alpha": 0.9,
        "beta": 0.7,
        "mode": "nesterov",
        "norm_coefficient": 0.02,
    },
    "Adam": {
        "alpha": 0.9,
        "beta": 0.99,
        "epsilon": 1e-6,
        "norm_coefficient": 0.001,
        "norm_coefficient_post": 0.01,
    },
}


def training_model(op, sizes, dtype):
    """One `op` node updating tensors of `sizes` (inputs R, T, Xs, Gs, state)."""
    op_type = "Momentum" if op == "Nesterov" else op
    groups = ("X", "G", *STATE[op_type])
    names = [f"{g}{i}" for g in groups for i in range(len(sizes))]
    outputs = [f"{g}{i}_new" for g in ("X", *STATE[op_type]) for i in range(len(sizes))]
    element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    inputs = [
        helper.make_tensor_value_info("R", element, []),
        helper.make_tensor_value_info("T", 7, []),
        *(
            helper.make_tensor_value_info(n, element, [sizes[i % len(sizes)]])
            for i, n in enumerate(names)
        ),
    ]
    node = helper.make_node(
        op_type, ["R", "T", *names], outputs, domain=DOMAIN, **ATTRIBUTES[op]
    )
    graph = helper.make_graph(
        [node],
        "g",
        inputs,
        [
            helper.make_tensor_value_info(n, element, [sizes[i % len(sizes)]])
            for i, n in enumerate(outputs)
        ],
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(DOMAIN, 1)],
        ir_version=10,
    )


def feeds(model, step, dtype, special):
    rng = np.random.default_rng(step)
    values = {"R": np.array(0.1, dtype), "T": np.array(step, np.int64)}
    for value in model.graph.input[2:]:
        size = value.type.tensor_type.shape.dim[0].dim_value
        array = rng.standard_normal(size).astype(dtype)
        if value.name.startswith("H"):
            array = np.abs(array)  # a sum of squares
        if special and value.name.startswith("G"):
            array[: min(size, 3)] = [np.nan, np.inf, -np.inf][: min(size, 3)]
        values[value.name] = array
    return values


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("step", [0, 3])
@pytest.mark.parametrize("op", ["Adagrad", "Momentum", "Nesterov", "Adam"])
def test_matches_the_onnx_reference_on_the_jit(tmp_path, op, step, special):
    dtype = "float64" if special and step else "float32"
    model = training_model(op, [3, 17], dtype)
    inputs = feeds(model, step, dtype, special)
    expected = [
        np.asarray(e, dtype) for e in ReferenceEvaluator(model).run(None, inputs)
    ]
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


def test_inputs_not_grouped_by_tensor(tmp_path, capsys):
    """Adagrad's inputs are R, T and three per tensor: four is an error."""
    model = training_model("Adagrad", [3], "float32")
    node = model.graph.node[0]
    node.input.append("H0")
    error = atc_error(model, tmp_path, capsys)
    assert "takes R, T and 3 inputs per updated tensor, got 6 inputs" in error
