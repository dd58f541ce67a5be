"""Write `examples/small_cnn.onnx`: the bundled small CNN for `ge-atc`.

    python examples/make_small_cnn.py [OUTPUT.onnx]

A deterministic (seeded) NCHW float32 network with odd channel counts, so
that every NC1HWC0 / FRACTAL_Z / FRACTAL_NZ conversion has padding:

    input "input" ?x3x32x32 (dynamic batch: fix it with --input_shape)
    conv1 3->17 3x3 + BatchNormalization + Relu, MaxPool 2x2  -> 17x16x16
    branch a: conv2a 17->33 1x1 + Relu                          -> 33x16x16
    branch b: conv2b 17->17 3x3 + Relu, AveragePool 3x3 pad 1   -> 17x16x16
    Concat on channels                                          -> 50x16x16
    conv3 50->33 1x1 + Relu, GlobalAveragePool, Flatten         -> 33
    Gemm 33->10, Softmax                                        -> 10 ("probs")
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 2024
OPSET = 17
DEFAULT_OUTPUT = Path(__file__).with_name("small_cnn.onnx")


def _conv_weights(
    rng: np.random.Generator, name: str, cout: int, cin: int, k: int
) -> list[onnx.TensorProto]:
    scale = np.sqrt(2.0 / (cin * k * k))
    weight = (rng.standard_normal((cout, cin, k, k)) * scale).astype(np.float32)
    bias = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    return [
        numpy_helper.from_array(weight, f"{name}.weight"),
        numpy_helper.from_array(bias, f"{name}.bias"),
    ]


def _conv(name: str, x: str, k: int, stride: int = 1) -> onnx.NodeProto:
    pad = k // 2
    return helper.make_node(
        "Conv",
        [x, f"{name}.weight", f"{name}.bias"],
        [name],
        name=name,
        kernel_shape=[k, k],
        strides=[stride, stride],
        pads=[pad, pad, pad, pad],
    )


def make_model(seed: int = SEED) -> onnx.ModelProto:
    """The small CNN with weights drawn from `seed`."""
    rng = np.random.default_rng(seed)
    inits = [
        *_conv_weights(rng, "conv1", 17, 3, 3),
        *_conv_weights(rng, "conv2a", 33, 17, 1),
        *_conv_weights(rng, "conv2b", 17, 17, 3),
        *_conv_weights(rng, "conv3", 33, 50, 1),
        numpy_helper.from_array((rng.random(17) + 0.5).astype(np.float32), "bn1.scale"),
        numpy_helper.from_array(
            (rng.standard_normal(17) * 0.1).astype(np.float32), "bn1.bias"
        ),
        numpy_helper.from_array(
            (rng.standard_normal(17) * 0.1).astype(np.float32), "bn1.mean"
        ),
        numpy_helper.from_array((rng.random(17) + 0.5).astype(np.float32), "bn1.var"),
        numpy_helper.from_array(
            (rng.standard_normal((10, 33)) / np.sqrt(33)).astype(np.float32),
            "fc.weight",
        ),
        numpy_helper.from_array(
            (rng.standard_normal(10) * 0.1).astype(np.float32), "fc.bias"
        ),
    ]
    nodes = [
        _conv("conv1", "input", 3),
        helper.make_node(
            "BatchNormalization",
            ["conv1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"],
            ["bn1"],
            name="bn1",
            epsilon=1e-5,
        ),
        helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
        helper.make_node(
            "MaxPool",
            ["relu1"],
            ["pool1"],
            name="pool1",
            kernel_shape=[2, 2],
            strides=[2, 2],
        ),
        _conv("conv2a", "pool1", 1),
        helper.make_node("Relu", ["conv2a"], ["relu2a"], name="relu2a"),
        _conv("conv2b", "pool1", 3),
        helper.make_node("Relu", ["conv2b"], ["relu2b"], name="relu2b"),
        helper.make_node(
            "AveragePool",
            ["relu2b"],
            ["pool2b"],
            name="pool2b",
            kernel_shape=[3, 3],
            strides=[1, 1],
            pads=[1, 1, 1, 1],
        ),
        helper.make_node(
            "Concat", ["relu2a", "pool2b"], ["concat"], name="concat", axis=1
        ),
        _conv("conv3", "concat", 1),
        helper.make_node("Relu", ["conv3"], ["relu3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["relu3"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node(
            "Gemm", ["flat", "fc.weight", "fc.bias"], ["fc"], name="fc", transB=1
        ),
        helper.make_node("Softmax", ["fc"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "small_cnn",
        [
            helper.make_tensor_value_info(
                "input", TensorProto.FLOAT, ["batch", 3, 32, 32]
            )
        ],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="ge-xdsl examples/make_small_cnn.py",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main(argv: list[str]) -> int:
    """Write the model to `argv[0]` (default: next to this script)."""
    output = Path(argv[0]) if argv else DEFAULT_OUTPUT
    onnx.save(make_model(), output)
    print(f"wrote {output} ({output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
