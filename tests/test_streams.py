"""Multi-stream execution: `assign-streams`, stream-aware memory plans, the race
checker (`ge_runtime.engines.streams`) and the concurrent runtime.

The checker's happens-before proof is itself checked against brute force:
on small random graphs with random (often wrong) stream, event and memory
plans, it reports a race exactly when some order of the ops that the plan
allows reads a clobbered or not yet written value. Plans from the passes
always pass; removing any single event of theirs always races. Numerics:
two streams compute bitwise what one stream computes, run after run, on a
small Inception block and the ONNX package's light models.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
import test_scheduling
from hypothesis import event, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from test_memory import compile_light, light_params
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i64

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.ops import GraphOp
from ge_dialect.traits import ViewOp
from ge_runtime.engines.executor import Runtime
from ge_runtime.engines.kernels import KernelRegistry, builtin_registry
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import compile_model
from ge_runtime.engines.streams import StreamRuntime
from ge_runtime.graph_io import find_graph
from ge_runtime.offline.om import load_offline_model
from ge_runtime.offline.timing import Profiler
from passes.assign_streams import AssignStreamsPass, assign_graph
from passes.format_pipeline import FormatPipelinePass
from passes.memory_planning import (
    ARENA_ATTRIBUTE,
    OFFSET_ATTRIBUTE,
    check_graph_plan,
    read_plan,
)
from passes.plan_memory import PlanMemoryPass
from passes.stream_planning import (
    EVENT_COUNT_ATTRIBUTE,
    RECORD_ATTRIBUTE,
    STREAM_ATTRIBUTE,
    STREAM_COUNT_ATTRIBUTE,
    WAIT_ATTRIBUTE,
    check_stream_plan,
    read_streams,
    scheduled_ops,
)
from tools import ge_atc, ge_run

SHAPE = [1, 16, 8, 8]
"""float32: 4096 bytes, so arena offsets are multiples of 4096 slots."""
SLOT = 4096


def streamed(module: ModuleOp, max_streams: int = 2) -> GraphOp:
    """A copy of the module's graph after assign-streams and plan-memory."""
    module = module.clone()
    AssignStreamsPass(max_streams=max_streams).apply(Context(), module)
    PlanMemoryPass().apply(Context(), module)
    return find_graph(module)


def drop_event(graph: GraphOp, event: int) -> GraphOp:
    """A copy of `graph` without `event` (neither recorded nor waited for)."""
    graph = graph.clone()
    for op in graph.walk():
        for name in (RECORD_ATTRIBUTE, WAIT_ATTRIBUTE):
            ids = op.attributes.get(name)
            if isinstance(ids, DenseArrayBase) and event in ids.get_values():
                kept = [e for e in ids.get_values() if e != event]
                op.attributes[name] = DenseArrayBase.from_list(i64, kept)
    return graph


def events_of(graph: GraphOp) -> int:
    plan = read_streams(graph)
    assert plan is not None
    return plan.events


user_opinfo = test_scheduling.user_opinfo
"""Loads user op-info records for a test (a fixture)."""


# ---------------------------------------------------------------------------
# A small Inception block (odd channels, NC1HWC0 storage)
# ---------------------------------------------------------------------------


