"""TensorFlow test models: built here with seeded weights, frozen, cached, run by TF.

Nothing is downloaded: Keras applications are built with `weights=None` from
a fixed seed; their batch norms are calibrated (moving statistics measured on
a seeded random batch, random scales and shifts) so activations stay
informative through deep networks, as in a trained model. Graphs are frozen
with `convert_variables_to_constants_v2` into a `GraphDef` whose input
placeholder is `input`. Frozen graphs are cached as `.pb` files with the
model zoo's (`model_zoo.cache_dir()`), keyed by the builder's source, this
file's source and the TensorFlow and Keras versions.

TensorFlow itself is the numeric reference: `tf_run` imports the frozen
`GraphDef` and runs it with TensorFlow's own (Eigen) CPU kernels. oneDNN is
switched off: its Conv2D returns zeros for some rows when a stride is larger
than the input (NHWC, kernel 1x2, strides [1, 1, 3, 1], SAME on a 3x2 image;
found by `test_conv_geometry_matches_tensorflow`). The Eigen kernels run
windowed ops only in NHWC, so for the reference run each NCHW `Conv2D`,
`DepthwiseConv2dNative`, `MaxPool` and `AvgPool` is wrapped in transposes
(`nhwc_equivalent`, what TensorFlow's own layout optimizer does); the graph
under test keeps its NCHW ops.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from model_zoo import cache_dir

if "tensorflow" in sys.modules and os.environ.get("TF_ENABLE_ONEDNN_OPTS") != "0":
    raise RuntimeError("tf_models must be imported before tensorflow (oneDNN off)")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

tf = pytest.importorskip("tensorflow")
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2,
)

GraphDef = tf.compat.v1.GraphDef
Builder = Callable[[], GraphDef]


def freeze(function: Callable, *specs: tf.TensorSpec) -> GraphDef:
    """The frozen `GraphDef` of a `tf.function` traced with `specs`."""
    concrete = tf.function(function).get_concrete_function(*specs)
    return convert_variables_to_constants_v2(concrete).graph.as_graph_def()


def cached_graph(builder: Builder, directory: Path | None = None) -> Path:
    """`builder`'s frozen graph as a `.pb` (built unless cached).

    Kept with the model zoo's files (`model_zoo.cache_dir()`), keyed by the
    builder's source, this file and the TensorFlow and Keras versions.
    """
    import keras

    digest = hashlib.sha256()
    for text in (inspect.getsource(builder), Path(__file__).read_text()):
        digest.update(text.encode())
    digest.update(repr((tf.__version__, keras.__version__)).encode())
    directory = cache_dir() if directory is None else directory
    path = directory / f"tf-{builder.__name__}-{digest.hexdigest()[:16]}.pb"
    if path.is_file():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(suffix=".pb", dir=directory)
    with os.fdopen(handle, "wb") as file:
        file.write(builder().SerializeToString())
    os.replace(scratch, path)  # atomic: a concurrent build writes the same
    return path


def load_graph(path: Path) -> GraphDef:
    """A `GraphDef` read from a `.pb` file."""
    return GraphDef.FromString(path.read_bytes())


NCHW_ON_CPU_UNSUPPORTED = ("Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool")
"""Ops whose Eigen CPU kernels run only in NHWC."""
TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def nhwc_equivalent(graph: GraphDef) -> GraphDef:
    """`graph` with each NCHW op of `NCHW_ON_CPU_UNSUPPORTED` run in NHWC.

    Node `op` becomes `Transpose(op/nhwc(Transpose(x)))`: consumers still
    read `op` in NCHW; 4-value attributes are permuted to NHWC.
    """
    result = GraphDef()
    result.CopyFrom(graph)
    del result.node[:]
    for perm in (TO_NHWC, TO_NCHW):
        const = result.node.add(name=f"nhwc_equivalent/perm_{''.join(map(str, perm))}")
        const.op = "Const"
        const.attr["dtype"].type = tf.int32.as_datatype_enum
        const.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(perm, tf.int32))
    perm_names = [node.name for node in result.node]
    for node in graph.node:
        data_format = node.attr.get("data_format")  # (indexing would insert it)
        if node.op not in NCHW_ON_CPU_UNSUPPORTED or (
            data_format is None or data_format.s != b"NCHW"
        ):
            result.node.add().CopyFrom(node)
            continue
        data_type = node.attr["T"].type
        before = result.node.add(name=f"{node.name}/to_nhwc", op="Transpose")
        before.input.extend([node.input[0], perm_names[0]])
        before.attr["T"].type = data_type
        moved = result.node.add()
        moved.CopyFrom(node)
        moved.name = f"{node.name}/nhwc"
        moved.input[0] = before.name
        moved.attr["data_format"].s = b"NHWC"
        for name in ("strides", "dilations", "ksize"):
            if name in moved.attr:
                values = list(moved.attr[name].list.i)
                del moved.attr[name].list.i[:]
                moved.attr[name].list.i.extend(values[p] for p in TO_NHWC)
        pairs = (
            list(moved.attr["explicit_paddings"].list.i)
            if ("explicit_paddings" in moved.attr)
            else []
        )
        if pairs:
            del moved.attr["explicit_paddings"].list.i[:]
            for p in TO_NHWC:
                moved.attr["explicit_paddings"].list.i.extend(pairs[2 * p : 2 * p + 2])
        after = result.node.add(name=node.name, op="Transpose")
        after.input.extend([moved.name, perm_names[1]])
        after.attr["T"].type = data_type
    return result


def tf_run(
    graph: GraphDef, inputs: Mapping[str, np.ndarray], outputs: Sequence[str]
) -> list[np.ndarray]:
    """TensorFlow's values of tensors `outputs` (`node:0`) fed with `inputs`."""
    graph = nhwc_equivalent(graph)
    wrapped = tf.compat.v1.wrap_function(
        lambda: tf.graph_util.import_graph_def(graph, name=""), []
    )
    names = list(inputs)
    pruned = wrapped.prune(
        [wrapped.graph.get_tensor_by_name(f"{name}:0") for name in names],
        [wrapped.graph.get_tensor_by_name(output) for output in outputs],
    )
    results = pruned(*(tf.constant(inputs[name]) for name in names))
    return [np.asarray(result) for result in results]


