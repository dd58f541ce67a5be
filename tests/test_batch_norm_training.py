"""ONNX BatchNormalization in training mode (opset 14+): normalised with the
batch's mean and (biased) variance over every axis but the channels, and the
running mean and variance updated with `momentum`. One-node models through
`ge-atc` + `ge-run`, every op on the JIT, against ONNX's reference evaluator
(onnxruntime's CPU build runs only inference) at odd sizes, ranks 2 to 5,
with NaN and infinities."""

from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, one_node_model


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("shape", [(17, 3), (3, 17, 5), (2, 3, 5, 17), (1, 3, 3, 2, 5)])
def test_matches_the_onnx_reference_on_the_jit(tmp_path, shape, special):
    rng = np.random.default_rng(len(shape))
    channels = shape[1]
    x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
    if special:
        x.reshape(-1)[0] = np.nan  # its channel's statistics become NaN
        x.reshape(-1)[-1] = np.inf
    inputs = {
        "x": x,
        "scale": rng.standard_normal(channels).astype(np.float32),
        "bias": rng.standard_normal(channels).astype(np.float32),
        "mean": rng.standard_normal(channels).astype(np.float32),
        "var": rng.random(channels).astype(np.float32) + 0.5,
    }
    model = one_node_model(
        "BatchNormalization",
        inputs,
        outputs=("y", "running_mean", "running_var"),
        opset=15,
        training_mode=1,
        epsilon=1e-3,
        momentum=0.8,
    )
    expected = ReferenceEvaluator(model).run(None, inputs)
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)
