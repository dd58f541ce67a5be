"""TensorFlow import (`ge_frontend.tf_import`, `ge-atc --framework=3`).

TensorFlow is the numeric reference throughout: each graph is built here
with `tf.function` and seeded weights, frozen, imported, and its outputs
compared with TensorFlow running the very same `GraphDef`. Small hand-written
graphs (windowed ops over random geometries in both data formats, a graph
mixing NHWC and NCHW ops, an attention block, shape computations, control
inputs) run in the default suite, through the reference evaluator and end to
end through `ge-atc` and the JIT; the Keras applications (`tf_models`) are
slow tests.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tf_models = pytest.importorskip("tf_models")  # skips without tensorflow
tf = tf_models.tf
freeze, tf_run = tf_models.freeze, tf_models.tf_run

from ge_frontend.importing import ImportedModel  # noqa: E402
from ge_frontend.tf_import import import_tensorflow, parse_out_nodes  # noqa: E402
from ge_runtime.offline_model import load_offline_model  # noqa: E402
from ge_runtime.reference import evaluate  # noqa: E402
from ge_runtime.scheduler import compile_model  # noqa: E402
from passes.format_pipeline import runtime_transdata_count  # noqa: E402
from tools import ge_atc  # noqa: E402

TOLERANCE = 1e-4
"""Reference evaluator vs TensorFlow: max |ours - TF| <= TOLERANCE * max |TF|."""
END_TO_END_TOLERANCE = 1e-3
"""Compiled model vs TensorFlow (the issue's bound)."""

RNG = np.random.default_rng(24)


def weight(*shape: int, scale: float = 0.5) -> tf.Tensor:
    """A seeded random constant."""
    return tf.constant(RNG.normal(0.0, scale, shape).astype(np.float32))


def spec(*shape: int, name: str = "input") -> tf.TensorSpec:
    return tf.TensorSpec(shape, tf.float32, name=name)


def ops_of(imported: ImportedModel) -> Counter:
    """How many of each `ge` op the graph holds."""
    return Counter(op.name for op in imported.module.walk())


def assert_close(ours: np.ndarray, ref: np.ndarray, tolerance: float) -> float:
    """Shapes equal and max |ours - ref| <= tolerance * max |ref|; the ratio."""
    assert ours.shape == ref.shape
    scale = float(np.abs(ref).max(initial=0.0))
    error = float(np.abs(ours.astype(np.float64) - ref).max(initial=0.0))
    assert error <= tolerance * max(scale, 1e-30), (error, scale)
    return error / scale if scale else error


def check_against_tf(
    graph,
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str] | None = None,
    tolerance: float = TOLERANCE,
) -> ImportedModel:
    """Import `graph`, evaluate it in NumPy and compare with TensorFlow."""
    out_nodes = parse_out_nodes(";".join(outputs)) if outputs else None
    imported = import_tensorflow(graph, out_nodes=out_nodes)
    ours = evaluate(imported.module, inputs, weights=imported.weights)
    refs = tf_run(graph, inputs, imported.output_names)
    for mine, ref in zip(ours, refs, strict=True):
        assert_close(mine, ref, tolerance)
    return imported


@dataclass
class EndToEnd:
    """A `ge-atc --framework=3` compile and a JIT run, against TensorFlow."""

    outputs: list[np.ndarray]
    references: list[np.ndarray]
    transdata: int
    compile_seconds: float
    errors: list[float]


def compile_and_run(
    tmp_path: Path,
    capsys,
    model: Path,
    inputs: Mapping[str, np.ndarray],
    out_nodes: Sequence[str] | None = None,
    soc: str = "Ascend910",
    tolerance: float = END_TO_END_TOLERANCE,
) -> EndToEnd:
    """Compile `model` with ge-atc, run the `.om` through the JIT, compare with TF."""
    shapes = ";".join(
        f"{name}:{','.join(map(str, array.shape))}" for name, array in inputs.items()
    )
    args = [
        f"--model={model}",
        "--framework=3",
        f"--output={tmp_path / 'model'}",
        f"--input_shape={shapes}",
        f"--soc_version={soc}",
        "--log=error",
    ]
    if out_nodes:
        args.append(f"--out_nodes={';'.join(out_nodes)}")
    start = time.perf_counter()
    code = ge_atc.main(args)
    seconds = time.perf_counter() - start
    assert code == 0, capsys.readouterr().err
    offline = load_offline_model(tmp_path / "model.om")
    assert offline.manifest["framework"] == "tensorflow"
    assert offline.manifest["compile_options"]["input_format"] == "NHWC"
    module = offline.module()
    outputs = compile_model(module, offline.weights, target=offline.target).run(inputs)
    names = [entry["name"] for entry in offline.manifest["outputs"]]
    refs = tf_run(tf_models.load_graph(model), inputs, names)
    errors = [
        assert_close(ours, ref, tolerance)
        for ours, ref in zip(outputs, refs, strict=True)
    ]
    return EndToEnd(outputs, refs, runtime_transdata_count(module), seconds, errors)


