"""Memory planning: strategies, the plan checker, and the light ONNX models.

Strategies are checked on random buffer sets against a brute-force overlap
test; the IR checker (`check_graph_plan`) must accept the pass's plans and
reject corrupted ones; on the ONNX package's light models the plan is valid,
within 5% of the lower bound, and the planned graph (JIT with one arena, and
the kernel runtime) computes what the reference computes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.ops import GraphOp
from ge_frontend.onnx_weights import light_model, light_model_names
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import find_graph, input_specs
from passes.memory_planning import (
    ALIGNMENT,
    ARENA_ATTRIBUTE,
    OFFSET_ATTRIBUTE,
    STRATEGIES,
    Buffer,
    arena_size,
    check_graph_plan,
    lower_bound,
    memory_reports,
    plan_buffers,
    read_plan,
)
from passes.plan_memory import PlanMemoryPass, plan_graph
from tools import ge_atc

LIGHT_MODELS = light_model_names()
SMALL_MODELS = {"bvlc_alexnet", "inception_v1", "shufflenet", "squeezenet"}
"""Fast enough for every run; the others are marked slow."""


def light_params(names=LIGHT_MODELS, small=SMALL_MODELS):
    return [
        pytest.param(n, marks=[] if n in small else [pytest.mark.slow]) for n in names
    ]


# ---------------------------------------------------------------------------
# Strategies on buffer sets
# ---------------------------------------------------------------------------


def assert_valid(buffers: list[Buffer], offsets: list[int]) -> None:
    """Brute force: no two buffers live at a common step share a byte."""
    for i, a in enumerate(buffers):
        assert offsets[i] >= 0
        for j in range(i):
            b = buffers[j]
            if a.first <= b.last and b.first <= a.last:
                disjoint = (
                    offsets[i] + a.size <= offsets[j]
                    or offsets[j] + b.size <= offsets[i]
                )
                assert disjoint, (i, j, a, b, offsets[i], offsets[j])


buffer_sets = st.lists(
    st.tuples(
        st.integers(1, 64).map(lambda k: k * ALIGNMENT),
        st.integers(0, 30),
        st.integers(0, 8),
    ).map(lambda t: Buffer(t[0], t[1], t[1] + t[2])),
    max_size=40,
)

crowded_buffer_sets = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 12), st.integers(0, 5)).map(
        lambda t: Buffer(t[0] * ALIGNMENT, t[1], t[1] + t[2])
    ),
    max_size=40,
)
"""Buffers of few sizes (zero included) and short lives: ties and gaps."""


@settings(max_examples=60, deadline=None)
@given(buffer_sets)
def test_every_strategy_gives_a_valid_plan(buffers: list[Buffer]):
    bound = lower_bound(buffers)
    for name, strategy in STRATEGIES.items():
        offsets = strategy(buffers)
        assert_valid(buffers, offsets)
        assert arena_size(buffers, offsets) >= bound, name
    offsets, report = plan_buffers(buffers)
    assert report.peak_bytes == min(report.strategy_bytes.values())
    assert report.peak_bytes == arena_size(buffers, offsets)
    assert report.lower_bound_bytes == bound <= report.peak_bytes
    assert report.no_reuse_bytes == sum(b.size for b in buffers)


def lowest_offset_by_definition(buffers: list[Buffer]) -> list[int]:
    """`lowest-offset` as its docstring states it, scanning every buffer left
    at each step: the one that can sit lowest, ties to the one live longest,
    then the larger, then the first."""
    offsets = [0] * len(buffers)
    floor = [0] * len(buffers)
    unplaced = set(range(len(buffers)))
    level = 0
    while unplaced:
        index = min(
            unplaced,
            key=lambda i: (max(floor[i], level), -buffers[i].last, -buffers[i].size, i),
        )
        level = offsets[index] = max(floor[index], level)
        unplaced.remove(index)
        for other in unplaced:
            if buffers[other].meets(buffers[index]):
                floor[other] = max(floor[other], level + buffers[index].size)
    return offsets


@settings(max_examples=200, deadline=None)
@given(crowded_buffer_sets)
def test_lowest_offset_places_as_its_definition(buffers: list[Buffer]):
    """The heaps of `lowest-offset` choose what scanning every buffer at
    each step chooses (zero-sized buffers and ties included)."""
    assert STRATEGIES["lowest-offset"](buffers) == lowest_offset_by_definition(buffers)


def greedy_by_size_by_definition(buffers: list[Buffer]) -> list[int]:
    """`greedy-by-size` as its docstring states it: the larger buffers
    first (ties to the longer lived, then the first), each in the tightest
    gap between the buffers placed that are live with it, else above them."""
    offsets = [0] * len(buffers)
    placed: list[int] = []
    order = sorted(
        range(len(buffers)),
        key=lambda i: (-buffers[i].size, buffers[i].first - buffers[i].last, i),
    )
    for index in order:
        taken = sorted(
            (offsets[j], offsets[j] + buffers[j].size)
            for j in placed
            if buffers[j].meets(buffers[index])
        )
        gaps = []
        end = 0
        for start, stop in taken:
            if start - end >= buffers[index].size:
                gaps.append((start - end, end))
            end = max(end, stop)
        offsets[index] = min(gaps)[1] if gaps else end
        placed.append(index)
    return offsets


@settings(max_examples=200, deadline=None)
@given(crowded_buffer_sets)
def test_greedy_by_size_places_as_its_definition(buffers: list[Buffer]):
    """`greedy-by-size`, looking only at the buffers live with each
    (`_conflicts`), places as scanning every buffer placed does."""
    assert STRATEGIES["greedy-by-size"](buffers) == greedy_by_size_by_definition(
        buffers
    )


def test_lower_bound_is_the_largest_live_total():
    buffers = [Buffer(100, 0, 2), Buffer(50, 1, 1), Buffer(70, 2, 4), Buffer(10, 5, 5)]
    assert lower_bound(buffers) == 170  # step 2: 100 + 70 (step 1: 150)
    assert lower_bound([]) == 0


def test_first_fit_is_the_baseline_and_a_better_strategy_wins():
    """A growing value next to a long-lived one fragments first fit (ResNet's
    shortcut pattern): the offline strategies reach the lower bound."""
    buffers = [
        Buffer(64, 0, 1),  # dies early, leaves a 64-byte hole at 0
        Buffer(32, 0, 5),  # long lived, at 64
        Buffer(96, 2, 3),  # does not fit the hole: first fit grows the arena
        Buffer(64, 4, 5),
    ]
    offsets, report = plan_buffers(buffers)
    assert report.first_fit_bytes == 192
    assert report.lower_bound_bytes == report.peak_bytes == 128
    assert report.strategy != "first-fit"
    assert_valid(buffers, offsets)
    forced, first_fit = plan_buffers(buffers, "first-fit")
    assert first_fit.peak_bytes == 192 and first_fit.strategy == "first-fit"
    assert_valid(buffers, forced)


def test_unknown_strategy_is_one_line_error():
    with pytest.raises(GEError, match="unknown memory strategy 'next-fit'"):
        plan_buffers([Buffer(32, 0, 1)], "next-fit")


# ---------------------------------------------------------------------------
# The pass and the checker on built graphs
# ---------------------------------------------------------------------------


def chain_graph():
    """x -> relu -> exp -> add(exp, sigmoid(x)): in-place reuse and a live pair."""
    b = GraphBuilder("main")
    x = b.data([1, 16, 8, 8], "float32", name="x")
    r = b.relu(x, name="relu")
    e = b.exp(r, name="exp")
    s = b.sigmoid(x, name="sigmoid")
    b.output(b.add(e, s, name="add"))
    return b.build()


def planned(module, **options):
    PlanMemoryPass(**options).apply(make_context(), module)
    return find_graph(module)


def op_named(graph: GraphOp, name: str):
    return next(
        op
        for op in graph.body.block.ops
        if getattr(op.attributes.get("name"), "data", None) == name
    )


def set_offset(graph: GraphOp, name: str, offset: int) -> None:
    op_named(graph, name).attributes[OFFSET_ATTRIBUTE] = DenseArrayBase.from_list(
        i64, [offset]
    )


def test_checker_accepts_the_pass_plan():
    graph = planned(chain_graph())
    assert check_graph_plan(graph) == 2  # exp and add reuse relu's bytes
    size, offsets = read_plan(graph)
    assert size == 8192 and len(offsets) == 4


def test_checker_rejects_overlapping_live_values():
    graph = planned(chain_graph())
    set_offset(graph, "sigmoid", 0)  # sigmoid is live with exp at the add
    with pytest.raises(GEError, match="'relu' #0 .* and 'sigmoid' #0 .* overlap"):
        check_graph_plan(graph)


def test_checker_rejects_in_place_over_a_live_operand():
    module = chain_graph()
    graph = planned(module)
    x_use = op_named(graph, "sigmoid")
    # exp in place on relu is fine only because relu dies at exp: make relu
    # live on by feeding it to the sigmoid instead of x.
    x_use.operands[0] = op_named(graph, "relu").results[0]
    with pytest.raises(GEError, match="overlap while both are live"):
        check_graph_plan(graph)


@pytest.mark.parametrize(
    ("offset", "size", "message"),
    [
        (16, 8192, "offset 16 is not aligned"),
        (8192, 8192, "does not fit the arena"),
        (0, 4000, "does not fit the arena"),
    ],
)
def test_checker_rejects_misplaced_values(offset: int, size: int, message: str):
    graph = planned(chain_graph())
    set_offset(graph, "sigmoid", offset)
    graph.attributes[ARENA_ATTRIBUTE] = IntegerAttr(size, i64)
    with pytest.raises(GEError, match=message):
        check_graph_plan(graph)


def test_checker_requires_every_result_planned():
    graph = planned(chain_graph())
    del op_named(graph, "exp").attributes[OFFSET_ATTRIBUTE]
    with pytest.raises(GEError, match="result #0 has no arena offset"):
        check_graph_plan(graph)
    with pytest.raises(GEError, match="has no memory plan"):
        check_graph_plan(find_graph(chain_graph()))


def test_in_place_can_be_disabled():
    with_reuse = plan_graph(find_graph(chain_graph()))
    without = plan_graph(find_graph(chain_graph()), in_place=False)
    assert with_reuse.report.peak_bytes == 8192
    assert without.report.peak_bytes == 12288  # relu, exp and sigmoid live at once
    assert without.report.buffers == 4


def test_forced_strategy_is_recorded():
    graph = planned(chain_graph(), strategy="greedy-by-size")
    (report,) = memory_reports([graph]).values()
    assert report["strategy"] == "greedy-by-size"
    assert set(report["strategy_bytes"]) == set(STRATEGIES)
    check_graph_plan(graph)


def test_planned_graph_runs_in_one_arena_with_the_same_outputs():
    from ge_runtime.jit.compiler import lower_graph, run_graph

    module = chain_graph()
    x = np.random.default_rng(0).standard_normal((1, 16, 8, 8)).astype(np.float32)
    (expected,) = evaluate(module, {"x": x})
    graph = planned(module)
    text = lower_graph(graph)
    assert text.count("memref.view") == 4 and "memref<8192xi8>" in text
    (got,) = run_graph(graph, {"x": x})
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_graph_sunk_whole_keeps_its_plan():
    """The scheduler runs a planned graph sunk whole on the plan it carries
    (the pipeline's, an offline model's), not a plan of its own."""
    from ge_runtime.engines.scheduler import compile_model

    module = chain_graph()
    x = np.random.default_rng(0).standard_normal((1, 16, 8, 8)).astype(np.float32)
    (expected,) = evaluate(module, {"x": x})
    graph = planned(module, in_place=False)  # 12288 bytes; replanned: 8192
    model = compile_model(graph)
    (part,) = model.parts
    assert read_plan(part.graph)[0] == 12288
    (report,) = memory_reports([part.graph]).values()
    assert report == memory_reports([graph])["main"]
    np.testing.assert_allclose(model.run({"x": x})[0], expected, rtol=1e-6)


def test_graph_sunk_whole_refuses_a_wrong_plan():
    from ge_runtime.engines.scheduler import compile_model

    graph = planned(chain_graph())
    set_offset(graph, "sigmoid", 0)  # over relu, live with it
    with pytest.raises(GEError, match="'relu' #0 .* and 'sigmoid' #0 .* overlap"):
        compile_model(graph)


def branch_graph():
    """exp -> if (then: relu, neg, tanh; else: x passed through) -> add(if, exp):
    the exp is live through the branch, the branch values only inside it."""
    b = GraphBuilder("main")
    x = b.data([3, 33], "float32", name="x")
    c = b.data([], "bool", name="c")
    p = b.exp(x, name="exp")

    def then(s, v):
        return s.tanh(s.neg(s.relu(v, name="relu"), name="neg"), name="tanh")

    (y,) = b.if_(c, [p], then, lambda s, v: v)
    b.output(b.add(y, p, name="add"))
    return b.build()


def branch_op(graph: GraphOp, name: str):
    return next(
        op
        for op in graph.walk()
        if getattr(op.attributes.get("name"), "data", None) == name
    )


@pytest.mark.parametrize("live", ["exp", "ge.if"])
def test_control_flow_subgraphs_are_planned_and_checked(live):
    """Branch values get offsets, never those of the if's live operand (the
    exp) and result; the checker catches a branch value over either."""
    graph = planned(branch_graph())
    assert check_graph_plan(graph) > 0
    _, offsets = read_plan(graph)
    inside = {branch_op(graph, n).results[0] for n in ("relu", "neg", "tanh")}
    if_op = next(op for op in graph.body.block.ops if op.name == "ge.if")
    outside = {branch_op(graph, "exp").results[0], if_op.results[0]}
    assert inside <= set(offsets) and outside <= set(offsets)
    assert not {offsets[v] for v in inside} & {offsets[v] for v in outside}
    target = if_op if live == "ge.if" else branch_op(graph, live)
    branch_op(graph, "neg").attributes[OFFSET_ATTRIBUTE] = DenseArrayBase.from_list(
        i64, [offsets[target.results[0]]]
    )
    with pytest.raises(GEError, match="overlap while both are live"):
        check_graph_plan(graph)


@pytest.mark.parametrize("taken", [True, False])
def test_planned_control_flow_runs_in_one_arena_with_the_same_outputs(taken):
    from ge_runtime.jit.compiler import lower_graph, run_graph

    module = branch_graph()
    rng = np.random.default_rng(1)
    inputs = {
        "x": rng.standard_normal((3, 33)).astype(np.float32),
        "c": np.array(taken),
    }
    (expected,) = evaluate(module, inputs)
    graph = planned(module)
    text = lower_graph(graph)
    assert "scf.if" in text and text.count("memref.alloc()") == 1  # the arena
    (got,) = run_graph(graph, inputs, poison=True)
    # exp and tanh are the C library's in C kernels: a few ULP from NumPy's
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# The ONNX package's light models
# ---------------------------------------------------------------------------


def compile_light(name: str):
    """(formatted module, weights laid out, an input) of a light model."""
    from ge_dialect.constants import derive_storage_weights
    from ge_frontend.onnx_import import import_onnx
    from passes.format_pipeline import FormatPipelinePass

    imported = import_onnx(light_model(name))
    module = imported.module
    FormatPipelinePass(data_format="NCHW").apply(make_context(), module)
    weights = {
        **imported.weights,
        **derive_storage_weights(module, imported.weights, None),
    }
    (spec,) = input_specs(find_graph(module))
    x = np.random.default_rng(1).standard_normal(spec.shape).astype(np.float32)
    return module, weights, x


@pytest.mark.parametrize("name", light_params())
def test_light_model_plan_is_valid_and_tight(name: str):
    module, _, _ = compile_light(name)
    graph = planned(module)
    assert check_graph_plan(graph) > 0
    report = memory_reports([graph])["main"]
    assert report["peak_bytes"] <= 1.05 * report["lower_bound_bytes"]
    assert report["peak_bytes"] <= report["first_fit_bytes"] <= report["no_reuse_bytes"]


@pytest.mark.parametrize("name", light_params(small={"squeezenet"}))
def test_light_model_outputs_unchanged_by_the_plan(name: str):
    from ge_runtime.engines.executor import Runtime
    from ge_runtime.jit.compiler import run_graph

    module, weights, x = compile_light(name)
    (expected,) = evaluate(module, {0: x}, weights=weights)
    graph = planned(module)
    scale = np.abs(expected).max()
    (jitted,) = run_graph(graph, {0: x}, weights)
    assert np.abs(jitted - expected).max() <= 1e-4 * scale
    (kernels,) = Runtime(graph, weights).run({0: x})
    assert np.abs(kernels - expected).max() <= 1e-4 * scale


# ---------------------------------------------------------------------------
# ge-atc: the report file and the manifest
# ---------------------------------------------------------------------------


def test_ge_atc_memory_report_and_manifest(tmp_path: Path, capsys):
    from ge_runtime.offline.om import load_offline_model

    model = tmp_path / "tiny.onnx"
    onnx.save(tiny_onnx_model(), model)
    report = tmp_path / "memory.json"
    code = ge_atc.main(
        [
            f"--model={model}",
            "--framework=5",
            f"--output={tmp_path / 'tiny'}",
            f"--memory-report={report}",
            "--time-passes",
            "--log=error",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(report.read_text())["main"]
    assert data["peak_bytes"] <= data["first_fit_bytes"] <= data["no_reuse_bytes"]
    assert data["lower_bound_bytes"] <= data["peak_bytes"]
    manifest = load_offline_model(tmp_path / "tiny.om").manifest
    assert manifest["memory"]["main"] == data
    assert "plan-memory" in manifest["stages"]
    timing = [line for line in captured.err.splitlines() if "time-passes:" in line]
    assert "count" in timing[0] and "total" in timing[-1]
    assert any(" plan-memory " in line for line in timing)
    assert any(" infer-origin-format " in line for line in timing)


def tiny_onnx_model() -> onnx.ModelProto:
    """Conv (17 output channels) -> Relu -> Conv -> Add of both branches."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(
        rng.standard_normal((17, 3, 3, 3)).astype(np.float32), "w1"
    )
    w2 = numpy_helper.from_array(
        rng.standard_normal((17, 17, 1, 1)).astype(np.float32), "w2"
    )
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2"),
        helper.make_node("Add", ["c2", "r1"], ["y"], name="add"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 17, 8, 8])],
        [w1, w2],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
