"""`infer-origin-format` from Python: idempotence, meaning, the rule API, groups.

The behaviour on each GE scenario is covered by the lit tests in
`tests/filecheck/infer-origin-format/`; these tests reuse those files: every
graph is run twice (idempotence), and the join and reflection scenarios
also through the reference evaluator before and after the pass, and
through the whole pipeline and the JIT (every branch of their control flow).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from fuzz.differential import compare, pipeline_pass, run_jit, run_verified
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.printer import Printer

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.format_rules import (
    FORMAT_RULES,
    FormatView,
    default_rule,
    infer_rule,
    refresh_rule,
    register_format_rule,
    same_rank_rule,
)
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of
from ge_dialect.ops import DataOp, GraphOp, IfOp, NetOutputOp, VariableOp, WhileOp
from ge_dialect.parsing import parse_module
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import find_graph, input_specs
from ge_xdsl.serving import graph_inputs
from passes.infer_origin_format import InferOriginFormatPass, reflection_groups

LIT_DIR = Path(__file__).parent / "filecheck" / "infer-origin-format"
LIT_FILES = sorted(
    path
    for path in LIT_DIR.glob("*.mlir")
    if not re.search(r"--load-plugin|--verify-diagnostics", path.read_text())
)
"""The lit inputs that are valid `ge` graphs on their own."""


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx


def parse(text: str) -> ModuleOp:
    return parse_module(context(), text, "test.mlir")


def printed(module: Operation) -> str:
    lines: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            lines.append(text)

    Printer(stream=Sink()).print_op(module)
    return "".join(lines)


def run(module: ModuleOp, data_format: str = "ND") -> ModuleOp:
    InferOriginFormatPass(data_format=data_format).apply(context(), module)
    verify_module(module)
    return module


def chunks(path: Path) -> list[str]:
    return [
        c
        for c in re.split(r"^// -----$", path.read_text(), flags=re.M)
        if "ge.graph" in c
    ]


def origin(module: ModuleOp, name: str) -> Format:
    """The origin format of the value named `%name` in the printed module."""
    match = re.search(
        rf"%{name} = .*?(tensor<[^>]*(?:<[^>]*>)?>)\s*$", printed(module), re.M
    )
    assert match, name
    layout = re.search(r"#ge.layout<(\w+)", match.group(1))
    return Format(layout.group(1)) if layout else Format.ND


# ---------------------------------------------------------------------------
# Idempotence
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("data_format", ["ND", "NCHW", "NHWC"])
@pytest.mark.parametrize(
    "chunk",
    [c for path in LIT_FILES for c in chunks(path)],
    ids=lambda c: re.search(r"ge.graph @(\w+)", c).group(1),
)
def test_running_twice_changes_nothing(chunk: str, data_format: str):
    once = printed(run(parse(chunk), data_format))
    twice = printed(run(parse(once), data_format))
    assert twice == once


# ---------------------------------------------------------------------------
# Meaning: the scenario graphs compute the same before and after
# ---------------------------------------------------------------------------

SCENARIO_CHUNKS = [
    c for name in ("joins.mlir", "reflection.mlir") for c in chunks(LIT_DIR / name)
]


def branch_inputs(module: ModuleOp) -> list[dict[int, np.ndarray]]:
    """Random inputs, once per choice of every scalar input (if conditions
    and case indices), so that every branch is taken."""
    specs = input_specs(find_graph(module))
    base = graph_inputs(find_graph(module), {}, random=True, seed=3)
    choices = [
        [(spec.index, np.array(v, dtype=base[spec.index].dtype)) for v in range(3)]
        for spec in specs
        if not spec.shape
    ]
    return [base | dict(chosen) for chosen in itertools.product(*choices)]


@pytest.mark.parametrize(
    "chunk", SCENARIO_CHUNKS, ids=lambda c: re.search(r"ge.graph @(\w+)", c).group(1)
)
def test_scenario_keeps_its_meaning(chunk: str):
    module = parse(chunk)
    inferred = run(module.clone())
    compiled = module.clone()
    run_verified(pipeline_pass(""), compiled)
    for inputs in branch_inputs(module):
        want = evaluate(module, inputs)
        compare("infer-origin-format", evaluate(inferred, inputs), want)
        compare("pipeline", evaluate(compiled, inputs), want)
        compare("jit", run_jit(compiled, inputs), want)


# ---------------------------------------------------------------------------
# Random graphs against a model of GE's descriptors (research §1.2, §1.3)
# ---------------------------------------------------------------------------

TENSOR = "tensor<1x5x5x5xf32>"
POOL_WINDOWS = {"NCHW": "1, 1, 2, 2", "NHWC": "1, 2, 2, 1"}


@dataclass(frozen=True)
class Node:
    """One op of a generated graph: its kind and the nodes it reads."""

    kind: str  # "data", "relu", "neg", "add", "maximum", "pool:NCHW", ...
    operands: tuple[int, ...] = ()
    layout: str = "ND"  # a data node's user layout


@st.composite
def dag(draw) -> list[Node]:
    """Inputs (some with a user layout), then unary, binary and pooling ops
    on earlier values; every tensor is [1, 5, 5, 5] so any op takes any."""
    nodes = [
        Node("data", layout=draw(st.sampled_from(["ND", "NCHW", "NHWC"])))
        for _ in range(draw(st.integers(1, 3)))
    ]
    for _ in range(draw(st.integers(2, 12))):
        kind = draw(
            st.sampled_from(["relu", "neg", "add", "maximum", "pool:NCHW", "pool:NHWC"])
        )
        arity = 2 if kind in ("add", "maximum") else 1
        picks = st.integers(0, len(nodes) - 1)
        nodes.append(Node(kind, tuple(draw(picks) for _ in range(arity))))
    return nodes


def dag_text(nodes: list[Node]) -> str:
    lines = ["ge.graph @g {"]
    types: list[str] = []
    for i, node in enumerate(nodes):
        args = ", ".join(f"%v{o}" for o in node.operands)
        operand_types = ", ".join(types[o] for o in node.operands)
        if node.kind == "data":
            layout = "" if node.layout == "ND" else f", #ge.layout<{node.layout}>"
            types.append(f"{TENSOR[:-1]}{layout}>")
            lines.append(f"  %v{i} = ge.data {{index = {i} : i64}} : {types[-1]}")
            continue
        if node.kind.startswith("pool:"):
            fmt = node.kind[5:]
            lines.append(
                f'  %v{i} = ge.avg_pool {args} {{data_format = "{fmt}", ksize = '
                f"array<i64: {POOL_WINDOWS[fmt]}>, pads = array<i64: 0, 1, 0, 1>}}"
                f" : {operand_types} -> {TENSOR}"
            )
        else:
            signature = (
                operand_types if len(node.operands) == 1 else f"({operand_types})"
            )
            lines.append(f"  %v{i} = ge.{node.kind} {args} : {signature} -> {TENSOR}")
        types.append(TENSOR)
    used = {o for node in nodes for o in node.operands}
    sinks = [i for i in range(len(nodes)) if i not in used]
    outs = ", ".join(f"%v{i}" for i in sinks)
    lines.append(f"  ge.netoutput {outs} : {', '.join(types[i] for i in sinks)}")
    lines.append("}")
    return "\n".join(lines)


def ge_descriptors(nodes: list[Node]) -> tuple[list[str], dict[tuple[int, int], str]]:
    """GE's refiner on per-edge descriptors: each node's output descriptor
    and each (node, operand) input descriptor; node len(nodes) is NetOutput.

    Anchors are the data with a user layout and the pools (all of their
    descriptors set); each anchor's queue runs back- then forward inference;
    the default rule takes the first non-ND input, a non-ND output wins,
    and it writes every ND descriptor of the node.
    """
    out = [n.layout if n.kind == "data" else "ND" for n in nodes]
    inp: dict[tuple[int, int], str] = {}
    users: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(nodes))}
    used = {o for node in nodes for o in node.operands}
    sinks = [i for i in range(len(nodes)) if i not in used]
    for i, node in enumerate(nodes):
        for k, o in enumerate(node.operands):
            users[o].append((i, k))
    for k, o in enumerate(sinks):
        users[o].append((len(nodes), k))
    for i, node in enumerate(nodes):
        if node.kind.startswith("pool:"):
            out[i] = inp[(i, 0)] = node.kind[5:]

    def infer(i: int) -> None:
        ins = [inp.get((i, k), "ND") for k in range(len(nodes[i].operands))]
        chosen = next((f for f in ins if f != "ND"), "ND")
        chosen = out[i] if out[i] != "ND" else chosen
        if chosen != "ND":
            for k in range(len(ins)):
                inp.setdefault((i, k), chosen)
            out[i] = chosen

    anchors = [i for i, n in enumerate(nodes) if out[i] != "ND"]
    for anchor in anchors:
        queue = deque([anchor])
        while queue:
            i = queue.popleft()
            for k, o in enumerate(nodes[i].operands):
                if inp.get((i, k), "ND") != "ND" and out[o] == "ND":
                    out[o] = inp[(i, k)]
                    infer(o)
                    queue.append(o)
            if out[i] != "ND":
                for c, k in users[i]:
                    if (c, k) not in inp:
                        inp[(c, k)] = out[i]
                        if c < len(nodes):
                            infer(c)
                            queue.append(c)
    return out, inp


@settings(max_examples=60, deadline=None)
@given(dag())
def test_random_graphs_match_ges_descriptors(nodes: list[Node]):
    """Every result takes GE's output descriptor; every operand reads GE's
    input descriptor (a relabelled copy where the two ends differ); the
    meaning is kept and a second run changes nothing."""
    text = dag_text(nodes)
    module = parse(text)
    before = evaluate(module, graph_inputs(find_graph(module), {}, random=True, seed=5))
    run(module)
    out, inp = ge_descriptors(nodes)
    graph = find_graph(module)
    ops = [op for op in graph.body.block.ops if op.name != "ge.identity"]
    used = {o for node in nodes for o in node.operands}
    sinks = tuple(i for i in range(len(nodes)) if i not in used)
    for i, op in enumerate(ops):
        if i < len(nodes):
            assert layout_of(op.results[0].type)[0] == Format(out[i]), text
        producers = nodes[i].operands if i < len(nodes) else sinks
        for k, value in enumerate(op.operands):
            want = inp.get((i, k), "ND")
            if want == "ND":
                want = out[producers[k]]
            assert layout_of(value.type)[0] == Format(want), (text, i, k)
    inputs = graph_inputs(graph, {}, random=True, seed=5)
    compare("infer-origin-format", evaluate(module, inputs), before)
    once = printed(module)
    assert printed(run(parse(once))) == once


# ---------------------------------------------------------------------------
# Behaviour through the Python API
# ---------------------------------------------------------------------------


def test_builder_graph_is_labelled_from_its_conv():
    b = GraphBuilder("main")
    x = b.data([1, 8, 8, 3])
    w = b.const(np.ones((4, 3, 3, 3), np.float32))
    y = b.relu(b.conv2d(x, w, data_format="NHWC"))
    b.output(b.flatten(y))
    module = run(b.build())
    graph = module.body.block.first_op
    assert isinstance(graph, GraphOp)
    formats = [
        layout_of(op.results[0].type)[0] for op in graph.body.block.ops if op.results
    ]
    assert formats == [Format.NHWC, Format.NCHW, Format.NHWC, Format.NHWC, Format.ND]


def test_conflicting_anchors_do_not_raise():
    module = parse(chunks(LIT_DIR / "format_refiner.mlir")[3])
    run(module)
    assert origin(module, "c1") == Format.NCHW
    assert origin(module, "c2") == Format.NHWC


def test_unknown_data_format_option_is_a_one_line_error():
    with pytest.raises(GEError, match="option 'data-format': unknown format 'NCWH'"):
        run(parse(chunks(LIT_DIR / "data_fallback.mlir")[0]), "NCWH")


def test_failing_rule_is_reported_at_its_op():
    text = """
    ge.graph @g {
      %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
      %y = ge.sigmoid %x : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32>
      ge.netoutput %y : tensor<1x3x4x4xf32>
    }
    """
    saved = infer_rule_of("ge.sigmoid")

    @register_format_rule("ge.sigmoid")
    def broken(view: FormatView) -> None:
        raise RuntimeError("boom")

    try:
        with pytest.raises(
            GEError,
            match=r"test.mlir:4:\d+: error: 'ge.sigmoid' op "
            "infer-format rule failed: boom",
        ):
            run(parse(text))
    finally:
        restore("ge.sigmoid", saved)


def infer_rule_of(name: str):
    return FORMAT_RULES.get(name)


def restore(name: str, rule) -> None:
    if rule is None:
        FORMAT_RULES.pop(name, None)
    else:
        FORMAT_RULES[name] = rule


def test_registered_rule_overrides_the_builtin_one():
    text = """
    ge.graph @g {
      %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
      %y = ge.tanh %x : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32>
      ge.netoutput %y : tensor<1x3x4x4xf32>
    }
    """
    saved = infer_rule_of("ge.tanh")
    seen: list[tuple[Format, Format]] = []

    @register_format_rule("ge.tanh")
    def to_nhwc(view: FormatView) -> None:
        seen.append((view.input(0), view.output(0)))
        view.set_output(0, Format.NHWC)
        view.set_output(0, Format.NCHW)  # first writer wins, even in one rule

    try:
        module = run(parse(text))
    finally:
        restore("ge.tanh", saved)
    assert seen == [(Format.NCHW, Format.ND)]
    assert origin(module, "y") == Format.NHWC


def test_rule_sees_its_own_input_descriptors_only():
    """At a join, the first walk to arrive finds the other input still ND,
    although that input's producer (a later anchor) already has a format."""
    text = """
    ge.graph @g {
      %a = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
      %b = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
      %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>}
         : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
      %q = ge.max_pool %b {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>}
         : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
      %m = ge.maximum %q, %p : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>)
         -> tensor<1x3x4x4xf32>
      ge.netoutput %m : tensor<1x3x4x4xf32>
    }
    """
    saved = infer_rule_of("ge.maximum")
    seen: list[tuple[Format, Format]] = []

    @register_format_rule("ge.maximum")
    def recording(view: FormatView) -> None:
        seen.append((view.input(0), view.input(1)))
        same_rank_rule(view)

    try:
        module = run(parse(text))
    finally:
        restore("ge.maximum", saved)
    assert seen == [(Format.ND, Format.NCHW)]
    assert origin(module, "m") == Format.NCHW
    assert origin(module, "q") == Format.NHWC