def save(graph, path: Path) -> Path:
    path.write_bytes(graph.SerializeToString())
    return path


def node_ops(graph) -> Counter:
    return Counter(node.op for node in graph.node)


# ---------------------------------------------------------------------------
# Windowed ops over random geometries, both data formats
# ---------------------------------------------------------------------------

PADDINGS = ("SAME", "VALID", "EXPLICIT")


@st.composite
def window_geometry(draw, explicit: bool = True):
    """Sizes, kernel, stride, dilation, padding and format of a windowed op."""
    data_format = draw(st.sampled_from(["NHWC", "NCHW"]))
    kernel = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)))
    dilation = draw(st.sampled_from([(1, 1), (1, 1), (2, 1), (2, 3)]))
    stride = (
        (1, 1)
        if dilation != (1, 1)
        else draw(st.sampled_from([(1, 1), (2, 2), (3, 2), (1, 3)]))
    )
    reach = [(k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True)]
    size = [draw(st.integers(r, r + 16)) for r in reach]
    padding = draw(st.sampled_from(PADDINGS if explicit else PADDINGS[:2]))
    pads = None
    if padding == "EXPLICIT":  # TensorFlow wants each pad below the window size
        pads = [draw(st.integers(0, min(k - 1, 2))) for k in kernel for _ in "ab"]
    return data_format, kernel, stride, dilation, size, padding, pads


def in_format(values: Sequence[int], data_format: str, fill: int = 1) -> list[int]:
    """[h, w] values as a 4-value list in `data_format`'s axis order."""
    h, w = values
    return [fill, h, w, fill] if data_format == "NHWC" else [fill, fill, h, w]


def explicit_pairs(pads: Sequence[int] | None, data_format: str) -> list[int]:
    """[top, bottom, left, right] as TensorFlow's explicit_paddings (8 values)."""
    if pads is None:
        return []
    hw = [*pads[:2], *pads[2:]]
    if data_format == "NHWC":
        return [0, 0, *hw, 0, 0]
    return [0, 0, 0, 0, *hw]


def nhwc_shape(size: Sequence[int], channels: int, data_format: str) -> list[int]:
    h, w = size
    return [1, h, w, channels] if data_format == "NHWC" else [1, channels, h, w]


@settings(max_examples=25)
@given(
    geometry=window_geometry(),
    depthwise=st.booleans(),
    channels=st.sampled_from([1, 3, 5]),
)
def test_conv_geometry_matches_tensorflow(geometry, depthwise, channels):
    data_format, kernel, stride, dilation, size, padding, pads = geometry
    if depthwise:
        # TensorFlow's CPU kernel aborts on dilations and explicit padding (a
        # dilated depthwise conv is space_to_batch + conv in tf.nn) and wants
        # equal strides
        if dilation != (1, 1) or padding == "EXPLICIT":
            dilation, padding, pads = (1, 1), "VALID", None
        stride = (stride[0], stride[0])
    shape = nhwc_shape(size, channels, data_format)
    out_channels = 2 if depthwise else 4
    filter_value = weight(*kernel, channels, out_channels)
    bias = weight(channels * out_channels if depthwise else out_channels)
    attrs = {
        "strides": in_format(stride, data_format),
        "padding": padding,
        "explicit_paddings": explicit_pairs(pads, data_format),
        "data_format": data_format,
        "dilations": in_format(dilation, data_format),
    }
    op = tf.raw_ops.DepthwiseConv2dNative if depthwise else tf.raw_ops.Conv2D

    def net(x):
        y = op(input=x, filter=filter_value, **attrs)
        return tf.nn.bias_add(y, bias, data_format=data_format)

    graph = freeze(net, spec(*shape))
    x = RNG.standard_normal(shape).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    ops = ops_of(imported)
    assert ops["ge.conv2d"] == 1 and ops["ge.bias_add"] == 1


@settings(max_examples=20)
@given(geometry=window_geometry(), is_max=st.booleans())
def test_pool_geometry_matches_tensorflow(geometry, is_max):
    data_format, kernel, stride, _, size, padding, pads = geometry
    if not is_max and padding == "EXPLICIT":
        padding, pads = "SAME", None  # AvgPool has no explicit paddings
    shape = nhwc_shape(size, 3, data_format)
    attrs = {
        "ksize": in_format(kernel, data_format),
        "strides": in_format(stride, data_format),
        "padding": padding,
        "data_format": data_format,
    }
    if is_max:
        attrs["explicit_paddings"] = explicit_pairs(pads, data_format)
    op = tf.raw_ops.MaxPool if is_max else tf.raw_ops.AvgPool
    graph = freeze(
        lambda x: op(input=x, **attrs) if is_max else op(value=x, **attrs), spec(*shape)
    )
    x = RNG.standard_normal(shape).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    assert ops_of(imported)["ge.max_pool" if is_max else "ge.avg_pool"] == 1
