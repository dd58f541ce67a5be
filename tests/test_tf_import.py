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

from ge_dialect.diagnostics import GEError
from ge_frontend.importing import ImportedModel
from ge_frontend.tf_import import import_tensorflow, parse_out_nodes
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import compile_model
from ge_runtime.offline.om import load_offline_model
from passes.format_pipeline import runtime_transdata_count
from tools import ge_atc

tf_models = pytest.importorskip("tf_models")  # skips without tensorflow
tf = tf_models.tf
freeze, tf_run = tf_models.freeze, tf_models.tf_run

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


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_3d_ops_are_ge_3d_ops_and_match_tensorflow(padding, tmp_path, capsys):
    """Conv3D (strided; TensorFlow's CPU kernel has no dilations),
    MaxPool3D and AvgPool3D (NDHWC, 17 channels, odd sizes) import as
    `ge.conv3d`, `ge.max_pool3d` and `ge.avg_pool3d`, and match TensorFlow
    in the reference evaluator and end to end on the JIT."""

    def net(x):
        y = tf.nn.conv3d(x, weight(2, 3, 2, 17, 6), [1, 1, 2, 1, 1], padding)
        y = tf.nn.conv3d(y, weight(2, 3, 3, 6, 5), [1, 2, 1, 1, 1], padding)
        y = tf.nn.max_pool3d(y, [2, 2, 3], [1, 2, 2], padding)
        return tf.nn.avg_pool3d(y, [3, 1, 2], [2, 1, 2], padding)

    shape = (2, 9, 13, 15, 17)
    graph = freeze(net, spec(*shape))
    x = RNG.standard_normal(shape).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    ops = ops_of(imported)
    assert ops["ge.max_pool3d"] == 1 and ops["ge.avg_pool3d"] == 1
    assert ops["ge.conv3d"] == 2
    model = tmp_path / "volume.pb"
    model.write_bytes(graph.SerializeToString())
    compile_and_run(tmp_path, capsys, model, {"input": x})


# ---------------------------------------------------------------------------
# A graph mixing NHWC and NCHW ops, end to end
# ---------------------------------------------------------------------------


def mixed_format_net(x):
    """NHWC convs and pools around an NCHW section (conv, bias, batch norm, pool)."""
    y = tf.nn.conv2d(x, weight(3, 3, 3, 8), [1, 2, 2, 1], "SAME")
    y = tf.nn.relu6(tf.nn.bias_add(y, weight(8)))
    t = tf.transpose(y, [0, 3, 1, 2])
    z = tf.nn.conv2d(t, weight(3, 3, 8, 6), [1, 1, 1, 1], "VALID", data_format="NCHW")
    z = tf.nn.bias_add(z, weight(6), data_format="NCHW")
    z, *_ = tf.compat.v1.nn.fused_batch_norm(
        z,
        tf.constant(RNG.uniform(0.5, 1.5, 6).astype(np.float32)),
        weight(6),
        weight(6),
        tf.constant(RNG.uniform(0.5, 1.5, 6).astype(np.float32)),
        epsilon=1e-3,
        is_training=False,
        data_format="NCHW",
    )
    z = tf.nn.max_pool2d(tf.nn.relu(z), 3, 2, "SAME", data_format="NCHW")
    back = tf.transpose(z, [0, 2, 3, 1])
    d = tf.nn.depthwise_conv2d(back, weight(3, 3, 6, 2), [1, 1, 1, 1], "SAME")
    d = tf.nn.avg_pool2d(tf.math.sigmoid(d) * d, 2, 1, "SAME")
    pooled = tf.reduce_mean(d, axis=[1, 2])
    logits = tf.matmul(pooled, weight(12, 5)) + weight(5)
    return tf.nn.softmax(logits), logits


