"""ONNX DeformConv (`ge_frontend/onnx_deform_conv.py`: bilinear samples at
the offset taps through `ge.grid_sample`, then a grouped `ge.batch_matmul`):
one-node models through `ge-atc` + `ge-run`, every op on the JIT, against
ONNX's reference evaluator at odd sizes, with groups, offset groups,
strides, dilations, pads, mask and bias, offsets reaching outside the image,
and a NaN and an infinity (at an edge: a tap outside reads 0, not 0 times
the clamped edge pixel) in the input."""

from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

CASES = {
    "plain": ((1, 1, 3, 3), (1, 1, 2, 2), {}),
    "groups_strided_padded": (
        (2, 4, 5, 7),
        (6, 2, 3, 2),
        dict(group=2, offset_group=2, strides=[2, 1], pads=[1, 0, 1, 1]),
    ),
    "dilated_17_channels": ((1, 17, 7, 5), (3, 17, 2, 3), dict(dilations=[2, 1])),
}


def out_size(size, kernel, stride, dilation, before, after):
    return (size + before + after - dilation * (kernel - 1) - 1) // stride + 1


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_the_onnx_reference_on_the_jit(tmp_path, name, with_mask, special):
    x_shape, w_shape, attributes = CASES[name]
    rng = np.random.default_rng(len(name) + with_mask)
    strides = attributes.get("strides", [1, 1])
    dilations = attributes.get("dilations", [1, 1])
    pads = attributes.get("pads", [0, 0, 0, 0])
    out = [
        out_size(
            x_shape[2 + a],
            w_shape[2 + a],
            strides[a],
            dilations[a],
            pads[a],
            pads[2 + a],
        )
        for a in range(2)
    ]
    groups = attributes.get("offset_group", 1)
    taps = w_shape[2] * w_shape[3]
    x = rng.standard_normal(x_shape).astype(np.float32)
    if special:
        x[0, 0, 1, 1], x[-1, -1, -1, -1] = np.nan, np.inf  # inf at an edge
    inputs = {
        "X": x,
        "W": rng.standard_normal(w_shape).astype(np.float32),
        "offset": (
            rng.standard_normal((x_shape[0], groups * taps * 2, *out)) * 1.5
        ).astype(np.float32),
        "B": rng.standard_normal(w_shape[0]).astype(np.float32),
    }
    if with_mask:
        inputs["mask"] = rng.random((x_shape[0], groups * taps, *out)).astype(
            np.float32
        )
    model = one_node_model(
        "DeformConv", inputs, opset=19, kernel_shape=list(w_shape[2:]), **attributes
    )
    expected = ReferenceEvaluator(model).run(None, inputs)
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


def test_an_input_of_height_1_is_refused(tmp_path, capsys):
    inputs = {
        "X": np.zeros((1, 1, 1, 3), np.float32),
        "W": np.zeros((1, 1, 1, 2), np.float32),
        "offset": np.zeros((1, 4, 1, 2), np.float32),
    }
    model = with_output_types(
        one_node_model("DeformConv", inputs, opset=19),
        [np.zeros((1, 1, 1, 2), np.float32)],
    )
    error = atc_error(model, tmp_path, capsys)
    assert "unsupported ONNX ops: DeformConv on an input of height or width 1" in error
