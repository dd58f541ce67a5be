"""`StageVerifier`: verification between passes, not repeated on unchanged IR."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl import traits
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, f32, i64
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from ge_dialect import verification
from ge_dialect.diagnostics import GEError
from ge_dialect.ops import ReluOp
from ge_dialect.traits import IsolatedFromAbove
from ge_frontend.onnx_import import import_onnx
from ge_xdsl import parse
from ge_xdsl.atc import compile_offline_model

GRAPH = """
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %r = ge.relu %x : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput %r : tensor<2x3xf32>
}
"""


@pytest.fixture
def verified(monkeypatch) -> list[list[object]]:
    """The ops each verification verified from now (it still runs)."""
    calls: list[list[object]] = []
    verify = verification.verify_ops

    def recording(ops, **options):
        ops = list(ops)
        calls.append(ops)
        verify(ops, **options)

    monkeypatch.setattr(verification, "verify_ops", recording)
    return calls


def ops(module):
    graph = next(iter(module.ops))
    return list(graph.body.block.ops)


def test_an_unchanged_module_is_not_verified_again(verified):
    module = parse(GRAPH)
    verified.clear()  # the parser's own verification
    verify = verification.StageVerifier()
    verify(module)
    verify(module)
    assert len(verified) == 1


@pytest.mark.parametrize("change", ["attribute", "result type", "operand type"])
def test_any_change_a_verifier_reads_is_verified_again(verified, change):
    """A duplicate graph input index (an attribute), a relu whose result type
    is not its operand's (a retyped result, or operand), each found."""
    module = parse(GRAPH)
    verified.clear()  # the parser's own verification
    data, relu, _ = ops(module)
    verify = verification.StageVerifier()
    verify(module)
    if change == "attribute":
        copy = data.clone()
        copy.attributes["index"] = IntegerAttr(0, i64)
        module.body.block.first_op.body.block.insert_op_before(copy, data)
        message = "two graph inputs have index 0"
    elif change == "result type":
        Rewriter.replace_value_with_new_type(relu.results[0], TensorType(f32, [3, 2]))
        message = "ge.relu"
    else:
        Rewriter.replace_value_with_new_type(data.results[0], TensorType(f32, [3, 2]))
        message = "ge.relu"
    with pytest.raises(GEError, match=message):
        verify(module)
    assert len(verified) == 2


def test_a_module_found_invalid_is_verified_again_once_fixed(verified):
    module = parse(GRAPH)
    verified.clear()  # the parser's own verification
    data, _, _ = ops(module)
    verify = verification.StageVerifier()
    data.attributes["index"] = StringAttr("zero")
    with pytest.raises(GEError):
        verify(module)
    data.attributes["index"] = IntegerAttr(0, i64)
    verify(module)
    verify(module)
    assert len(verified) == 2


CHAIN = """
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %r1 = ge.relu %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %r2 = ge.relu %r1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %r3 = ge.relu %r2 : tensor<2x3xf32> -> tensor<2x3xf32>
  %r4 = ge.relu %r3 : tensor<2x3xf32> -> tensor<2x3xf32>
  %r5 = ge.relu %r4 : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput %r5 : tensor<2x3xf32>
}
"""


def test_a_change_verifies_again_the_ops_it_may_have_made_invalid(verified):
    """A relu replaced: it, its producer and user (whose operand changed:
    its user too), the ends of its block and the ops around it are verified
    again, not the first relu; an invalid replacement is found."""
    module = parse(CHAIN)
    verified.clear()
    data, r1, r2, r3, r4, r5, output = ops(module)
    verify = verification.StageVerifier()
    verify(module)
    new = r3.clone()
    Rewriter.replace_op(r3, new)
    verify(module)
    graph = next(iter(module.ops))
    assert set(verified[-1]) == {module, graph, data, r2, new, r4, r5, output}
    assert verified[-1] == [op for op in module.walk() if op in verified[-1]]
    Rewriter.replace_value_with_new_type(new.results[0], TensorType(f32, [3, 2]))
    with pytest.raises(GEError, match="ge.relu"):
        verify(module)
    assert r1 not in verified[-1]


def test_an_op_moved_within_its_block_verifies_again_its_graph(verified):
    """A relu moved above the relu it reads (nothing else of it changed):
    the graph is verified again and its dataflow order found wrong."""
    module = parse(CHAIN)
    verified.clear()
    _, _, r2, r3, _, _, _ = ops(module)
    verify = verification.StageVerifier()
    verify(module)
    r3.detach()
    r2.parent_block().insert_op_before(r3, r2)
    with pytest.raises(GEError, match="ge.relu"):
        verify(module)
    assert next(iter(module.ops)) in verified[-1]