def inception_block(channels: int = 3, size: int = 12) -> ModuleOp:
    """Four towers (1x1; 1x1-3x3; 1x1-5x5; pool-1x1) joined by a concat, then
    a residual-style shortcut conv added to a 1x1 conv of the concat."""
    rng = np.random.default_rng(0)

    def weight(n: int, c: int, k: int) -> np.ndarray:
        return (rng.standard_normal((n, c, k, k)) / np.sqrt(c * k * k)).astype(
            np.float32
        )

    b = GraphBuilder("block")
    x = b.data([1, channels, size, size], "float32", name="x")

    def conv(v, n: int, c: int, k: int, name: str):
        y = b.conv2d(v, b.const(weight(n, c, k)), pads=[k // 2] * 4, data_format="NCHW")
        return b.relu(y, name=name)

    t1 = conv(x, 17, channels, 1, "t1")
    t2 = conv(conv(x, 16, channels, 1, "t2a"), 33, 16, 3, "t2b")
    t3 = conv(conv(x, 8, channels, 1, "t3a"), 17, 8, 5, "t3b")
    pool = b.max_pool(
        x, ksize=[1, 1, 3, 3], pads=[1, 1, 1, 1], data_format="NCHW", name="p4"
    )
    t4 = conv(pool, 9, channels, 1, "t4")
    cat = b.concat([t1, t2, t3, t4], axis=1, name="cat")
    main = conv(cat, 33, 76, 1, "main")
    shortcut = conv(x, 33, channels, 3, "shortcut")
    b.output(b.add(main, shortcut, name="out"))
    module = b.build()
    FormatPipelinePass(data_format="NCHW").apply(make_context(), module)
    return module


@pytest.fixture(scope="module")
def block() -> ModuleOp:
    return inception_block()


@pytest.fixture(scope="module")
def block_input() -> np.ndarray:
    return np.random.default_rng(1).standard_normal((1, 3, 12, 12)).astype(np.float32)


def test_inception_block_uses_two_streams_with_few_events(block: ModuleOp):
    graph = streamed(block)
    plan = read_streams(graph)
    assert plan is not None and plan.count == 2
    ops = scheduled_ops(graph)
    assert {plan.stream[op] for op in ops} == {0, 1}
    cross = {
        (v.owner, op)
        for op in ops
        for v in op.operands
        if v.owner in plan.stream and plan.stream[v.owner] != plan.stream[op]
    }
    assert 0 < plan.events < len(cross)  # implied dependencies get no event
    assert check_stream_plan(graph) > 0
    assert check_graph_plan(graph) > 0  # also valid in block order


def test_removing_any_event_lets_a_race_happen(block: ModuleOp):
    graph = streamed(block)
    for dropped in range(events_of(graph)):
        with pytest.raises(GEError, match="race: .* no event ordering it"):
            check_stream_plan(drop_event(graph, dropped))


def test_plan_made_before_streams_is_rejected(block: ModuleOp):
    """plan-memory must follow assign-streams: a block-order plan races."""
    module = block.clone()
    PlanMemoryPass().apply(Context(), module)
    AssignStreamsPass().apply(Context(), module)
    graph = find_graph(module)
    check_graph_plan(graph)  # fine sequentially
    with pytest.raises(GEError, match="race: .* writes .* sharing bytes with .*"):
        check_stream_plan(graph)


def test_one_stream_is_the_sequential_plan(block: ModuleOp):
    graph = streamed(block, max_streams=1)
    plan = read_streams(graph)
    assert plan is not None and (plan.count, plan.events) == (1, 0)
    sequential = block.clone()
    PlanMemoryPass().apply(Context(), sequential)
    offsets = [op.attributes.get(OFFSET_ATTRIBUTE) for op in graph.walk()]
    expected = [
        op.attributes.get(OFFSET_ATTRIBUTE) for op in find_graph(sequential).walk()
    ]
    assert offsets == expected
    assert (
        graph.attributes[ARENA_ATTRIBUTE]
        == find_graph(sequential).attributes[ARENA_ATTRIBUTE]
    )


def test_two_streams_compute_bitwise_what_one_computes_20_times(
    block: ModuleOp, block_input: np.ndarray
):
    one = StreamRuntime(streamed(block, 1))
    two = StreamRuntime(streamed(block, 2))
    (expected,) = one.run({"x": block_input})
    (reference,) = evaluate(block, {"x": block_input})
    scale = float(np.abs(reference).max())
    assert np.abs(expected - reference).max() <= 1e-5 * scale
    (sequential,) = Runtime(streamed(block, 2)).run({"x": block_input})
    assert np.array_equal(sequential, expected)
    overlapped = 0
    for _ in range(20):
        (got,) = two.run({"x": block_input})
        assert np.array_equal(got, expected)
        assert {t.stream for t in two.timings} == {0, 1}
        assert len(two.timings) == len(two.steps)
        overlapped += any(
            a.stream != b.stream and a.start < b.end and b.start < a.end
            for a, b in itertools.combinations(two.timings, 2)
        )
    assert overlapped > 0  # the streams did run at the same time


def test_a_failing_kernel_stops_every_stream(block: ModuleOp, block_input):
    def boom(call) -> None:
        raise GEError("error: boom")

    registry: KernelRegistry = builtin_registry()
    registry.register("ge.relu", "boom", boom)
    runtime = StreamRuntime(
        streamed(block), registry=registry, selection={"t2b": "boom"}
    )
    errors: list[BaseException] = []

    def run() -> None:
        try:
            runtime.run({"x": block_input})
        except GEError as error:
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "a stream kept waiting for an event"
    assert [str(e) for e in errors] == ["error: boom"]


def test_stream_runtime_leaves_profiling_to_the_kernel_runtime(block: ModuleOp):
    with pytest.raises(GEError, match="does not profile, dump or tune"):
        StreamRuntime(streamed(block), profiler=Profiler())


def test_scheduler_runs_the_streams_and_traces_them(block: ModuleOp, block_input):
    module = block.clone()
    AssignStreamsPass().apply(Context(), module)
    model = compile_model(module)
    assert model.describe().endswith(", 2 streams")
    assert [part.how for part in model.parts] == ["2 streams"]
    (got,) = model.run({"x": block_input})
    (expected,) = evaluate(block, {"x": block_input})
    assert np.abs(got - expected).max() <= 1e-5 * np.abs(expected).max()
    streams = {entry.node: entry.stream for entry in model.trace}
    assert streams["t2b"] != streams["t3b"]
    assert all(
        entry.start_ms is not None and entry.end_ms >= entry.start_ms
        for entry in model.trace
    )
    assert "stream 1 at " in "\n".join(entry.line() for entry in model.trace)


def test_parts_split_around_a_fallback_op_get_their_own_streams(user_opinfo):
    """An `aclnn_only` op splits the sunk graph: each part is assigned again
    (no event may cross a part) and its streams run concurrently."""
    user_opinfo({"ge.tanh": {"fallback_enabled": True, "fallback_mode": "aclnn_only"}})
    b = GraphBuilder("split")
    x = b.data(SHAPE, "float32", name="x")
    a, e = b.relu(x, name="a"), b.exp(x, name="e")
    t = b.tanh(b.add(a, e, name="ae"), name="t")
    b.output(b.add(b.sigmoid(t, name="s"), b.neg(t, name="n"), name="out"))
    module = test_scheduling.prepare(b.build())
    AssignStreamsPass().apply(Context(), module)
    model = compile_model(module)
    assert model.steps() == ["sunk", "fallback", "sunk"]
    assert [part.stream_count for part in model.parts] == [2, 2]
    for part in model.parts:
        assert check_stream_plan(part.graph) >= 0
    inputs = {"x": np.random.default_rng(2).standard_normal(SHAPE).astype("f4")}
    (got,) = model.run(inputs)
    (expected,) = evaluate(module, inputs)
    assert np.abs(got - expected).max() <= 1e-5 * np.abs(expected).max()
    streams = {entry.node: entry.stream for entry in model.trace}
    assert streams["a"] != streams["e"] and streams["s"] != streams["n"]
    assert streams["t"] is None  # the fallback op runs on the host


# ---------------------------------------------------------------------------
# Random graphs: the pass's plans, and the checker against brute force
# ---------------------------------------------------------------------------

KINDS = ("relu", "exp", "sigmoid", "identity", "add", "add")
"""Elementwise ops (an op reads element i before writing it, as the
brute-force model of atomic ops assumes) and views; joins are common."""


def graph_specs(size: int) -> st.SearchStrategy[list[tuple[str, int, int]]]:
    return st.lists(
        st.tuples(st.sampled_from(KINDS), st.integers(0, 99), st.integers(0, 99)),
        min_size=size // 2,
        max_size=size,
    )


def random_graph(spec: list[tuple[str, int, int]]) -> ModuleOp:
    """Ops reading earlier values; every value no op reads is an output."""
    b = GraphBuilder("g")
    values = [b.data(SHAPE, "float32", name="x")]
    for index, (kind, first, second) in enumerate(spec):
        a = values[first % len(values)]
        if kind == "add":
            value = b.add(a, values[second % len(values)], name=f"op{index}")
        else:
            value = getattr(b, kind)(a, name=f"op{index}")
        values.append(value)
    b.output(*[v for v in values[1:] if not v.uses])
    return b.build()


@settings(max_examples=200, deadline=None)
@given(graph_specs(10), st.integers(1, 3))
def test_pass_plans_are_race_free_and_every_event_is_needed(spec, max_streams):
    graph = streamed(random_graph(spec), max_streams)
    plan = read_streams(graph)
    assert plan is not None and plan.count <= max_streams
    event(f"{plan.count} stream(s), {'some' if plan.events else 'no'} events")
    assert check_stream_plan(graph) >= 0
    for dropped in range(plan.events):
        with pytest.raises(GEError, match="race"):
            check_stream_plan(drop_event(graph, dropped))
    if max_streams == 1:
        assert plan.events == 0


def write_plan(graph: GraphOp, streams, keep_events, slots) -> None:
    """A hand-made stream and memory plan: one event per kept cross-stream
    edge (recorded by the producer, waited by the consumer), given slots."""
    ops = scheduled_ops(graph)
    stream = {op: streams[i % len(streams)] for i, op in enumerate(ops)}
    edges = [
        (v.owner, op)
        for op in ops
        for v in op.operands
        if v.owner in stream and stream[v.owner] != stream[op]
    ]
    kept = [e for i, e in enumerate(edges) if keep_events[i % len(keep_events)]]
    for i, op in enumerate(ops):
        op.attributes[STREAM_ATTRIBUTE] = IntegerAttr(stream[op], i64)
        offsets = [SLOT * slots[i % len(slots)]]
        op.attributes[OFFSET_ATTRIBUTE] = DenseArrayBase.from_list(i64, offsets)
        for name, side in ((RECORD_ATTRIBUTE, 0), (WAIT_ATTRIBUTE, 1)):
            ids = [e for e, edge in enumerate(kept) if edge[side] is op]
            if ids:
                op.attributes[name] = DenseArrayBase.from_list(i64, ids)
    graph.attributes[STREAM_COUNT_ATTRIBUTE] = IntegerAttr(2, i64)
    graph.attributes[EVENT_COUNT_ATTRIBUTE] = IntegerAttr(len(kept), i64)
    graph.attributes[ARENA_ATTRIBUTE] = IntegerAttr(4 * SLOT, i64)


def some_order_fails(graph: GraphOp) -> bool:
    """Brute force: run every order of the ops the plan allows (stream order,
    events), ops atomic, each arena slot holding the value last written to
    it; does some order read a value not yet computed or overwritten?"""
    plan = read_streams(graph)
    planned = read_plan(graph)
    assert plan is not None and planned is not None
    offsets = planned[1]
    ops = scheduled_ops(graph)
    before: dict = {op: set() for op in ops}
    last: dict[int, object] = {}
    for op in ops:
        if plan.stream[op] in last:
            before[op].add(last[plan.stream[op]])
        last[plan.stream[op]] = op
        before[op] |= {plan.recorder[e] for e in plan.waits[op]}

    def views(op) -> bool:
        return op.has_trait(ViewOp) and offsets[op.results[0]] == offsets.get(
            op.operands[0]
        )

    def data(value):
        while value.owner in before and views(value.owner):
            value = value.owner.operands[0]
        return value

    def fails(order) -> bool:
        memory: dict[int, object] = {}
        computed: set = set()
        for op in order:
            for v in op.operands:
                if v.owner in before and (
                    v not in computed or memory.get(offsets[v]) is not data(v)
                ):
                    return True
            for r in op.results:
                computed.add(r)
                if not views(op):
                    memory[offsets[r]] = r
        return any(memory.get(offsets[v]) is not data(v) for v in graph.output.operands)

    def orders(done: list, remaining: list):
        if not remaining:
            yield done
        for op in remaining:
            if before[op] <= set(done):
                yield from orders([*done, op], [o for o in remaining if o is not op])

    return any(fails(order) for order in orders([], ops))


@settings(max_examples=150, deadline=None)
@given(
    graph_specs(6),
    st.lists(st.integers(0, 1), min_size=1, max_size=6),
    st.lists(st.booleans(), min_size=1, max_size=6),
    st.lists(st.integers(0, 3), min_size=1, max_size=6),
)
def test_checker_agrees_with_every_interleaving(spec, streams, keep, slots):
    graph = find_graph(random_graph(spec))
    write_plan(graph, streams, keep, slots)
    try:
        check_stream_plan(graph)
        race = False
    except GEError as error:
        assert "race: " in str(error)
        race = True
    event("race" if race else "race-free")
    assert race == some_order_fails(graph)


# ---------------------------------------------------------------------------
# The plan's contract
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        (STREAM_ATTRIBUTE, IntegerAttr(2, i64), r"needs a 'ge.stream_id' in \[0, 2\)"),
        (WAIT_ATTRIBUTE, [1], "waits for event 1 before an earlier op records it"),
        (RECORD_ATTRIBUTE, [0], "records event 0, already recorded"),
        (RECORD_ATTRIBUTE, [7], r"has an event outside \[0, 2\)"),
    ],
)
def test_broken_plans_are_one_line_errors(attribute, value, message):
    module = random_graph([("relu", 0, 0), ("exp", 0, 0), ("add", 1, 2)])
    graph = find_graph(module)
    write_plan(graph, [0, 1, 0], [True], [0, 1, 2])  # event 0: exp -> add
    graph.attributes[EVENT_COUNT_ATTRIBUTE] = IntegerAttr(2, i64)
    relu, _, add = scheduled_ops(graph)
    target = relu if attribute == STREAM_ATTRIBUTE else add
    if isinstance(value, list):
        value = DenseArrayBase.from_list(i64, value)
    target.attributes[attribute] = value
    with pytest.raises(GEError, match=message) as error:
        read_streams(graph)
    assert "\n" not in str(error.value)