def test_mixed_formats_compile_and_match_tensorflow(tmp_path, capsys):
    graph = freeze(mixed_format_net, spec(1, 17, 17, 3))
    assert {"Conv2D", "DepthwiseConv2dNative", "FusedBatchNormV3"} <= set(
        node_ops(graph)
    )
    x = RNG.standard_normal((1, 17, 17, 3)).astype(np.float32)
    check_against_tf(graph, {"input": x})
    run = compile_and_run(
        tmp_path, capsys, save(graph, tmp_path / "m.pb"), {"input": x}
    )
    assert [out.shape for out in run.outputs] == [(1, 5), (1, 5)]
    assert run.transdata >= 2  # NHWC in and out of the 5-D layout at least


def test_facade_compiles_tensorflow_files_and_graph_defs(tmp_path):
    """`ge_xdsl.compile(path, framework="tensorflow")` is ge-atc --framework=3."""
    import ge_xdsl

    graph = freeze(mixed_format_net, spec(1, 17, 17, 3))
    path = save(graph, tmp_path / "mixed.pb")
    x = RNG.standard_normal((1, 17, 17, 3)).astype(np.float32)
    logits = next(n for n in graph.node if n.op == "Softmax").input[0]
    model = ge_xdsl.compile(
        path,
        framework="tensorflow",
        input_shape={"input": (1, 17, 17, 3)},
        soc_version="Ascend310",
        out_nodes=f"{logits}:0;Identity:0",
    )
    options = model.manifest["compile_options"]
    assert model.manifest["framework"] == "tensorflow"
    assert model.manifest["model"] == "mixed.pb"
    assert (options["framework"], options["input_format"]) == (3, "NHWC")
    assert options["input_shape"] == "input:1,17,17,3"
    assert model.input_names == ["input"]
    assert model.output_names == [f"{logits}:0", "Identity:0"]
    outputs = model.run({"input": x})
    refs = tf_run(graph, {"input": x}, model.output_names)
    for name, ref in zip(model.output_names, refs, strict=True):
        assert_close(outputs[name], ref, END_TO_END_TOLERANCE)
    assert runtime_transdata_count(model.module) >= 2

    in_memory = ge_xdsl.compile(graph, disable_fusion=True)  # framework from type
    assert in_memory.manifest["framework"] == "tensorflow"
    assert in_memory.manifest["compile_options"]["fusion"] is False
    (probs,) = tf_run(graph, {"input": x}, ["Identity:0"])
    assert_close(in_memory.run({"input": x})["Identity:0"], probs, 1e-3)
    from tensorboard.compat.proto.graph_pb2 import GraphDef

    from ge_xdsl.atc import TENSORFLOW_FRAMEWORK, framework_id

    copy = GraphDef.FromString(graph.SerializeToString())  # tensorboard's protos
    assert framework_id(None, copy) == TENSORFLOW_FRAMEWORK
    with pytest.raises(GEError, match="--out_nodes is supported with --framework=3"):
        ge_xdsl.compile(path, framework="onnx", out_nodes="Identity:0")
    with pytest.raises(GEError, match="framework 'caffe' is not supported"):
        ge_xdsl.compile(path, framework="caffe")


def test_origin_formats_come_from_the_anchors():
    """NHWC between the NHWC ops, NCHW on the NCHW section; filters stay HWCN."""
    from xdsl.context import Context

    from ge_dialect.layout import layout_of
    from passes.infer_origin_format import InferOriginFormatPass

    imported = import_tensorflow(freeze(mixed_format_net, spec(1, 17, 17, 3)))
    InferOriginFormatPass(data_format="NHWC").apply(Context(), imported.module)
    origin = {}
    for op in imported.module.walk():
        if "name" in op.attributes and op.results:
            origin[op.attributes["name"].data] = layout_of(op.results[0].type)[0].value
    nchw_ops = ("Conv2D_1", "BiasAdd_1", "FusedBatchNormV3", "Relu", "MaxPool2d")
    nhwc_ops = ("Conv2D", "BiasAdd", "Relu6", "depthwise", "AvgPool2D", "mul")
    for name in nchw_ops:
        assert origin[name] == "NCHW", (name, origin)
    for name in nhwc_ops:
        assert origin[name] == "NHWC", (name, origin)
    filters = [n for n in origin if n.endswith("/filter")]
    assert filters and all(origin[n] == "HWCN" for n in filters)


