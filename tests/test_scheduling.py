"""Sink vs host scheduling and fallback dispatch (`ge_runtime/engines/scheduler.py`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.opinfo import find_op_info, load_opinfo_file, register_op_info
from ge_dialect.ops import GraphOp
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import (
    ExecutionPath,
    compile_model,
    has_dynamic_dims,
    split_around_host_ops,
)
from ge_runtime.jit.c_runtime import kernel_choice, kernel_status
from ge_runtime.offline.om import load_offline_model
from passes.mark_fallback import MarkFallbackPass
from passes.partition_engines import PartitionEnginesPass
from tools import ge_atc, ge_run

TOLERANCE = 1e-4


@pytest.fixture
def user_opinfo(tmp_path: Path) -> Iterator[Any]:
    """Load user op-info records; the builtin records come back afterwards."""
    saved: dict[str, Any] = {}

    def load(records: Mapping[str, Any]) -> None:
        for op in records:
            saved.setdefault(op, find_op_info(op))
        path = tmp_path / f"opinfo{len(saved)}.json"
        path.write_text(json.dumps(records))
        load_opinfo_file(path)

    yield load
    for info in saved.values():
        assert info is not None
        register_op_info(info)


def prepare(module: ModuleOp) -> ModuleOp:
    """mark-fallback and partition-engines, as ge-atc runs them."""
    for pass_ in (MarkFallbackPass(), PartitionEnginesPass()):
        pass_.apply(Context(), module)
        verify_module(module)
    return module


def assert_close(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    scale = max(float(np.abs(expected).max()), 1.0)
    assert float(np.abs(got - expected).max()) <= TOLERANCE * scale


def paths(model: Any) -> dict[str, str]:
    """Node name -> path of the last run."""
    return {entry.node: entry.path.value for entry in model.trace}


def conv_tanh_module(batch: int) -> ModuleOp:
    """conv (17 -> 33 channels) -> relu -> tanh -> add(tanh, relu)."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("net")
    x = b.data([batch, 17, 5, 5], "float32", name="x")
    w = b.const(rng.standard_normal((33, 17, 3, 3)).astype(np.float32) / 10)
    r = b.relu(b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW", name="conv"))
    t = b.tanh(r, name="t")
    b.output(b.add(t, r, name="z"))
    return b.build()


def batch(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed + n)
    return {"x": rng.standard_normal((n, 17, 5, 5)).astype(np.float32)}


# ---------------------------------------------------------------------------
# Fallback modes
# ---------------------------------------------------------------------------


def test_aclnn_only_splits_a_static_graph_into_two_sunk_parts(
    user_opinfo: Any, caplog
) -> None:
    user_opinfo({"ge.tanh": {"fallback_enabled": True, "fallback_mode": "aclnn_only"}})
    module = conv_tanh_module(2)
    with caplog.at_level(logging.INFO, logger="passes"):
        prepare(module)
    assert (
        "t, setting fallback attribute aclnn_only (always a host single-op call; "
        "a static graph is split around it)"
    ) in [r.getMessage() for r in caplog.records]
    model = compile_model(module)
    assert model.mode == "sink"
    assert model.steps() == ["sunk", "fallback", "sunk"]
    assert model.describe() == "sink scheduling: 2 sunk part(s), 1 fallback op(s)"
    assert [part.how for part in model.parts] == ["jit", "jit"]
    (got,) = model.run(batch(2))
    (expected,) = evaluate(module, batch(2))
    assert_close(got, expected)
    assert paths(model) == {
        "conv": "sunk",
        "relu_0": "sunk",
        "t": "fallback",
        "z": "sunk",
    }
    details = {e.node: e.detail for e in model.trace}
    assert details["conv"] == "part 0, jit" and details["z"] == "part 1, jit"
    assert details["t"] == "TanhOp.numpy_kernel, NumPy kernel library"
    first = list(model.trace)
    (again,) = model.run(batch(2))  # the parts' entries are made once, reused
    assert model.trace == first and len(model.evaluator.part_traces) == 2
    assert_close(again, expected)
    with pytest.raises(GEError, match="has shape \\[3, "):  # still checked
        model.run(batch(3))


def test_support_aclnn_sinks_when_static_and_falls_back_when_dynamic(
    user_opinfo: Any,
) -> None:
    user_opinfo({"ge.tanh": {"fallback_enabled": True}})
    static = prepare(conv_tanh_module(2))
    assert "ge.tanh" in str(static) and '_fallback = "support_aclnn"' in str(static)
    model = compile_model(static)
    assert model.steps() == ["sunk"]
    model.run(batch(2))
    assert paths(model)["t"] == "sunk"
    dynamic = prepare(conv_tanh_module(-1))
    model = compile_model(dynamic)
    assert model.mode == "host"
    for n in (1, 3):
        (got,) = model.run(batch(n))
        assert_close(got, evaluate(dynamic, batch(n))[0])
        assert paths(model) == {
            "conv": "host kernel",
            "relu_0": "host kernel",
            "t": "fallback",
            "z": "host kernel",
        }


def test_greedy_split_keeps_independent_ops_in_the_first_part(
    user_opinfo: Any,
) -> None:
    user_opinfo({"ge.tanh": {"fallback_enabled": True, "fallback_mode": "aclnn_only"}})
    b = GraphBuilder("g")
    x = b.data([2, 3], "float32", name="x")
    t = b.tanh(b.relu(x, name="a"), name="t")
    side = b.neg(b.sigmoid(x, name="s1"), name="s2")
    b.output(b.add(t, side, name="z"))
    module = prepare(b.build())
    scheduled = module.clone()
    graph = next(op for op in scheduled.ops if isinstance(op, GraphOp))
    from passes.outlining import inline_partitioned_calls

    inline_partitioned_calls(graph.body.block)
    steps = split_around_host_ops(graph.body.block)
    labels = [
        [op.attributes["name"].data for op in step]
        if isinstance(step, list)
        else step.attributes["name"].data
        for step in steps
    ]
    assert labels == [["a", "s1", "s2"], "t", ["z"]]


# ---------------------------------------------------------------------------
# Host scheduling
# ---------------------------------------------------------------------------


def dynamic_onnx(path: Path) -> Path:
    """A small CNN whose batch dimension is `N`."""
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(
            rng.standard_normal((33, 3, 3, 3)).astype(np.float32) / 5, "w"
        ),
        numpy_helper.from_array(rng.standard_normal(33).astype(np.float32), "b"),
        numpy_helper.from_array(
            rng.standard_normal((33 * 4 * 4, 10)).astype(np.float32) / 20, "fc_w"
        ),
    ]
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1] * 4, name="conv"),
            helper.make_node("Relu", ["c"], ["r"], name="relu"),
            helper.make_node(
                "MaxPool",
                ["r"],
                ["p"],
                kernel_shape=[2, 2],
                strides=[2, 2],
                name="pool",
            ),
            helper.make_node("Flatten", ["p"], ["f"], axis=1, name="flat"),
            helper.make_node("MatMul", ["f", "fc_w"], ["m"], name="fc"),
            helper.make_node("Softmax", ["m"], ["y"], axis=-1, name="probs"),
        ],
        "dynamic_batch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.save(model, path)
    return path


