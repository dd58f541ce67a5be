"""Engine partitioning, AI CPU Cast insertion and fallback marking.

Numeric checks run the reference evaluator before and after each pass (it
runs `ge.partitioned_call` subgraphs); random graphs check that partitioning
never creates a cycle and leaves no two mergeable groups apart.
"""

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
from xdsl.ir import Operation

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.opinfo import (
    Engine,
    find_op_info,
    load_opinfo_file,
    register_op_info,
)
from ge_dialect.ops import CastOp, GraphOp, PartitionedCallOp
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import compile_model
from ge_xdsl import parse
from passes.format_pipeline import FormatPipelinePass
from passes.insert_aicpu_cast import InsertAICPUCastPass
from passes.mark_fallback import FALLBACK_ATTRIBUTE, MarkFallbackPass
from passes.partition_engines import (
    STRUCTURAL_OPS,
    EngineGroups,
    PartitionEnginesPass,
    op_engine,
)
from tools import ge_atc, ge_run

FP16_TOLERANCE = 1e-2

pytestmark = pytest.mark.usefixtures("aicpu_tile")
"""ge.tile is these tests' AI CPU op (`conftest.aicpu_tile`)."""


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
        assert info is not None, "tests only override ops the library knows"
        register_op_info(info)


def apply(module: ModuleOp, *passes: Any) -> ModuleOp:
    """Apply passes in order, verifying after each."""
    for pass_ in passes:
        pass_.apply(Context(), module)
        verify_module(module)
    return module


def calls(module: ModuleOp) -> list[PartitionedCallOp]:
    """The engine subgraph calls of the module's graph, in block order."""
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    return [op for op in graph.body.block.ops if isinstance(op, PartitionedCallOp)]


def assert_same_outputs(
    before: ModuleOp, after: ModuleOp, inputs: Mapping[str, np.ndarray]
) -> None:
    expected = evaluate(before, inputs)
    got = evaluate(after, inputs)
    for ours, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours, ref)


# ---------------------------------------------------------------------------
# partition-engines
# ---------------------------------------------------------------------------


def interleaved_module() -> ModuleOp:
    """relu -> tile (AI CPU) -> add(relu, tile): naive grouping makes a cycle."""
    b = GraphBuilder("cycle")
    x = b.data([2, 17], "float32", name="x")
    a = b.relu(x, name="a")
    t = b.tile(a, multiples=[1, 1], name="t")
    c = b.add(a, t, name="c")
    b.output(b.sigmoid(c, name="d"))
    return b.build()


def test_cycle_case_splits_same_engine_ops_and_keeps_numerics() -> None:
    module = interleaved_module()
    before = module.clone()
    apply(module, PartitionEnginesPass())
    engines = [call.engine.data for call in calls(module)]
    assert engines == ["AICore", "AICPU", "AICore"]
    names = [
        [
            op.attributes["name"].data
            for op in call.f.block.ops
            if "name" in op.attributes
        ]
        for call in calls(module)
    ]
    assert names == [["a"], ["t"], ["c", "d"]]
    x = np.random.default_rng(0).standard_normal((2, 17)).astype(np.float32)
    assert_same_outputs(before, module, {"x": x})


def test_cycle_between_groups_is_refused(user_opinfo: Any) -> None:
    """{q, p} on AI CPU (q -> p) and m1 -> m2 on AI Core: merging m1 and m2
    needs m1 before p and q before m2, a cycle no op-level path shows."""
    user_opinfo({"ge.maximum": {"engine": "AICPU"}})
    b = GraphBuilder("between")
    x = b.data([2, 17], "float32", name="x")
    q = b.tile(x, multiples=[1, 1], name="q")
    m1 = b.relu(x, name="m1")
    p = b.maximum(m1, q, name="p")
    b.output(p, b.add(m1, q, name="m2"))
    module = b.build()
    before = module.clone()
    apply(module, PartitionEnginesPass())
    groups = [
        sorted(
            op.attributes["name"].data
            for op in c.f.block.ops
            if "name" in op.attributes
        )
        for c in calls(module)
    ]
    assert groups == [["m1"], ["p", "q"], ["m2"]]
    x_value = np.random.default_rng(3).standard_normal((2, 17)).astype(np.float32)
    assert_same_outputs(before, module, {"x": x_value})