# ---------------------------------------------------------------------------
# A small attention block
# ---------------------------------------------------------------------------

SEQUENCE, MODEL_DIM, HEADS = 10, 16, 2


def layer_norm(x):
    mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
    scale, offset = weight(MODEL_DIM, scale=0.2) + 1.0, weight(MODEL_DIM, scale=0.1)
    return (x - mean) * tf.math.rsqrt(variance + 1e-5) * scale + offset


def attention_net(x):
    """Pre-norm self-attention and a swish feed-forward, with residuals."""
    head_dim = MODEL_DIM // HEADS
    flat = tf.reshape(layer_norm(x), [SEQUENCE, MODEL_DIM])
    qkv = tf.reshape(
        tf.matmul(flat, weight(MODEL_DIM, 3 * MODEL_DIM)), [1, SEQUENCE, 3 * MODEL_DIM]
    )
    q, k, v = tf.split(qkv, 3, axis=2)

    def heads(t):
        return tf.transpose(tf.reshape(t, [1, SEQUENCE, HEADS, head_dim]), [0, 2, 1, 3])

    scores = tf.matmul(heads(q), heads(k), transpose_b=True) * (head_dim**-0.5)
    context = tf.matmul(tf.nn.softmax(scores), heads(v))
    merged = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [SEQUENCE, MODEL_DIM])
    h = x + tf.reshape(
        tf.matmul(merged, weight(MODEL_DIM, MODEL_DIM)), [1, SEQUENCE, MODEL_DIM]
    )
    ffn = tf.matmul(
        tf.reshape(layer_norm(h), [SEQUENCE, MODEL_DIM]), weight(MODEL_DIM, 32)
    )
    ffn = tf.nn.bias_add(ffn, weight(32))
    ffn = tf.matmul(ffn * tf.math.sigmoid(ffn), weight(32, MODEL_DIM))
    return h + tf.reshape(ffn, [1, SEQUENCE, MODEL_DIM])


def test_attention_block_compiles_and_matches_tensorflow(tmp_path, capsys):
    graph = freeze(attention_net, spec(1, SEQUENCE, MODEL_DIM))
    ops = node_ops(graph)
    assert {"BatchMatMulV2", "Split", "SquaredDifference", "Rsqrt", "Softmax"} <= set(
        ops
    )
    x = RNG.standard_normal((1, SEQUENCE, MODEL_DIM)).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    assert ops_of(imported)["ge.batch_matmul"] == 2
    split = next(n for n in graph.node if n.op == "Split")
    readers = {ref for n in graph.node for ref in n.input if ref.startswith(split.name)}
    assert {f"{split.name}:1", f"{split.name}:2"} <= readers
    run = compile_and_run(
        tmp_path, capsys, save(graph, tmp_path / "a.pb"), {"input": x}
    )
    assert run.outputs[0].shape == (1, SEQUENCE, MODEL_DIM)


# ---------------------------------------------------------------------------
# Graph structure: control inputs, `:N` outputs, --out_nodes, node order
# ---------------------------------------------------------------------------


def test_noop_with_hundreds_of_control_inputs_is_dropped():
    consts = [weight(3) for _ in range(300)]

    def net(x):
        reads = [tf.identity(c) for c in consts]
        with tf.control_dependencies([tf.group(*reads)]):
            return tf.identity(tf.nn.relu(x) + reads[0])

    graph = freeze(net, spec(4, 3))
    noop = next(n for n in graph.node if n.op == "NoOp")
    assert sum(ref.startswith("^") for ref in noop.input) >= 300
    assert any(ref == f"^{noop.name}" for n in graph.node for ref in n.input)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    assert set(ops_of(imported)) == {
        "builtin.module",
        "ge.graph",
        "ge.data",
        "ge.const",
        "ge.relu",
        "ge.add",
        "ge.netoutput",
    }


