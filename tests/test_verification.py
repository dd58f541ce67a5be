"""`StageVerifier`: verification between passes, not repeated on unchanged IR."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, f32, i64
from xdsl.rewriter import Rewriter

from ge_dialect import verification
from ge_dialect.diagnostics import GEError
from ge_xdsl import parse

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