@pytest.fixture(scope="module")
def dynamic_om(tmp_path_factory) -> Path:
    """The dynamic-batch model compiled once by ge-atc."""
    directory = tmp_path_factory.mktemp("dynamic")
    model = dynamic_onnx(directory / "dyn.onnx")
    argv = [f"--model={model}", "--framework=5", f"--output={directory / 'dyn'}"]
    assert ge_atc.main([*argv, "--log=error"]) == 0
    return directory / "dyn.om"


def test_dynamic_batch_model_compiles_once_and_runs_any_batch(dynamic_om: Path) -> None:
    offline = load_offline_model(dynamic_om)
    module = offline.module()
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    assert has_dynamic_dims(graph) and "ge.partitioned_call" in offline.ir
    model = compile_model(module, offline.weights, target=offline.target)
    assert model.mode == "host"
    rng = np.random.default_rng(7)
    for n in (1, 2, 7):
        x = rng.standard_normal((n, 3, 8, 8)).astype(np.float32)
        (got,) = model.run({"x": x})
        (expected,) = evaluate(
            offline.source_module(), {"x": x}, weights=offline.source_weights(module)
        )
        assert got.shape == (n, 10)
        assert_close(got, expected)
        assert paths(model)["probs"] == "fallback"
        assert paths(model)["conv"] == "host kernel"
        shapes = {e.node: e.shapes for e in model.trace}
        assert shapes["conv"] == ((n, 33, 8, 8),) and shapes["fc"] == ((n, 10),)
    compiled = len(model.evaluator.kernels.kernels)
    model.run({"x": rng.standard_normal((2, 3, 8, 8)).astype(np.float32)})
    assert len(model.evaluator.kernels.kernels) == compiled  # batch 2 is cached