def split_net(x):
    a, b, c = tf.split(x, [2, 3, 1], axis=1)
    first, second = tf.identity_n([tf.nn.relu(b), tf.math.tanh(c)])
    return tf.concat([second, first, a * 2.0], axis=1), tf.math.exp(a)


def test_split_outputs_identity_n_and_out_nodes():
    graph = freeze(split_net, spec(3, 6))
    assert {"SplitV", "IdentityN"} <= set(node_ops(graph))
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    both = check_against_tf(graph, {"input": x})
    assert both.output_names == ["Identity:0", "Identity_1:0"]
    identity_n = next(n.name for n in graph.node if n.op == "IdentityN")
    chosen = check_against_tf(graph, {"input": x}, [f"{identity_n}:1", "Identity:0"])
    assert chosen.output_names == [f"{identity_n}:1", "Identity:0"]
    only_exp = check_against_tf(graph, {"input": x}, ["Identity_1"])
    assert ops_of(only_exp)["ge.exp"] == 1 and "ge.concat" not in ops_of(only_exp)


def test_unsupported_op_outside_out_nodes_is_not_converted():
    def net(x):
        return tf.nn.relu(x), tf.math.cumsum(x, axis=1)

    graph = freeze(net, spec(2, 5))
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    with pytest.raises(GEError, match=r"unsupported TensorFlow ops: Cumsum \(nodes: "):
        import_tensorflow(graph)
    check_against_tf(graph, {"input": x}, ["Identity"])


def test_unsorted_graph_def_imports_in_dependency_order():
    graph = freeze(split_net, spec(3, 6))
    shuffled = type(graph)()
    shuffled.CopyFrom(graph)
    del shuffled.node[:]
    shuffled.node.extend(reversed(graph.node))
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    outputs = [("Identity", 0), ("Identity_1", 0)]
    imported = import_tensorflow(shuffled, out_nodes=outputs)
    ours = evaluate(imported.module, {"input": x})
    refs = tf_run(graph, {"input": x}, ["Identity:0", "Identity_1:0"])
    for mine, ref in zip(ours, refs, strict=True):
        assert_close(mine, ref, TOLERANCE)


def test_placeholders_become_data_in_graph_def_order():
    def net(a, b):
        return tf.matmul(a, b) - tf.reduce_sum(b)

    graph = freeze(net, spec(2, 3, name="a"), spec(3, 4, name="b"))
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    imported = check_against_tf(graph, {"a": a, "b": b})
    assert imported.input_names == ["a", "b"]


# ---------------------------------------------------------------------------
# Shape computations and data movement
# ---------------------------------------------------------------------------


def shapes_net(x):
    """StridedSlice (shrink, new axis, negative stride), Pack, Unpack, pads, ..."""
    n, h, w, c = (tf.shape(x)[i] for i in range(4))
    flat = tf.reshape(x, tf.stack([n, h * w, c]))
    sliced = x[:, 1:-1, ::2, 0]
    flipped = x[:, ::-1, :, tf.newaxis, 1]
    rows = tf.unstack(x[0, :3], axis=0)
    stacked = tf.stack([rows[2], rows[0]], axis=-1)
    padded = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]], constant_values=0.5)
    mirrored = tf.pad(x, [[0, 0], [1, 1], [2, 2], [0, 0]], mode="REFLECT")
    tiled = tf.tile(tf.expand_dims(tf.reduce_max(x, axis=[1, 2]), 1), [1, 3, 1])
    gathered = tf.gather(x, [2, 0, 2], axis=2)
    part = tf.slice(x, [0, 1, 2, 0], [1, -1, 3, 2])
    squeezed = tf.squeeze(tf.reduce_sum(x, axis=[2], keepdims=True), axis=[2])
    mixed = tf.maximum(tf.sqrt(tf.abs(x) + 1.0), tf.math.exp(-x)) / (x * x + 1.0)
    cast = tf.cast(tf.cast(x * 4.0, tf.int32), tf.float32)
    return (
        flat,
        sliced,
        flipped,
        stacked,
        padded,
        mirrored,
        tiled,
        gathered,
        part,
        squeezed,
        tf.add_n([mixed, cast, tf.math.square(x)]),
        tf.nn.leaky_relu(x, 0.3) - tf.minimum(x, 0.1),
    )


