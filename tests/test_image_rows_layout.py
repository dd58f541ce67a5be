"""Images turned into rows of channels and back, through `ge-atc` against
onnxruntime.

A ViT-style stem written here in ONNX (seeded weights): a patch embedding
(a strided convolution, its result flattened over H and W and the channels
moved last), a class token concatenated before the patch tokens, a
position embedding added, a matrix product over the tokens, the class
token sliced off and the tokens folded back into an image for a 1x1
convolution (SVTR's mixing blocks end so). `fold-reshape-transpose` makes
both regroupings `ge.confusion_transpose` between NC1HWC0 and FRACTAL_NZ
(whole C0 channel vectors move), and the concat and the slice run in
FRACTAL_NZ at row offset 1 (whole fractal rows move): only the graph's
input and output convert (2 runtime TransData) at every channel count,
aligned to C0 or not. A CTC head (a convolution's strip squeezed and its
channels moved last for a classifier) reads the convolution's result
straight into FRACTAL_NZ the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import model_zoo  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ge_dialect.formats import Format  # noqa: E402
from ge_dialect.layout import layout_attr  # noqa: E402
from ge_dialect.ops import ConcatOp, ConfusionTransposeOp, ConstOp, TransDataOp  # noqa: E402
from ge_runtime.engines.scheduler import compile_model  # noqa: E402
from ge_runtime.offline.om import load_offline_model  # noqa: E402

TOLERANCE = 1e-3
BATCH = 2
PATCH = 2


def stem(channels: int, out_channels: int, height: int, width: int) -> onnx.ModelProto:
    """The stem on a [BATCH, 3, 2*height, 2*width] image (see the module)."""
    rng = np.random.default_rng(channels * 31 + height * 7 + width)
    tokens = height * width

    def weight(name: str, shape: tuple[int, ...]) -> str:
        value = (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(
            np.float32
        )
        initializers.append(numpy_helper.from_array(value, name))
        return name

    def ints(name: str, values: list[int]) -> str:
        initializers.append(numpy_helper.from_array(np.array(values, np.int64), name))
        return name

    initializers: list[onnx.TensorProto] = []
    node = helper.make_node
    nodes = [
        node(
            "Conv",
            [
                "x",
                weight("patch_w", (channels, 3, PATCH, PATCH)),
                weight("patch_b", (channels,)),
            ],
            ["patches"],
            strides=[PATCH, PATCH],
        ),
        node(
            "Reshape",
            ["patches", ints("flat", [BATCH, channels, tokens])],
            ["flat_patches"],
        ),
        node("Transpose", ["flat_patches"], ["patch_tokens"], perm=[0, 2, 1]),
        node(
            "Concat",
            [weight("cls", (BATCH, 1, channels)), "patch_tokens"],
            ["tokens"],
            axis=1,
        ),
        node("Add", ["tokens", weight("pos", (1, tokens + 1, channels))], ["embedded"]),
        node("MatMul", ["embedded", weight("mix", (channels, channels))], ["mixed"]),
        node(
            "Slice",
            [
                "mixed",
                ints("starts", [1]),
                ints("ends", [tokens + 1]),
                ints("axes", [1]),
            ],
            ["mixed_patches"],
        ),
        node(
            "Reshape",
            ["mixed_patches", ints("grid_shape", [BATCH, height, width, channels])],
            ["grid"],
        ),
        node("Transpose", ["grid"], ["image"], perm=[0, 3, 1, 2]),
        node(
            "Conv", ["image", weight("head_w", (out_channels, channels, 1, 1))], ["y"]
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "stem",
        [
            helper.make_tensor_value_info(
                "x", TensorProto.FLOAT, [BATCH, 3, PATCH * height, PATCH * width]
            )
        ],
        [
            helper.make_tensor_value_info(
                "y", TensorProto.FLOAT, [BATCH, out_channels, height, width]
            )
        ],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("channels", "out_channels", "height", "width"),
    [
        pytest.param(3, 17, 1, 17, id="c3-1x17"),
        pytest.param(17, 3, 3, 11, id="c17-3x11"),
        pytest.param(33, 100, 4, 4, id="c33-4x4"),
        pytest.param(100, 33, 1, 3, id="c100-1x3"),
        pytest.param(16, 16, 4, 4, id="c16-4x4"),
    ],
)
def test_image_rows_stay_in_internal_layouts(
    channels: int, out_channels: int, height: int, width: int, tmp_path: Path
):
    model = stem(channels, out_channels, height, width)
    path = tmp_path / "stem.onnx"
    onnx.save(model, path)
    rng = np.random.default_rng(channels + height)
    feeds = {
        "x": rng.standard_normal((BATCH, 3, PATCH * height, PATCH * width)).astype(
            np.float32
        )
    }
    om = tmp_path / "stem"
    _, error = model_zoo.compile_with_atc(
        path, om, model_zoo.input_shape_flag(feeds), ("--soc_version=Ascend910",)
    )
    assert error is None, error
    offline = load_offline_model(f"{om}.om")
    module = offline.module()
    regroupings = [op for op in module.walk() if isinstance(op, ConfusionTransposeOp)]
    assert [
        (layout_attr(op.x.type).storage_format, layout_attr(op.y.type).storage_format)
        for op in regroupings
    ] == [
        (Format.NC1HWC0, Format.FRACTAL_NZ),
        (Format.FRACTAL_NZ, Format.NC1HWC0),
    ]
    (concat,) = [op for op in module.walk() if isinstance(op, ConcatOp)]
    assert layout_attr(concat.y.type).storage_format is Format.FRACTAL_NZ
    transdata = [
        op
        for op in module.walk()
        if isinstance(op, TransDataOp) and not isinstance(op.x.owner, ConstOp)
    ]
    assert len(transdata) == 2  # the image in, the result out
    compiled = compile_model(module, offline.weights, target=offline.target)
    expected = model_zoo.onnxruntime_outputs(path, feeds)
    error = model_zoo.relative_error(compiled.run(feeds), expected)
    assert error <= TOLERANCE, f"max error {error:.2e} x max |reference|"


def ctc_head(channels: int, width: int, classes: int) -> onnx.ModelProto:
    """A CTC head: a convolution on a [BATCH, 3, 1, width] strip, ReLU,
    the unit H squeezed, the channels moved last, a classifier product."""
    rng = np.random.default_rng(channels * 5 + width)
    conv_w = rng.standard_normal((channels, 3, 1, 3)).astype(np.float32) / 3
    classify = rng.standard_normal((channels, classes)).astype(np.float32)
    node = helper.make_node
    nodes = [
        node("Conv", ["x", "conv_w"], ["c"], pads=[0, 1, 0, 1]),
        node("Relu", ["c"], ["r"]),
        node("Squeeze", ["r", "unit_h"], ["s"]),
        node("Transpose", ["s"], ["t"], perm=[0, 2, 1]),
        node("MatMul", ["t", "classify"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "ctc_head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, 3, 1, width])],
        [
            helper.make_tensor_value_info(
                "y", TensorProto.FLOAT, [BATCH, width, classes]
            )
        ],
        [
            numpy_helper.from_array(conv_w, "conv_w"),
            numpy_helper.from_array(
                (classify / np.sqrt(channels)).astype(np.float32), "classify"
            ),
            numpy_helper.from_array(np.array([2], np.int64), "unit_h"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("channels", "width", "classes"),
    [(3, 17, 33), (17, 3, 100), (100, 33, 3)],
    ids=["c3-w17", "c17-w3", "c100-w33"],
)
def test_ctc_head_reads_the_convolution_in_fractal_nz(
    channels: int, width: int, classes: int, tmp_path: Path
):
    """The squeeze and transpose fuse into one NC1HWC0 -> FRACTAL_NZ
    confusion transpose before the transpose could become the product's
    attribute: only the strip in and the scores out convert."""
    path = tmp_path / "ctc.onnx"
    onnx.save(ctc_head(channels, width, classes), path)
    rng = np.random.default_rng(width)
    feeds = {"x": rng.standard_normal((BATCH, 3, 1, width)).astype(np.float32)}
    om = tmp_path / "ctc"
    _, error = model_zoo.compile_with_atc(
        path, om, model_zoo.input_shape_flag(feeds), ("--soc_version=Ascend910",)
    )
    assert error is None, error
    offline = load_offline_model(f"{om}.om")
    module = offline.module()
    (regrouping,) = [op for op in module.walk() if isinstance(op, ConfusionTransposeOp)]
    assert layout_attr(regrouping.x.type).storage_format is Format.NC1HWC0
    assert layout_attr(regrouping.y.type).storage_format is Format.FRACTAL_NZ
    transdata = [
        op
        for op in module.walk()
        if isinstance(op, TransDataOp) and not isinstance(op.x.owner, ConstOp)
    ]
    assert len(transdata) == 2  # the strip in, the scores out
    compiled = compile_model(module, offline.weights, target=offline.target)
    expected = model_zoo.onnxruntime_outputs(path, feeds)
    error = model_zoo.relative_error(compiled.run(feeds), expected)
    assert error <= TOLERANCE, f"max error {error:.2e} x max |reference|"