def test_a_chain_stays_on_one_stream_whatever_the_limit():
    module = random_graph([("relu", 0, 0), ("exp", 1, 0), ("sigmoid", 2, 0)])
    assignment = assign_graph(find_graph(module), 8)
    assert (assignment.count, assignment.events) == (1, [])


# ---------------------------------------------------------------------------
# ge-atc --max-streams, then ge-run
# ---------------------------------------------------------------------------


def branchy_onnx_model() -> onnx.ModelProto:
    """Two conv branches (17 and 33 channels) of one input, concatenated."""
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((17, 3, 3, 3)).astype(np.float32) / 5
    w2 = rng.standard_normal((33, 3, 1, 1)).astype(np.float32) / 2
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1] * 4),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["x", "w2"], ["c2"], name="conv2"),
        helper.make_node("Sigmoid", ["c2"], ["s2"], name="sig2"),
        helper.make_node("Concat", ["r1", "s2"], ["y"], name="cat", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "branchy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 50, 16, 16])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_ge_atc_max_streams_then_ge_run_traces_streams(tmp_path: Path, capsys):
    source = tmp_path / "branchy.onnx"
    onnx.save(branchy_onnx_model(), source)
    output = tmp_path / "branchy"
    argv = [f"--model={source}", "--framework=5", f"--output={output}", "--log=error"]
    assert ge_atc.main([*argv, "--max-streams=2"]) == 0
    manifest = load_offline_model(f"{output}.om").manifest
    assert manifest["stages"][-2:] == ["assign-streams", "plan-memory"]
    assert manifest["compile_options"]["max_streams"] == 2
    graph = find_graph(load_offline_model(f"{output}.om").module())
    assert check_stream_plan(graph) >= 0
    capsys.readouterr()
    run = [f"{output}.om", "--random-inputs", "--check", "--trace"]
    assert ge_run.main([*run, f"--output-dir={tmp_path / 'out'}"]) == 0
    printed = capsys.readouterr().out
    assert "2 streams" in printed and "check output_0" in printed
    assert " stream 0 at " in printed and " stream 1 at " in printed
    assert ge_atc.main([*argv, "--max-streams=0"]) == 1
    assert "--max-streams=0 must be in [1, 1024]" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# The ONNX package's light models
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", light_params(small={"inception_v1"}))
def test_light_model_two_streams_match_one_stream(name: str):
    module, weights, x = compile_light(name)
    one = StreamRuntime(streamed(module, 1), weights)
    two = StreamRuntime(streamed(module, 2), weights)
    (expected,) = one.run({0: x})
    (reference,) = evaluate(module, {0: x}, weights=weights)
    assert np.abs(expected - reference).max() <= 1e-4 * np.abs(reference).max()
    for _ in range(20):
        (got,) = two.run({0: x})
        assert np.array_equal(got, expected)