def test_rule_tables_separate_policy_from_ops():
    module = parse(chunks(LIT_DIR / "propagation.mlir")[0])
    ops = {op.name: op for op in module.walk()}
    assert infer_rule(ops["ge.relu"]) is default_rule
    assert infer_rule(ops["ge.add"]) is same_rank_rule
    assert refresh_rule(ops["ge.relu"]) is None
    assert refresh_rule(ops["ge.max_pool"]) is not None


def test_writes_keep_a_storage_format_already_chosen():
    text = """
    ge.graph @g {
      %x = ge.data {index = 0 : i64} : tensor<1x16x2x2xf16, #ge.layout<ND, NC1HWC0>>
      %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>}
         : tensor<1x16x2x2xf16, #ge.layout<ND, NC1HWC0>> -> tensor<1x16x2x2xf16>
      ge.netoutput %p : tensor<1x16x2x2xf16>
    }
    """
    module = run(parse(text))
    data = next(op for op in module.walk() if isinstance(op, DataOp))
    assert isinstance(data.output.type, TensorType)
    assert layout_of(data.output.type) == (Format.NCHW, Format.NC1HWC0)


# ---------------------------------------------------------------------------
# Reflection groups (GE's RefRelations, ref_relation_unittes.cc)
# ---------------------------------------------------------------------------