def test_shape_ops_match_tensorflow():
    graph = freeze(shapes_net, spec(1, 5, 7, 3))
    ops = set(node_ops(graph))
    assert {"StridedSlice", "Pack", "Unpack", "PadV2", "MirrorPad", "GatherV2"} <= ops
    x = RNG.standard_normal((1, 5, 7, 3)).astype(np.float32)
    imported = check_against_tf(graph, {"input": x})
    assert "ge.slice" in ops_of(imported)


# ---------------------------------------------------------------------------
# Special values and empty tensors
# ---------------------------------------------------------------------------

SPECIAL = np.array(
    [[np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-30, -7.5, 6.0, 33.0]], np.float32
)


def special_net(x):
    return (
        tf.nn.relu(x),
        tf.nn.relu6(x),
        tf.math.sigmoid(x),
        tf.maximum(x, -1.0),
        x * 2.0 - 1.0,
        tf.math.rsqrt(tf.abs(x)),
        tf.math.squared_difference(x, 1.0),
        0.5 * x * (1.0 + tf.math.erf(x * 0.7071067811865476)),  # exact GELU
    )


def test_special_values_match_tensorflow():
    graph = freeze(special_net, spec(1, SPECIAL.shape[1]))
    imported = import_tensorflow(graph)
    expected = {"ge.relu6", "ge.rsqrt", "ge.squared_difference", "ge.erf"}
    assert expected <= set(ops_of(imported))
    ours = evaluate(imported.module, {"input": SPECIAL})
    refs = tf_run(graph, {"input": SPECIAL}, imported.output_names)
    for name, mine, ref in zip(imported.output_names, ours, refs, strict=True):
        np.testing.assert_allclose(mine, ref, rtol=1e-6, equal_nan=True, err_msg=name)
        finite = np.isfinite(ref)
        assert (np.signbit(mine[finite]) == np.signbit(ref[finite])).all(), name


def test_empty_batch_matches_tensorflow():
    def net(x):
        return tf.nn.relu(tf.matmul(x, weight(5, 3))) + 1.0

    graph = freeze(net, spec(0, 5))
    x = np.zeros((0, 5), np.float32)
    imported = import_tensorflow(graph)
    (ours,) = evaluate(imported.module, {"input": x})
    assert ours.shape == (0, 3)
    assert tf_run(graph, {"input": x}, imported.output_names)[0].shape == (0, 3)


# ---------------------------------------------------------------------------
# Bad input: one line
# ---------------------------------------------------------------------------


