"""Grouped convolutions whose groups start inside a C0 block (16 float32
channels): 3, 17 and 34 channels per group in 2, 3 and 4 groups, strided
and padded, fused with a bias, a ReLU and a residual add. Through `ge-atc`
and `ge-run` (the JIT and the reference), checked against onnxruntime. The
lowering reads such groups through `floordiv`/`mod` in one nest per output
block shape (`nn.conv_reduction`'s gathered loops), where it once made a
nest per group and per block crossed."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx_jit import assert_runs_on_the_jit

CASES = {
    # channels per group in and out, groups, kernel, stride, pad, residual
    "3x2 groups, 3x3": (3, 3, 2, 3, 1, 1, True),
    "17x3 groups, strided": (17, 17, 3, 3, 2, 1, False),
    "34x4 groups, 1x1 (ShuffleNet)": (34, 34, 4, 1, 1, 0, True),
    "6 in, 28 out, 4 groups": (6, 28, 4, 1, 1, 0, False),
    "17 in, 34 out, 2 groups, unpadded": (17, 34, 2, 3, 1, 0, False),
}


def grouped_model(cin_g, cout_g, groups, kernel, stride, pad, residual, size=9):
    """Conv (bias) -> ReLU, then + the input and a ReLU with `residual`
    (the output channels as many as the input's)."""
    rng = np.random.default_rng(cin_g * 100 + cout_g * 10 + groups)
    cin, cout = cin_g * groups, cout_g * groups
    w = rng.standard_normal((cout, cin_g, kernel, kernel)).astype(np.float32)
    bias = rng.standard_normal(cout).astype(np.float32)
    nodes = [
        helper.make_node(
            "Conv",
            ["x", "w", "b"],
            ["c"],
            group=groups,
            kernel_shape=[kernel, kernel],
            strides=[stride, stride],
            pads=[pad] * 4,
        ),
        helper.make_node("Relu", ["c"], ["y" if not residual else "r"]),
    ]
    if residual:
        nodes += [
            helper.make_node("Add", ["r", "x"], ["s"]),
            helper.make_node("Relu", ["s"], ["y"]),
        ]
    graph = helper.make_graph(
        nodes,
        "grouped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, size, size])],
        [helper.make_empty_tensor_value_info("y")],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8
    )
    x = rng.standard_normal((1, cin, size, size)).astype(np.float32)
    return model, {"x": x}


@pytest.mark.parametrize("name", CASES)
def test_misaligned_groups_match_onnxruntime(tmp_path, name):
    model, inputs = grouped_model(*CASES[name])
    assert_runs_on_the_jit(model, inputs, tmp_path)
