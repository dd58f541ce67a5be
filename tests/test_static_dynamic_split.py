"""No cliffs: one run-time value does not send a graph to op-by-op host
scheduling. As GE splits a graph into static and dynamic subgraphs, only
the ops that need the run's values run on the host; the static parts
around them stay compiled and sunk (`ge_runtime.engines.scheduler`). A
Clip bound computed from the data (a log-mel front end's `max(x) - 80` dB
floor) is read as a tensor, so such a graph stays static and sinks whole.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.scheduler import ExecutionPath, Executor, compile_model

ort = pytest.importorskip("onnxruntime")

FLOAT = TensorProto.FLOAT


def session(made: onnx.ModelProto):
    return ort.InferenceSession(
        made.SerializeToString(), providers=["CPUExecutionProvider"]
    )


def cum_sum_between_static_layers() -> onnx.ModelProto:
    """x [3, 5, 7] -> Relu -> MatMul -> CumSum along a run-time axis ->
    Mul -> MatMul: the CumSum's axis is the one run-time value."""
    rng = np.random.default_rng(11)
    weights = {
        "w1": rng.standard_normal((7, 9)).astype(np.float32),
        "w2": rng.standard_normal((9, 4)).astype(np.float32),
        "scale": np.array(0.5, np.float32),
    }
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("MatMul", ["r", "w1"], ["m"], name="first"),
        helper.make_node("CumSum", ["m", "axis"], ["c"], name="cumsum"),
        helper.make_node("Mul", ["c", "scale"], ["s"], name="scaled"),
        helper.make_node("MatMul", ["s", "w2"], ["y"], name="second"),
    ]
    graph = helper.make_graph(
        nodes,
        "split",
        [
            helper.make_tensor_value_info("x", FLOAT, [3, 5, 7]),
            helper.make_tensor_value_info("axis", TensorProto.INT64, []),
        ],
        [helper.make_tensor_value_info("y", FLOAT, [3, 5, 4])],
        [numpy_helper.from_array(a, k) for k, a in weights.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_only_the_op_with_a_run_time_parameter_runs_on_the_host():
    made = cum_sum_between_static_layers()
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    assert model.mode == "host"
    assert model.describe() == (
        "host scheduling (run-time parameters): 2 sunk part(s), 1 host op(s)"
    )
    assert model.steps() == ["sunk", "host kernel", "sunk"]
    x = np.random.default_rng(2).standard_normal((3, 5, 7)).astype(np.float32)
    reference = session(made)
    for axis in (0, 1, -1, 2):
        feeds = {"x": x, "axis": np.array(axis, np.int64)}
        (ours,) = model.run(feeds)
        (expected,) = reference.run(None, feeds)
        np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-5)
        host = [e for e in model.trace if e.path is not ExecutionPath.SUNK]
        assert [(e.node, e.path) for e in host] == [
            ("cumsum", ExecutionPath.HOST_KERNEL)
        ]
        assert host[0].detail.startswith("jit kernel for 3x5x9 as ge.cum_sum")
        for entry in model.trace:  # dynamic: support_aclnn ops fall back, by design
            on_jit = entry.executor is Executor.JIT
            assert on_jit or entry.path is ExecutionPath.FALLBACK, entry.line()
        sunk = {e.node: e.detail for e in model.trace if e.path is ExecutionPath.SUNK}
        assert sunk["first"] == "part 0, jit" and sunk["second"] == "part 1, jit"


def clip_model(dtype: int, min_shape: list[int], with_max: bool) -> onnx.ModelProto:
    """Clip(x, min, max) whose bounds are graph inputs (run-time values)."""
    inputs = ["x", "low", "high"] if with_max else ["x", "low"]
    graph = helper.make_graph(
        [
            helper.make_node("Clip", inputs, ["c"], name="clip"),
            helper.make_node("Neg", ["c"], ["y"], name="negate"),
        ],
        "clip",
        [
            helper.make_tensor_value_info("x", dtype, [3, 7]),
            helper.make_tensor_value_info("low", dtype, min_shape),
            *([helper.make_tensor_value_info("high", dtype, [])] if with_max else []),
        ],
        [helper.make_tensor_value_info("y", dtype, [3, 7])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize(
    ("dtype", "min_shape", "with_max"),
    [
        (np.float32, [], True),
        (np.float32, [1], False),
        (np.int32, [], True),
        (np.int64, [1], True),
    ],
)
def test_clip_with_run_time_bounds_sinks_whole(dtype, min_shape, with_max):
    onnx_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    made = clip_model(onnx_type, min_shape, with_max)
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    assert model.describe() == "sink scheduling: 1 sunk part(s), 0 fallback op(s)"
    reference = session(made)
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((3, 7)) * 20).astype(dtype)
    x.flat[5] = 0
    for low, high in [(-3, 4), (2, 2), (5, -5), (-100, 100)]:
        feeds = {"x": x, "low": np.full(min_shape, low, dtype)}
        if with_max:
            feeds["high"] = np.array(high, dtype)
        (ours,) = model.run(feeds)
        (expected,) = reference.run(None, feeds)
        np.testing.assert_array_equal(ours, expected)
        assert {e.path for e in model.trace} == {ExecutionPath.SUNK}
    assert model.evaluator.kernels.compiled == 0  # no per-value kernels


def test_clip_of_nan_and_infinite_values_matches_onnxruntime():
    made = clip_model(FLOAT, [], True)
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    x = np.linspace(-5, 5, 21, dtype=np.float32).reshape(3, 7)
    x.flat[[0, 4, 9]] = [np.nan, np.inf, -np.inf]
    feeds = {"x": x, "low": np.array(-1.5, np.float32), "high": np.array(2.25)}
    feeds["high"] = feeds["high"].astype(np.float32)
    (ours,) = model.run(feeds)
    (expected,) = session(made).run(None, feeds)
    np.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize("dynamic_batch", [False, True])
def test_log_mel_front_end_with_a_computed_floor_matches_onnxruntime(
    dynamic_batch: bool, tmp_path
):
    """The issue's model: torch's legacy exporter writes `clamp(db, min=
    db.max() - 80)` as a Clip whose minimum is computed. Static, it sinks
    whole (the bound a tensor its kernel reads); on a dynamic batch the
    host runs the dynamic ops, each on the JIT but for the `support_aclnn`
    ops GE dispatches through their fallback under dynamic shapes."""
    pytest.importorskip("torch")
    model_zoo = pytest.importorskip("model_zoo")
    from ge_runtime.offline.om import load_offline_model

    path = model_zoo.export(
        "mel_frontend", exporter="torchscript", dynamic_batch=dynamic_batch
    )
    nodes = onnx.load(path).graph.node
    computed = {name for node in nodes for name in node.output}
    floor = [n for n in nodes if n.op_type == "Clip"][-1].input[1]
    assert floor in computed  # a node's output, not an initializer
    feeds = model_zoo.sample_inputs("mel_frontend", 3 if dynamic_batch else 2)
    shapes = None if dynamic_batch else model_zoo.input_shape_flag(feeds)
    _, error = model_zoo.compile_with_atc(path, tmp_path / "mel", shapes)
    assert error is None, error
    offline = load_offline_model(f"{tmp_path / 'mel'}.om")
    model = compile_model(offline.module(), offline.weights, target=offline.target)
    if not dynamic_batch:
        assert model.describe() == "sink scheduling: 1 sunk part(s), 0 fallback op(s)"
    for scale in (1.0, 1e-3):  # another floor, the same kernels
        scaled = {k: v * np.float32(scale) for k, v in feeds.items()}
        expected = model_zoo.onnxruntime_outputs(path, scaled)
        assert model_zoo.relative_error(model.run(scaled), expected) <= 1e-3
        assert any(e.op == "ge.maximum" for e in model.trace)
        for entry in model.trace:  # dynamic: support_aclnn ops fall back, by design
            on_jit = entry.executor is Executor.JIT
            assert on_jit or entry.path is ExecutionPath.FALLBACK, entry.line()


def if_model(else_needs_host: bool) -> onnx.ModelProto:
    """y = If(mean(x) > 0, Relu(x) * 2, -x or Expand(x, Shape(x))) on a
    dynamic batch (an Expand to a run-time shape needs the host)."""
    batch = ["batch", 7]
    then_branch = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("Mul", ["r", "two"], ["t"]),
        ],
        "then",
        [],
        [helper.make_tensor_value_info("t", FLOAT, ["b", "w"])],
        [numpy_helper.from_array(np.array(2, np.float32), "two")],
    )
    if else_needs_host:
        else_nodes = [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Expand", ["x", "s"], ["e"]),
        ]
    else:
        else_nodes = [helper.make_node("Neg", ["x"], ["e"])]
    else_branch = helper.make_graph(
        else_nodes,
        "else",
        [],
        [helper.make_tensor_value_info("e", FLOAT, ["b", "w"])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["x"], ["m"], keepdims=0),
            helper.make_node("Greater", ["m", "zero_f"], ["c"]),
            helper.make_node(
                "If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch
            ),
        ],
        "if_model",
        [helper.make_tensor_value_info("x", FLOAT, batch)],
        [helper.make_tensor_value_info("y", FLOAT, ["b", "w"])],
        [numpy_helper.from_array(np.array(0, np.float32), "zero_f")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("else_needs_host", [False, True])
def test_if_on_a_dynamic_batch_runs_its_branches_compiled(else_needs_host):
    """Under host scheduling an If runs compiled whole with its branches for
    the shapes it meets; where an op inside needs the host (a shape read
    from a value) the branches are walked, op by op."""
    made = if_model(else_needs_host)
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    reference = session(made)
    rng = np.random.default_rng(8)
    for batch, shift in [(1, 1.0), (5, -1.0), (5, 1.0), (3, -1.0)]:
        feeds = {"x": (rng.standard_normal((batch, 7)) + shift).astype(np.float32)}
        (ours,) = model.run(feeds)
        (expected,) = reference.run(None, feeds)
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6)
        assert all(e.executor is not Executor.REFERENCE for e in model.trace)
        whole = [e.detail for e in model.trace if e.op == "ge.if"]
        if not else_needs_host:
            assert whole == [f"jit kernel for scalar, {batch}x7 with its subgraphs"]
            continue
        assert whole == []  # walked: the chosen branch's ops ran on their own
        inner = {e.op for e in model.trace} & {"ge.relu", "ge.broadcast_to"}
        assert inner == ({"ge.relu"} if feeds["x"].mean() > 0 else {"ge.broadcast_to"})
    if else_needs_host:
        (why,) = model.evaluator.kernels.failures.values()
        assert why == "'ge.broadcast_to' inside needs the host"