def atc_error(capsys, *args) -> str:
    code = ge_atc.main([str(a) for a in args])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_unsupported_ops_are_listed_in_one_line(tmp_path, capsys):
    def net(x):
        first = tf.math.cumsum(x, axis=1)
        second = tf.math.cumsum(x * 2.0, axis=0)
        values, _ = tf.math.top_k(x, k=2)
        return tf.nn.relu(first) + second, values

    model = save(freeze(net, spec(3, 4)), tmp_path / "bad.pb")
    line = atc_error(
        capsys, f"--model={model}", "--framework=3", f"--output={tmp_path / 'o'}"
    )
    assert line.startswith(
        f"{model}: error: unsupported TensorFlow ops: Cumsum (nodes: "
    )
    assert "TopKV2 (nodes: TopKV2)" in line
    assert "Cumsum (nodes: Cumsum, Cumsum_1); TopKV2" in line
    assert "Relu" not in line and "add" not in line  # downstream: not listed
    assert not (tmp_path / "o.om").exists()


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "not a TensorFlow GraphDef (it has no nodes)"),
        (b"\x0a\x05garbage", "not a readable TensorFlow GraphDef"),
    ],
)
def test_unreadable_models_are_one_line_errors(tmp_path, capsys, content, fragment):
    model = tmp_path / "m.pb"
    model.write_bytes(content)
    line = atc_error(
        capsys, f"--model={model}", "--framework=3", f"--output={tmp_path / 'o'}"
    )
    assert fragment in line


def test_bad_out_nodes_and_shapes_are_one_line_errors(tmp_path, capsys):
    model = save(freeze(split_net, spec(3, 6)), tmp_path / "m.pb")
    base = [f"--model={model}", "--framework=3", f"--output={tmp_path / 'o'}"]
    assert "out node 'nowhere' is not in the graph" in atc_error(
        capsys, *base, "--out_nodes=nowhere:0"
    )
    assert "node 'Identity' (Identity) has no output 1 (it has 1)" in atc_error(
        capsys, *base, "--out_nodes=Identity:1"
    )
    assert "sets dim 1 to 7, the model fixes it to 6" in atc_error(
        capsys, *base, "--input_shape=input:3,7"
    )
    assert "--out_nodes is supported with --framework=3" in atc_error(
        capsys,
        f"--model={Path(__file__).parent.parent / 'examples' / 'small_cnn.onnx'}",
        "--framework=5",
        "--out_nodes=x:0",
        f"--output={tmp_path / 'o'}",
    )


def test_parse_out_nodes():
    assert parse_out_nodes("a:0; b/c:2 ;d") == [("a", 0), ("b/c", 2), ("d", 0)]
    with pytest.raises(GEError, match="bad --out_nodes"):
        parse_out_nodes(" ; ")


# ---------------------------------------------------------------------------
# The Keras applications (slow)
# ---------------------------------------------------------------------------


TRANSDATA_CEILINGS = {
    "MobileNetV2": 3,
    "ResNet50": 3,
    "InceptionV3": 3,
    "DenseNet121": 3,
    "EfficientNetB0": 3,
}
"""Runtime TransData measured per model (a model needing more fails;
`bench/bench_tf_models.py` lists where each sits): NHWC -> NC1HWC0 at the
input (pads, SE blocks' means and the global mean run in 5HD: they leave C
alone), ND -> FRACTAL_NZ into the classifier's MatMul, and FRACTAL_NZ -> ND
after it: the logits output and the softmax share it (sink-trans-ops runs
the softmax on the logits' ND copy)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", list(tf_models.KERAS_MODELS))
def test_keras_application_compiles_and_matches_tensorflow(tmp_path, capsys, name):
    model = tf_models.cached_graph(tf_models.KERAS_MODELS[name])
    graph = tf_models.load_graph(model)
    placeholder = next(n for n in graph.node if n.op == "Placeholder")
    shape = [dim.size for dim in placeholder.attr["shape"].shape.dim]
    logits = next(n for n in graph.node if n.op == "Softmax").input[0]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    run = compile_and_run(
        tmp_path, capsys, model, {"input": x}, out_nodes=[logits, "Identity:0"]
    )
    imported = import_tensorflow(model)
    ops = {k: v for k, v in ops_of(imported).items() if k.startswith("ge.")}
    print(
        f"{name}: {sum(ops.values())} ge ops {dict(sorted(ops.items()))}, "
        f"compile {run.compile_seconds:.1f} s, {run.transdata} runtime TransData, "
        f"max error {max(run.errors):.2e} x max|ref|"
    )
    assert run.transdata <= TRANSDATA_CEILINGS[name]