def test_per_shape_kernels_are_bounded(dynamic_om: Path) -> None:
    """At most `capacity` kernels stay; a dropped one is compiled again."""
    offline = load_offline_model(dynamic_om)
    module = offline.module()
    model = compile_model(module, offline.weights, target=offline.target)
    cache = model.evaluator.kernels
    rng = np.random.default_rng(5)
    x = {n: rng.standard_normal((n, 3, 8, 8)).astype(np.float32) for n in (1, 3)}
    model.run({"x": x[1]})
    per_shape = cache.compiled
    cache.capacity = per_shape  # room for one batch size's kernels
    for n in (3, 1):
        (got,) = model.run({"x": x[n]})
        (expected,) = evaluate(
            offline.source_module(), {"x": x[n]}, weights=offline.source_weights(module)
        )
        assert_close(got, expected)
        assert len(cache.kernels) <= per_shape
    assert cache.compiled == 3 * per_shape  # batch 1 was dropped, then needed


def test_ge_run_traces_a_dynamic_offline_model(
    dynamic_om: Path, tmp_path: Path, capsys
) -> None:
    x = np.random.default_rng(3).standard_normal((7, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    code = ge_run.main(
        [
            str(dynamic_om),
            f"--input=x={tmp_path / 'x.npy'}",
            "--check",
            "--trace",
            f"--output-dir={tmp_path / 'out'}",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "schedule: host scheduling (dynamic dims): op by op"
    assert "trace: conv ge.conv2d AICore host kernel (jit kernel for " in out
    fallback = "(SoftmaxOp.numpy_kernel, NumPy kernel library) -> 7x10"
    assert f"trace: probs ge.softmax AICore fallback {fallback}" in lines
    assert "check output_0 ('y'): max abs error" in out and ": ok" in out
    assert "y.npy: shape [7, 10], dtype float32" in lines
    assert np.load(tmp_path / "out" / "y.npy").shape == (7, 10)


def test_shape_function_runs_before_each_op(tmp_path: Path) -> None:
    b = GraphBuilder("g")
    x = b.data([-1, 4], "float32", name="x")
    b.output(b.reshape(b.relu(x), shape=[-1, 8], name="fold"))
    model = compile_model(b.build())
    (got,) = model.run({"x": np.ones((4, 4), np.float32)})
    assert got.shape == (2, 8)
    with pytest.raises(GEError) as error:
        model.run({"x": np.ones((3, 4), np.float32)})
    message = str(error.value)
    assert (
        "\n" not in message
        and "'ge.reshape' op at run time, on shapes [3, 4]" in message
    )


@pytest.mark.usefixtures("aicpu_tile")
def test_host_scheduling_compiles_control_flow_with_its_subgraphs() -> None:
    """A `ge.if` on a dynamic dim runs as one kernel compiled with both
    branches for the shapes it meets (an AI CPU op inside is no reason to
    walk it op by op: only an op that needs the host is;
    `test_static_dynamic_split` has the walked case)."""
    b = GraphBuilder("cf")
    p = b.data([], "bool", name="p")
    x = b.data([-1, 3], "float32", name="x")
    (y,) = b.if_(
        p,
        [x],
        lambda sb, v: [sb.tile(v, multiples=[1, 2], name="t")],
        lambda sb, v: [sb.concat([v, sb.neg(v, name="n")], axis=1, name="c")],
    )
    b.output(b.relu(y, name="z"))
    module = prepare(b.build())
    model = compile_model(module)
    x_value = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    for flag in (True, False):
        inputs = {"p": np.array(flag), "x": x_value}
        (got,) = model.run(inputs)
        np.testing.assert_array_equal(got, evaluate(module, inputs)[0])
        assert set(paths(model)) == {"if_0", "z"}
    assert {e.node: e.engine for e in model.trace}["z"] == "AICore"


def test_a_part_the_jit_cannot_lower_runs_in_the_reference_evaluator(
    monkeypatch,
) -> None:
    from ge_runtime.jit import compiler as jit
    from passes.lowering import convert_ge_to_loops, table

    def without_transpose(op):  # ge.conv2d_transpose made deliberately unlowerable
        return None if op.name == "ge.conv2d_transpose" else table.lowering_for(op)

    monkeypatch.setattr(convert_ge_to_loops, "lowering_for", without_transpose)
    monkeypatch.setattr(jit, "_GRAPHS", {})
    rng = np.random.default_rng(5)
    b = GraphBuilder("g")
    x = b.data([1, 3, 4, 4], "float32", name="x")
    w = b.const(rng.standard_normal((3, 2, 3, 3)).astype(np.float32))
    b.output(b.relu(b.conv2d_transpose(x, w, data_format="NCHW", name="up")))
    module = prepare(b.build())
    model = compile_model(module)
    assert model.parts[0].jit_failure is not None
    inputs = {"x": rng.standard_normal((1, 3, 4, 4)).astype(np.float32)}
    np.testing.assert_array_equal(model.run(inputs)[0], evaluate(module, inputs)[0])
    entry = model.trace[0]
    assert entry.path is ExecutionPath.SUNK
    assert (
        entry.detail.startswith("part 0, reference: ")
        and "no loop lowering" in entry.detail
    )


# ---------------------------------------------------------------------------
# ge-run --check: what it compares, and never the reference with itself
# ---------------------------------------------------------------------------


def exp_relu_graph(path: Path) -> Path:
    """x (3x17) -> exp -> relu, written as MLIR to `path`."""
    b = GraphBuilder("main")
    x = b.data([3, 17], "float32", name="x")
    b.output(b.relu(b.exp(x)))
    path.write_text(str(b.build()))
    return path


def test_check_states_what_ran_on_the_jit(tmp_path: Path, capsys) -> None:
    graph = exp_relu_graph(tmp_path / "g.mlir")
    argv = [str(graph), "--random-inputs", "--check", "--benchmark", "3"]
    assert ge_run.main([*argv, "--threads", "1", f"--output-dir={tmp_path}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "check: JIT vs reference on 2 ops" in lines
    assert lines[-1].startswith("benchmark: 3 runs, median ")  # printed last
    assert lines[-2] == f"benchmark: loop nests run as {kernel_status()}"
    assert " ms (min " in lines[-1] and " ms, max " in lines[-1]
    reference = [str(graph), "--random-inputs", "--reference", "--benchmark", "2"]
    assert ge_run.main([*reference, f"--output-dir={tmp_path / 'r'}"]) == 1
    assert "--benchmark times what ge-run runs" in capsys.readouterr().err


def test_check_fails_when_an_op_did_not_run_on_the_jit(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """An op the JIT cannot lower runs in the reference evaluator: --check
    would compare the reference with itself, so it fails (unless allowed)."""
    from ge_runtime.jit import compiler as jit
    from passes.lowering import convert_ge_to_loops, table

    def without_exp(op):  # ge.exp made deliberately unlowerable
        return None if op.name == "ge.exp" else table.lowering_for(op)

    monkeypatch.setattr(convert_ge_to_loops, "lowering_for", without_exp)
    monkeypatch.setattr(jit, "_GRAPHS", {})  # compiled before, with a lowering
    graph = exp_relu_graph(tmp_path / "g.mlir")
    argv = [str(graph), "--random-inputs", "--check", "--trace"]
    assert ge_run.main([*argv, f"--output-dir={tmp_path / 'a'}"]) == 1
    captured = capsys.readouterr()
    assert "schedule: part 0: 2 ops, reference: " in captured.out
    assert "check: JIT vs reference on 0 ops, 2 ops NOT on the JIT" in captured.out
    assert "error: --check: 2 ops did not run on the JIT" in captured.err
    assert "'ge.exp' op has no loop lowering" in captured.err
    assert not (tmp_path / "a").exists()  # nothing written
    allowed = [*argv, "--allow-reference", f"--output-dir={tmp_path / 'b'}"]
    assert ge_run.main(allowed) == 0
    assert "2 ops NOT on the JIT" in capsys.readouterr().out


def scatter_relu(dtype: str) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """A ReLU of a scatter at run-time positions, of `dtype` data, and inputs."""
    b = GraphBuilder("main")
    data = b.data([4, 17], dtype, name="data")
    positions = b.data([2, 17], "int64", name="positions")
    updates = b.data([2, 17], dtype, name="updates")
    b.output(b.relu(b.scatter_elements(data, positions, updates, axis=0)))
    rng = np.random.default_rng(4)
    inputs = {
        "data": rng.standard_normal((4, 17)).astype(dtype),
        "positions": rng.integers(-4, 4, (2, 17)),
        "updates": rng.standard_normal((2, 17)).astype(dtype),
    }
    return b.build(), inputs


@pytest.mark.skipif(kernel_choice(None) != "c", reason="runs with C kernels")
def test_a_part_says_which_nests_run_element_by_element() -> None:
    """A scatter at run-time positions runs as a C kernel, in order; of
    float16 (which C kernels leave to NumPy) it has no vectorised form: the
    part says so where `--trace` and `--profile` show it, with both
    reasons, a part without one says `jit`; all give the reference's
    result."""
    module, inputs = scatter_relu("float32")
    model = compile_model(prepare(module))
    (got,) = model.run(inputs)
    assert_close(got, evaluate(module, inputs)[0])
    assert [part.how for part in model.parts] == ["jit"]
    module, inputs = scatter_relu("float16")
    model = compile_model(prepare(module))
    (got,) = model.run(inputs)
    assert_close(got, evaluate(module, inputs)[0])
    (part,) = model.parts
    assert part.how == (
        "jit, 1 nest(s) element by element: a store through computed indices "
        "(a scatter) (C kernel: element type float16 is left to NumPy)"
    )
    plain = compile_model(prepare(conv_tanh_module(1)))
    assert [part.how for part in plain.parts] == ["jit"]