def test_a_change_of_an_op_verifies_again_every_op_nested_in_it(verified):
    """A module attribute changed (the target a nested op's verifier may
    read, `enclosing_target`): every op is verified again."""
    module = parse(CHAIN)
    verified.clear()
    verify = verification.StageVerifier()
    verify(module)
    module.attributes["ge.target"] = StringAttr("Ascend910")
    verify(module)
    assert verified[-1] == list(module.walk())


def test_an_attribute_of_an_op_inside_another_verifies_again_that_op_only(verified):
    """An attribute of the graph changed (a memory plan's arena size): the
    graph and the module around it are verified again, not the ops nested
    in the graph (their verifiers do not read it, `_read_inside`); a change
    of the graph's body still is."""
    module = parse(CHAIN)
    verified.clear()
    verify = verification.StageVerifier()
    verify(module)
    graph = next(iter(module.ops))
    graph.attributes["ge.arena_size"] = IntegerAttr(64, i64)
    verify(module)
    assert verified[-1] == [module, graph]
    data, *_ = ops(module)
    data.attributes["index"] = StringAttr("zero")
    with pytest.raises(GEError):
        verify(module)


def test_a_change_to_annotations_alone_checks_their_names_and_values(verified):
    """Attributes no verifier reads (a memory plan's offsets) changed on the
    relus: none of them is verified again, nor the ops around them, but the
    attributes' names are checked (a near miss of the input's
    `storage_format` found); a change of anything else of an annotated op
    still verifies it again."""
    module = parse(CHAIN)
    verified.clear()
    data, r1, r2, r3, *_ = ops(module)
    annotations = {"ge.mem_offset", "storage_formt"}
    verify = verification.StageVerifier(annotations)
    verify(module)
    for relu in (r1, r2, r3):
        relu.attributes["ge.mem_offset"] = IntegerAttr(0, i64)
    assert verify(module) == [] and verified[-1] == []
    data.attributes["storage_formt"] = StringAttr("NCHW")
    with pytest.raises(GEError, match="unknown attribute 'storage_formt'"):
        verify(module)
    del data.attributes["storage_formt"]
    verify(module)
    r2.attributes["ge.mem_offset"] = IntegerAttr(32, i64)
    Rewriter.replace_value_with_new_type(r2.results[0], TensorType(f32, [3, 2]))
    with pytest.raises(GEError, match="ge.relu"):
        verify(module)


TWO_GRAPHS = """
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %p = ge.partitioned_call {engine = "AICore"} : () -> tensor<2x3xf32> {
    %c = ge.const {value = dense<1.0> : tensor<2x3xf32>} : tensor<2x3xf32>
    %a = ge.relu %c : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %a : tensor<2x3xf32>
  }
  %s = ge.add %x, %p : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %s : tensor<2x3xf32>
}
ge.graph @h {
  %y = ge.data {index = 0 : i64} : tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}
"""


def test_an_op_moved_to_another_block_verifies_again_it_not_the_ops_inside(verified):
    """The partitioned call moved from @g into @h (what `partition-engines`
    does to a graph's ops): it, its old and new neighbours, its users then
    and now and the graphs are verified again, not the ops inside it (their
    verifiers read their parent's operands and types, not its place); a
    retyped result, they are."""
    module = parse(TWO_GRAPHS)
    verified.clear()
    g, h = module.ops
    x, call, add, g_output = g.body.block.ops
    y, h_output = h.body.block.ops
    verify = verification.StageVerifier()
    verify(module)
    call.detach()
    add.operands[1] = x.results[0]
    h.body.block.insert_op_before(call, h_output)
    h_output.operands[0] = call.results[0]
    verify(module)
    assert verified[-1] == [module, g, x, add, g_output, h, y, call, h_output]
    const, relu, output = call.regions[0].block.ops
    Rewriter.replace_value_with_new_type(call.results[0], TensorType(f32, [3, 2]))
    with pytest.raises(GEError, match="subgraph output #0 has type"):
        verify(module)
    assert {const, relu, output} < set(verified[-1])  # they read its result types


