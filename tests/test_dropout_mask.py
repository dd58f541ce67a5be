"""ONNX Dropout at inference with its mask output: the identity and a mask
that keeps everything (bool since opset 10, x's dtype before), through
`ge-atc` + `ge-run` against onnxruntime (JIT only)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx_jit import assert_runs_on_the_jit, one_node_model


@pytest.mark.parametrize("opset", [7, 12, 13, 22])
def test_mask_output_keeps_everything(tmp_path, opset):
    x = np.random.default_rng(0).standard_normal((3, 17, 5)).astype(np.float32)
    x[0, 0, :3] = [np.nan, np.inf, -0.0]
    initializers = {"ratio": np.array(0.3, np.float32)} if opset >= 12 else {}
    model = one_node_model(
        "Dropout",
        {"x": x},
        outputs=("y", "mask"),
        initializers=initializers,
        opset=opset,
    )
    mask_dtype = bool if opset >= 10 else np.float32
    expected = [x, np.ones(x.shape, mask_dtype)]
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected=expected)