def test_partitioning_after_the_format_pipeline_keeps_layouts_and_numerics() -> None:
    """Conv with 17 channels (NC1HWC0 padding) around an AI CPU tile."""
    rng = np.random.default_rng(1)
    b = GraphBuilder("net")
    x = b.data([1, 17, 6, 6], "float32", name="x")
    w = b.const(rng.standard_normal((33, 17, 3, 3)).astype(np.float32))
    c = b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW", name="conv")
    t = b.tile(b.relu(c, name="r"), multiples=[1, 1, 1, 2], name="t")
    w2 = b.const(rng.standard_normal((3, 33, 1, 1)).astype(np.float32))
    b.output(b.conv2d(t, w2, data_format="NCHW", name="conv2"))
    module = b.build()
    apply(module, FormatPipelinePass(data_format="NCHW"))
    before = module.clone()
    apply(module, PartitionEnginesPass())
    assert [c.engine.data for c in calls(module)] == ["AICore", "AICPU", "AICore"]
    for call in calls(module):
        inner = [op for op in call.f.block.ops if not isinstance(op, STRUCTURAL_OPS)]
        assert {op_engine(op) for op in inner} == {Engine(call.engine.data)}
        data = [op for op in call.f.block.ops if op.name == "ge.data"]
        for op in data:
            assert op.output.type == call.operands[op.index_value].type
        assert [v.type for v in call.f.block.last_op.operands] == [
            r.type for r in call.results
        ]
    first, aicpu, _ = calls(module)
    assert "NC1HWC0" in str(first)  # the conv runs in 5HD inside its subgraph
    assert str(aicpu.operands[0].type) == "tensor<1x33x6x6xf32, #ge.layout<NCHW>>"
    inputs = {"x": rng.standard_normal((1, 17, 6, 6)).astype(np.float32)}
    assert_same_outputs(before, module, inputs)
    expected = evaluate(before, inputs)[0]
    sunk = compile_model(module).run(inputs)[0]
    np.testing.assert_allclose(sunk, expected, rtol=1e-4, atol=1e-4)


UNARY = {"relu": "AICore", "sigmoid": "AICore", "neg": "AICPU"}
BINARY = {"add": "AICore", "mul": "AICore", "maximum": "AICPU"}