CALL = """
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<6xf32>
  %p = ge.partitioned_call %x {engine = "AICore"} : (tensor<6xf32>) -> tensor<6xf32> {
    %y = ge.data {parent_index = 0 : i64} : tensor<6xf32>
    %a = ge.partitioned_call %y {engine = "AICPU"} : (tensor<6xf32>) -> tensor<6xf32> {
      %z = ge.data {parent_index = 0 : i64} : tensor<6xf32>
      %b = ge.relu %z : tensor<6xf32> -> tensor<6xf32>
      ge.netoutput %b : tensor<6xf32>
    }
    ge.netoutput %a : tensor<6xf32>
  }
  ge.netoutput %p : tensor<6xf32>
}
"""


def test_a_change_an_op_inside_reads_verifies_again_the_ops_directly_inside(
    verified,
):
    """The outer call's operand retyped: the ops directly inside it (a
    subgraph input reads its parent's operand type) are verified again, and
    the invalid input found; the ops inside the inner call (which reads
    none of it) are not. A new op around others (a partitioned call of
    `partition-engines` around a `ge.fused`): the same."""
    module = parse(CALL)
    verified.clear()
    graph = next(iter(module.ops))
    x, outer, output = graph.body.block.ops
    inside = list(outer.regions[0].block.ops)
    deeper = list(inside[1].regions[0].block.ops)
    verify = verification.StageVerifier()
    verify(module)
    Rewriter.replace_value_with_new_type(x.results[0], TensorType(f32, [3]))
    with pytest.raises(GEError, match="does not match parent operand #0"):
        verify(module)
    assert not set(deeper) & set(verified[-1])
    Rewriter.replace_value_with_new_type(x.results[0], TensorType(f32, [6]))
    verify(module)
    new = outer.clone_without_regions()
    outer.regions[0].move_blocks(new.regions[0])
    Rewriter.replace_op(outer, new)
    verify(module)
    assert verified[-1] == [module, graph, x, new, *inside, output]


def _isolated_outcome(trait, op) -> str | None:
    try:
        trait.verify(op)
    except VerifyException as error:
        return str(error)
    return None


@pytest.mark.parametrize("use", ["none", "outer value inside", "inner value outside"])
def test_isolated_from_above_finds_what_xdsls_check_finds(use):
    """`ge_dialect.traits.IsolatedFromAbove` (one walk) accepts and refuses
    the uses xDSL's trait does, with its message: a value of the graph used
    inside a call (refused by the call), a value inside the call used by
    the graph (accepted: xDSL's check does not look inside an op isolated
    itself, and a value defined inside is not from above)."""
    module = parse(CALL)
    graph = next(iter(module.ops))
    x, outer, output = graph.body.block.ops
    y, inner, _ = outer.regions[0].block.ops
    if use == "outer value inside":
        inner.operands[0] = x.results[0]
    elif use == "inner value outside":
        output.operands[0] = inner.results[0]
    for op in (graph, outer, inner):
        found = _isolated_outcome(IsolatedFromAbove(), op)
        assert found == _isolated_outcome(traits.IsolatedFromAbove(), op)
        assert (found is not None) == (use == "outer value inside" and op is outer)


SMALL_CNN = Path(__file__).parent.parent / "examples" / "small_cnn.onnx"


def test_a_model_file_is_verified_once_before_the_first_stage(verified, monkeypatch):
    """`compile_offline_model` of a file: the imported module is verified
    once, by `compile_module` with its target (not by the importer, then
    again after the first stage), every op before any pass; an op found
    invalid is reported as the importer reports it."""
    targets = []
    record = verification.verify_ops

    def with_target(ops, **options):
        ops = list(ops)
        targets.append(ops[0].attributes.get("ge.target"))
        record(ops, **options)

    monkeypatch.setattr(verification, "verify_ops", with_target)
    _, compiled = compile_offline_model(SMALL_CNN, soc_version="Ascend910")
    assert set(targets) == {StringAttr("Ascend910")}
    assert {op.name for op in verified[0]} >= {"builtin.module", "ge.relu"}

    def refuse(op):
        raise VerifyException("refused")

    monkeypatch.setattr(ReluOp, "verify_", refuse)
    with pytest.raises(GEError) as by_importer:
        import_onnx(SMALL_CNN)
    with pytest.raises(GEError) as by_compile:
        compile_offline_model(SMALL_CNN, soc_version="Ascend910")
    assert str(by_compile.value) == str(by_importer.value)
    assert str(by_compile.value).startswith(f"{SMALL_CNN}: error: ")