# ---------------------------------------------------------------------------
# Keras applications
# ---------------------------------------------------------------------------

SEED = 7


def calibrate_batch_norms(model, shape: Sequence[int], seed: int = SEED) -> None:
    """Random scales/shifts; moving statistics measured on a seeded random batch."""
    import keras

    rng = np.random.default_rng(seed)
    norms = [
        layer
        for layer in model.layers
        if isinstance(layer, keras.layers.BatchNormalization)
    ]
    for layer in norms:
        channels = layer.moving_mean.shape[0]
        if layer.gamma is not None:  # InceptionV3's have no scale
            layer.gamma.assign(rng.uniform(0.5, 1.5, channels).astype(np.float32))
        if layer.beta is not None:
            layer.beta.assign(rng.normal(0.0, 0.2, channels).astype(np.float32))
        layer.momentum = 0.0
    batch = rng.standard_normal((2, *shape)).astype(np.float32)
    model(batch, training=True)


def keras_application(name: str, **kwargs) -> GraphDef:
    """A Keras application with seeded weights and calibrated batch norms, frozen."""
    import keras

    keras.utils.set_random_seed(SEED)
    model = getattr(keras.applications, name)(weights=None, **kwargs)
    shape = model.input_shape[1:]
    calibrate_batch_norms(model, shape)
    spec = tf.TensorSpec([1, *shape], tf.float32, name="input")
    return freeze(lambda x: model(x, training=False), spec)


def mobilenet_v2() -> GraphDef:
    return keras_application("MobileNetV2", input_shape=(96, 96, 3), alpha=0.35)


def resnet50() -> GraphDef:
    return keras_application("ResNet50")


def inception_v3() -> GraphDef:
    return keras_application("InceptionV3")


def densenet121() -> GraphDef:
    return keras_application("DenseNet121")


def efficientnet_b0() -> GraphDef:
    return keras_application("EfficientNetB0")


KERAS_MODELS: dict[str, Builder] = {
    "MobileNetV2": mobilenet_v2,
    "ResNet50": resnet50,
    "InceptionV3": inception_v3,
    "DenseNet121": densenet121,
    "EfficientNetB0": efficientnet_b0,
}