def random_module(seed: int, size: int = 14) -> ModuleOp:
    """A random DAG of elementwise ops over two inputs."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder(f"random{seed}")
    values = [b.data([2, 3], "float32", name="x"), b.data([2, 3], "float32", name="y")]
    for index in range(size):
        if rng.random() < 0.5:
            op = str(rng.choice(list(UNARY)))
            operands = [values[rng.integers(len(values))]]
        else:
            op = str(rng.choice(list(BINARY)))
            picks = rng.choice(len(values), 2)
            operands = [values[i] for i in picks]
        values.append(getattr(b, op)(*operands, name=f"n{index}"))
    b.output(*[v for v in values[2:] if not v.uses])
    return b.build()


def quotient_edges(
    call_ops: list[PartitionedCallOp],
) -> dict[Operation, set[Operation]]:
    """Call -> the calls that read one of its results."""
    edges: dict[Operation, set[Operation]] = {call: set() for call in call_ops}
    for call in call_ops:
        for result in call.results:
            for use in result.uses:
                if use.operation in edges:
                    edges[call].add(use.operation)
    return edges


def reaches_through_another(
    edges: dict[Operation, set[Operation]], source: Operation, target: Operation
) -> bool:
    """Whether a path of at least two edges leads from `source` to `target`."""
    frontier = [n for n in edges[source] if n is not target]
    seen = set(frontier)
    while frontier:
        node = frontier.pop()
        if target in edges[node]:
            return True
        for nxt in edges[node] - seen:
            seen.add(nxt)
            frontier.append(nxt)
    return False


@pytest.mark.parametrize("seed", range(24))
def test_random_graphs_partition_into_maximal_acyclic_groups(
    seed: int, user_opinfo: Any
) -> None:
    user_opinfo({"ge.neg": {"engine": "AICPU"}, "ge.maximum": {"engine": "AICPU"}})
    module = random_module(seed)
    before = module.clone()
    apply(module, PartitionEnginesPass())
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    defined = set()
    for op in graph.body.block.ops:  # a topological order
        assert all(v.owner in defined for v in op.operands)
        defined.add(op)
        assert isinstance(op, (*STRUCTURAL_OPS, PartitionedCallOp))
    call_ops = calls(module)
    for call in call_ops:
        inner = [op for op in call.f.block.ops if not isinstance(op, STRUCTURAL_OPS)]
        assert {UNARY.get(op.name[3:], BINARY.get(op.name[3:])) for op in inner} == {
            call.engine.data
        }
    edges = quotient_edges(call_ops)
    for source, targets in edges.items():
        for target in targets:
            if source.engine == target.engine:
                assert reaches_through_another(edges, source, target), (
                    "two adjacent same-engine groups could have merged"
                )
    rng = np.random.default_rng(seed)
    inputs = {k: rng.standard_normal((2, 3)).astype(np.float32) for k in "xy"}
    assert_same_outputs(before, module, inputs)


def test_control_flow_subgraphs_are_partitioned_in_place() -> None:
    b = GraphBuilder("cf")
    p = b.data([], "bool", name="p")
    x = b.data([2, 3], "float32", name="x")
    (y,) = b.if_(
        p,
        [x],
        lambda sb, v: [sb.tile(v, multiples=[1, 1], name="t")],
        lambda sb, v: [sb.neg(v, name="n")],
    )
    b.output(b.relu(y, name="z"))
    module = b.build()
    before = module.clone()
    apply(module, PartitionEnginesPass())
    text = str(module)
    assert text.count('engine = "AICPU"') == 1 and text.count('engine = "AICore"') == 2
    x_value = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    for flag in (True, False):
        assert_same_outputs(before, module, {"p": np.array(flag), "x": x_value})


# ---------------------------------------------------------------------------
# insert-aicpu-cast
# ---------------------------------------------------------------------------


def fp16_tanh_module() -> ModuleOp:
    b = GraphBuilder("half")
    x = b.data([2, 17, 3, 3], "float16", name="x")
    r = b.relu(x, name="r")
    t = b.tanh(r, name="t")
    b.output(b.add(t, r, name="z"))
    return b.build()


def test_fp32_only_aicpu_op_in_fp16_graph_gets_casts_and_runs(user_opinfo: Any) -> None:
    user_opinfo({"ge.tanh": {"engine": "AICPU", "dtypes": ["float32"]}})
    module = fp16_tanh_module()
    original = module.clone()
    with pytest.raises(GEError) as error:
        apply(module.clone(), PartitionEnginesPass())
    message = str(error.value)
    assert "\n" not in message
    assert "'ge.tanh' op (node 't') runs on AICPU" in message
    assert "does not support float16 (supported: float32)" in message
    assert "--insert-aicpu-cast" in message and "--auto_cast_mode=1" in message

    apply(module, InsertAICPUCastPass(), PartitionEnginesPass())
    casts = [op for op in module.walk() if isinstance(op, CastOp)]
    assert [c.attributes["name"].data for c in casts] == [
        "t_input0_cast",
        "t_output0_cast",
    ]
    aicpu = [c for c in calls(module) if c.engine.data == "AICPU"]
    assert len(aicpu) == 1 and "f32" in str(aicpu[0].operands[0].type)
    x = np.random.default_rng(2).uniform(-3, 3, (2, 17, 3, 3)).astype(np.float16)
    (expected,) = evaluate(original, {"x": x})
    for got in (evaluate(module, {"x": x})[0], compile_model(module).run({"x": x})[0]):
        assert got.dtype == np.float16
        scale = float(np.abs(expected.astype(np.float32)).max())
        error_max = float(np.abs(got.astype(np.float32) - expected).max())
        assert error_max <= FP16_TOLERANCE * scale


def test_no_dtype_holding_the_values_is_a_one_line_error(user_opinfo: Any) -> None:
    user_opinfo({"ge.tanh": {"engine": "AICPU", "dtypes": ["int32"]}})
    with pytest.raises(GEError) as error:
        apply(fp16_tanh_module(), InsertAICPUCastPass())
    message = str(error.value)
    assert "\n" not in message
    assert message.endswith(
        "'ge.tanh' op (node 't') runs on AICPU, which does not support float16 and "
        "has no dtype that holds its values (supported: int32)"
    )


def bf16_tile_onnx(path: Path) -> Path:
    """Relu -> Tile (an AI CPU op without bf16 kernels) -> Sigmoid, in bf16."""
    repeats = numpy_helper.from_array(np.array([1, 2], np.int64), "repeats")
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"], name="relu"),
            helper.make_node("Tile", ["r", "repeats"], ["t"], name="tile"),
            helper.make_node("Sigmoid", ["t"], ["y"], name="sig"),
        ],
        "bf16_tile",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [3, 17])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [3, 34])],
        [repeats],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.save(model, path)
    return path


def test_ge_atc_auto_cast_mode(tmp_path: Path, capsys) -> None:
    model = bf16_tile_onnx(tmp_path / "tile.onnx")
    base = [f"--model={model}", "--framework=5", "--log=error"]
    code = ge_atc.main([*base, f"--output={tmp_path / 'no'}"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "'ge.tile' op (node 'tile') runs on AICPU" in err
    assert "--auto_cast_mode=1" in err and not (tmp_path / "no.om").exists()

    out = tmp_path / "yes"
    assert ge_atc.main([*base, f"--output={out}", "--auto_cast_mode=1"]) == 0
    capsys.readouterr()
    code = ge_run.main(
        [
            f"{out}.om",
            "--random-inputs",
            "--check",
            "--trace",
            "--tolerance=1e-2",
            f"--output-dir={tmp_path / 'run'}",
        ]
    )
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert "tile ge.tile AICPU sunk" in stdout and ": ok" in stdout
    assert "tile_input0_cast ge.cast AICore sunk" in stdout


# ---------------------------------------------------------------------------
# mark-fallback
# ---------------------------------------------------------------------------


def test_mark_fallback_sets_mode_and_logs_ge_line(caplog, user_opinfo: Any) -> None:
    user_opinfo({"ge.relu": {"fallback_enabled": True, "fallback_mode": "aclnn_only"}})
    b = GraphBuilder("g")
    x = b.data([2, 10], "float32", name="x")
    r = b.relu(x)
    b.output(b.softmax(r, name="probs"), b.sigmoid(r))
    module = b.build()
    with caplog.at_level(logging.INFO, logger="passes"):
        apply(module, MarkFallbackPass())
    assert [r.getMessage() for r in caplog.records] == [
        "relu_0, setting fallback attribute aclnn_only (always a host single-op "
        "call; a static graph is split around it)",
        "probs, setting fallback attribute support_aclnn (sunk with the graph while "
        "shapes are static; a host single-op call only under dynamic shapes)",
    ]
    assert all(r.levelno == logging.INFO for r in caplog.records)
    marks = {
        op.name: op.attributes[FALLBACK_ATTRIBUTE].data
        for op in module.walk()
        if FALLBACK_ATTRIBUTE in op.attributes
    }
    assert marks == {"ge.relu": "aclnn_only", "ge.softmax": "support_aclnn"}


def test_ge_atc_shows_the_fallback_log_line_at_info(tmp_path: Path, capsys) -> None:
    b = [helper.make_node("Softmax", ["x"], ["y"], name="probs", axis=-1)]
    graph = helper.make_graph(
        b,
        "sm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])],
    )
    model = tmp_path / "sm.onnx"
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), model
    )
    args = [f"--model={model}", "--framework=5", f"--output={tmp_path / 'sm'}"]
    assert ge_atc.main(args) == 0
    lines = capsys.readouterr().err.splitlines()
    assert any(
        line.startswith("ge-atc: probs, setting fallback attribute support_aclnn")
        for line in lines
    )
    assert any(
        line.startswith("ge-atc: [") and " mark-fallback: " in line for line in lines
    )
    assert ge_atc.main([*args, "--log=warning"]) == 0
    assert "setting fallback attribute" not in capsys.readouterr().err


class DefinitionGroups(EngineGroups):
    """`EngineGroups` that merges as defined: unless a path leaves the two
    groups and comes back, searched through every group, each group's users
    found from every member's users at each step."""

    def group_users(self, group: int) -> set[int]:
        found = {self.find(u) for m in self.members[group] for u in self.users[m]}
        found.discard(group)
        return found

    def merge(self, a: int, b: int) -> bool:
        merged = {a, b}
        frontier = [
            g for g in self.group_users(a) | self.group_users(b) if g not in merged
        ]
        seen = set(frontier)
        while frontier:
            for user in self.group_users(frontier.pop()):
                if user in merged:
                    return False
                if user not in seen:
                    seen.add(user)
                    frontier.append(user)
        self.parent[b] = a
        self.members[a] |= self.members.pop(b)
        return True


LATTICE = """
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<4xf32>
  %a = ge.relu %x : tensor<4xf32> -> tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32> -> tensor<4xf32>
  %c = ge.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = ge.relu %c : tensor<4xf32> -> tensor<4xf32>
  %e = ge.add %b, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = ge.add %c, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = ge.relu %f : tensor<4xf32> -> tensor<4xf32>
  %h = ge.add %d, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.netoutput %h : tensor<4xf32>
}
"""


def test_groups_kept_through_merges_are_the_groups_as_defined():
    """The users and sources of each group kept through the merges and the
    search among the groups placed between two (`position`) give the
    partition that searching every group, each one's users found from every
    member, gives: for every assignment of two engines to a lattice of ops
    (paths that leave a group and come back included)."""
    graph = next(iter(parse(LATTICE).ops))
    ops = [op for op in graph.body.block.ops if op.name != "ge.netoutput"]
    for choice in range(1 << len(ops)):
        engines = [
            Engine.AICORE if choice >> i & 1 else Engine.AICPU for i in range(len(ops))
        ]
        kept, defined = EngineGroups(ops, engines), DefinitionGroups(ops, engines)
        kept.merge_all()
        defined.merge_all()
        assert kept.groups() == defined.groups(), engines
