"""`infer-origin-format` from Python: idempotence, the rule API, reflection groups.

The behaviour on each GE scenario is covered by the lit tests in
`tests/filecheck/infer-origin-format/`; these tests reuse those files.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.printer import Printer

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError, parse_module, verify_module
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
