"""Ops whose result shape is an operand's value (`ge.range`, `ge.fill`,
`ge.broadcast_to`, `ge.shape`) run under host scheduling as single-op JIT
kernels compiled for the shape their operands' values give, not through the
NumPy kernel library; they match onnxruntime at odd sizes and values."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from ge_dialect.ops.value_shaped import range_length
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.scheduler import ExecutionPath, Executor, compile_model

ort = pytest.importorskip("onnxruntime")


def one_node_model(
    node: onnx.NodeProto,
    inputs: list[tuple[str, int, list[int]]],
    output: tuple[str, int, int],
) -> onnx.ModelProto:
    """A model of one node whose inputs are graph inputs; its output of
    (name, type, rank) has dims unknown to the model."""
    name, dtype, rank = output
    graph = helper.make_graph(
        [node],
        "value_shaped",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(name, dtype, [f"d{i}" for i in range(rank)])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run_both(made: onnx.ModelProto, feeds_list: list[dict[str, np.ndarray]]):
    """Each feed through the host-scheduled model and onnxruntime: equal
    results; every op on the JIT (a host kernel for the shape met, or sunk
    where the result shape is static). The model (its kernel cache grows per
    result shape)."""
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    session = ort.InferenceSession(
        made.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for feeds in feeds_list:
        (ours,) = model.run(feeds)
        (expected,) = session.run(None, feeds)
        assert ours.shape == expected.shape and ours.dtype == expected.dtype
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6)
        for entry in model.trace:
            assert entry.executor is Executor.JIT, entry.line()
            if entry.path is ExecutionPath.HOST_KERNEL:  # else a static result: sunk
                assert entry.detail.startswith("jit kernel for"), entry.line()
    return model


SCALAR = []


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        (np.float32, [(2.5, 17.3, 0.7), (-1.25, 3.0, 0.375), (5.0, -6.0, -1.1)]),
        (np.int32, [(7, -13, -3), (0, 11, 2), (4, 4, 1)]),
        (np.int64, [(-5, 30, 7), (100, 0, -13)]),
    ],
)
def test_range_runs_a_kernel_per_length(dtype, values):
    onnx_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    made = one_node_model(
        helper.make_node("Range", ["s", "l", "d"], ["y"]),
        [(name, onnx_type, SCALAR) for name in "sld"],
        ("y", onnx_type, 1),
    )
    feeds = [
        {k: np.array(v, dtype) for k, v in zip("sld", triple, strict=True)}
        for triple in values
    ]
    model = run_both(made, feeds)
    lengths = {range_length(*triple) for triple in values}  # a kernel per length
    assert model.evaluator.kernels.compiled == len(lengths)


def test_range_of_an_equal_length_reuses_the_kernel():
    made = one_node_model(
        helper.make_node("Range", ["s", "l", "d"], ["y"]),
        [(name, TensorProto.FLOAT, SCALAR) for name in "sld"],
        ("y", TensorProto.FLOAT, 1),
    )
    feeds = [
        {"s": np.float32(s), "l": np.float32(s + 7 * d), "d": np.float32(d)}
        for s, d in [(0.5, 1.0), (-3.0, 0.25), (11.0, -2.5)]
    ]
    model = run_both(made, [{k: np.array(v) for k, v in f.items()} for f in feeds])
    assert model.evaluator.kernels.compiled == 1  # start and delta are passed in


@pytest.mark.parametrize("dims", [[3, 5, 7], [1, 13], [11]])
def test_constant_of_shape_fills_the_shape_read_at_run_time(dims):
    node = helper.make_node(
        "ConstantOfShape",
        ["shape"],
        ["y"],
        value=helper.make_tensor("v", TensorProto.FLOAT, [1], [-2.75]),
    )
    made = one_node_model(
        node,
        [("shape", TensorProto.INT64, [len(dims)])],
        ("y", TensorProto.FLOAT, len(dims)),
    )
    run_both(made, [{"shape": np.array(dims, np.int64)}])


@pytest.mark.parametrize(
    ("x_shape", "target"),
    [((1, 7), [5, 3, 7]), ((3, 1), [3, 9]), ((5, 1, 3), [1, 1, 4, 1]), ((2,), [1])],
)
def test_expand_broadcasts_to_the_shape_read_at_run_time(x_shape, target):
    made = one_node_model(
        helper.make_node("Expand", ["x", "shape"], ["y"]),
        [
            ("x", TensorProto.FLOAT, list(x_shape)),
            ("shape", TensorProto.INT64, [len(target)]),
        ],
        ("y", TensorProto.FLOAT, max(len(x_shape), len(target))),
    )
    x = np.random.default_rng(3).standard_normal(x_shape).astype(np.float32)
    run_both(made, [{"x": x, "shape": np.array(target, np.int64)}])


def test_range_with_a_zero_delta_is_one_located_line():
    made = one_node_model(
        helper.make_node("Range", ["s", "l", "d"], ["y"]),
        [(name, TensorProto.FLOAT, SCALAR) for name in "sld"],
        ("y", TensorProto.FLOAT, 1),
    )
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    feeds = {"s": np.float32(0), "l": np.float32(3), "d": np.float32(0)}
    with pytest.raises(
        Exception, match="host kernel failed: Range.s delta is 0"
    ) as raised:
        model.run({k: np.array(v) for k, v in feeds.items()})
    assert "\n" not in str(raised.value) and "ge.range" in str(raised.value)