def groups_of(text: str) -> tuple[GraphOp, dict]:
    module = parse(text)
    graph = module.body.block.first_op
    assert isinstance(graph, GraphOp)
    return graph, reflection_groups(graph)


def test_if_groups_parent_inputs_with_branch_data_and_outputs():
    graph, table = groups_of(chunks(LIT_DIR / "control_flow.mlir")[3])
    if_op = next(op for op in graph.walk() if isinstance(op, IfOp))
    data = [op for op in if_op.walk() if isinstance(op, DataOp)]
    outputs = [op for op in if_op.walk() if isinstance(op, NetOutputOp)]
    by_index = {i: {(d, True, 0) for d in data if d.index_value == i} for i in (1, 2)}
    for index in (1, 2):
        assert (
            set(table[(if_op, False, index)])
            == {(if_op, False, index)} | by_index[index]
        )
    for index in (0, 1):
        expected = {(if_op, True, index)} | {(o, False, index) for o in outputs}
        assert set(table[(if_op, True, index)]) == expected
    assert table[(if_op, False, 0)] == [(if_op, False, 0)]  # the condition


def test_while_groups_each_loop_variable():
    graph, table = groups_of(chunks(LIT_DIR / "control_flow.mlir")[5])
    loop = next(op for op in graph.walk() if isinstance(op, WhileOp))
    body_output = loop.body.block.last_op
    for index in (0, 1):
        data = {
            (d, True, 0)
            for d in loop.walk()
            if isinstance(d, DataOp) and d.index_value == index
        }
        assert len(data) == 2
        expected = {
            (loop, False, index),
            (loop, True, index),
            (body_output, False, index),
        }
        assert set(table[(loop, True, index)]) == expected | data


def test_while_crossed_loop_variables_share_one_group():
    graph, table = groups_of(chunks(LIT_DIR / "control_flow.mlir")[7])
    loop = next(op for op in graph.walk() if isinstance(op, WhileOp))
    assert set(table[(loop, False, 0)]) == set(table[(loop, False, 1)])


def test_same_named_variables_group_only_with_subgraphs():
    graph, table = groups_of(chunks(LIT_DIR / "control_flow.mlir")[8])
    variables = [op for op in graph.walk() if isinstance(op, VariableOp)]
    w = [(v, True, 0) for v in variables if v.var_name.data == "w"]
    assert set(table[w[0]]) == set(w)
    flat = """
    ge.graph @g {
      %a = ge.variable {name = "w"} : tensor<2xf32>
      %b = ge.variable {name = "w"} : tensor<2xf32>
      ge.netoutput %a, %b : tensor<2xf32>, tensor<2xf32>
    }
    """
    assert groups_of(flat)[1] == {}
