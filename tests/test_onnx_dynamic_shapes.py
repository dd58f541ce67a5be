"""Shape values on a dynamic batch: exporters' `Shape -> Gather -> Concat`
subgraphs feeding Reshape, Expand, ConstantOfShape and Range import as ops
that run under host scheduling (`ge.fill`, `ge.broadcast_to`,
`ge.dynamic_reshape`, `ge.range`), with the entries known at import kept as
static dims; the models match onnxruntime at batch 1 and 3."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_frontend.importing import shape_of
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.scheduler import compile_model

ort = pytest.importorskip("onnxruntime")

FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def batch_model(
    nodes: list[onnx.NodeProto],
    outputs: Sequence[tuple[str, int, list]],
    initializers: dict[str, np.ndarray],
    x_shape: Sequence[int | str] = ("batch", 4, 17),
) -> onnx.ModelProto:
    """A model of input `x` (dynamic batch) and `n = Shape(x)[0:1]`."""
    shape_nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Gather", ["x_shape", "zero"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "zero_axis"], ["n"]),
    ]
    inits = {
        "zero": np.array(0, np.int64),
        "zero_axis": np.array([0], np.int64),
        **initializers,
    }
    graph = helper.make_graph(
        shape_nodes + nodes,
        "dynamic",
        [helper.make_tensor_value_info("x", FLOAT, list(x_shape))],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        [numpy_helper.from_array(a, k) for k, a in inits.items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(made, full_check=True)
    return made


def check_batches(made: onnx.ModelProto, batches=(1, 3)):
    """Host-scheduled runs match onnxruntime; the imported module."""
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    assert model.mode == "host"
    session = ort.InferenceSession(
        made.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    rng = np.random.default_rng(5)
    for batch in batches:
        feeds = {"x": rng.standard_normal((batch, 4, 17)).astype(np.float32)}
        expected = session.run(None, feeds)
        for ours, ref in zip(model.run(feeds), expected, strict=True):
            assert ours.shape == ref.shape and ours.dtype == ref.dtype
            np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-6)
    return imported.module


def ops_named(module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


def test_a_reshape_target_with_one_unknown_entry_is_an_ordinary_reshape():
    nodes = [
        helper.make_node("Concat", ["n", "tail"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    made = batch_model(
        nodes, [("y", FLOAT, ["batch", 2, 34])], {"tail": np.array([2, 34], np.int64)}
    )
    module = check_batches(made)
    (reshape,) = ops_named(module, "ge.reshape")
    assert list(reshape.shape.get_values()) == [-1, 2, 34]
    assert not ops_named(module, "ge.dynamic_reshape")


def test_a_reshape_target_with_two_unknown_entries_keeps_the_known_dims():
    """`[n, n, 4, 17] / n` style targets: `ge.dynamic_reshape` typed
    `?x?x...` only where the run decides."""
    nodes = [
        helper.make_node("Concat", ["n", "one", "tail"], ["target"], axis=0),
        helper.make_node("Mul", ["n", "one"], ["n_again"]),
        helper.make_node("Concat", ["n_again", "minus_one", "tail"], ["t2"], axis=0),
        helper.make_node("Reshape", ["x", "t2"], ["y"]),
    ]
    made = batch_model(
        nodes,
        [("y", FLOAT, ["batch", 1, 68])],
        {
            "one": np.array([1], np.int64),
            "minus_one": np.array([-1], np.int64),
            "tail": np.array([68], np.int64),
        },
    )
    module = check_batches(made)
    (reshape,) = ops_named(module, "ge.dynamic_reshape")
    assert shape_of(reshape.results[0]) == (-1, -1, 68)


def test_expand_and_constant_of_shape_on_the_batch():
    """An LSTM's zero state `[layers, batch, hidden]` both ways exporters
    write it, and a `cls` token expanded to the batch."""
    nodes = [
        helper.make_node("Concat", ["two", "n", "hidden"], ["state_shape"], axis=0),
        helper.make_node(
            "ConstantOfShape",
            ["state_shape"],
            ["zeros"],
            value=numpy_helper.from_array(np.array([0.5], np.float32)),
        ),
        helper.make_node("Expand", ["token", "cls_shape"], ["cls"]),
        helper.make_node("Concat", ["n", "minus_one", "hidden"], ["cls_shape"], axis=0),
        helper.make_node("Concat", ["cls", "x"], ["joined"], axis=1),
    ]
    nodes = [nodes[0], nodes[1], nodes[3], nodes[2], nodes[4]]
    made = batch_model(
        nodes,
        [("zeros", FLOAT, [2, "batch", 17]), ("joined", FLOAT, ["batch", 5, 17])],
        {
            "two": np.array([2], np.int64),
            "hidden": np.array([17], np.int64),
            "minus_one": np.array([1], np.int64),
            "token": np.linspace(-1, 1, 17, dtype=np.float32).reshape(1, 1, 17),
        },
    )
    module = check_batches(made)
    (fill,) = ops_named(module, "ge.fill")
    assert shape_of(fill.results[0]) == (2, -1, 17)
    (broadcast,) = ops_named(module, "ge.broadcast_to")
    assert shape_of(broadcast.results[0]) == (-1, 1, 17)


@pytest.mark.parametrize(
    ("start", "delta", "dtype"),
    [(0, 1, np.int64), (5, -2, np.int64), (0.5, 0.25, np.float32)],
)
def test_range_over_the_batch(start, delta, dtype):
    """`Range(start, batch * 4 (as dtype), delta)`: its length is known only
    at run time."""
    nodes = [
        helper.make_node("Mul", ["batch", "four"], ["limit_int"]),
        helper.make_node(
            "Cast",
            ["limit_int"],
            ["limit"],
            to=helper.np_dtype_to_tensor_dtype(np.dtype(dtype)),
        ),
        helper.make_node("Range", ["start", "limit", "delta"], ["y"]),
    ]
    made = batch_model(
        nodes,
        [("y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), ["length"])],
        {
            "four": np.array(4, np.int64),
            "start": np.array(start, dtype),
            "delta": np.array(delta, dtype),
        },
    )
    module = check_batches(made)
    assert len(ops_named(module, "ge.range")) == 1


def test_static_input_shapes_fold_the_shape_ops_away():
    nodes = [
        helper.make_node("Concat", ["two", "n", "hidden"], ["state_shape"], axis=0),
        helper.make_node("ConstantOfShape", ["state_shape"], ["y"]),
    ]
    made = batch_model(
        nodes,
        [("y", FLOAT, [2, "batch", 17])],
        {"two": np.array([2], np.int64), "hidden": np.array([17], np.int64)},
    )
    module = import_onnx(made, input_shapes={"x": [3, 4, 17]}).module
    names = {op.name for op in module.walk()}
    assert not names & {"ge.fill", "ge.shape", "ge.concat"}
