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
def verified(monkeypatch) -> list[object]:
    """The modules `verify_module` was run on from now (it still runs)."""
    parse(GRAPH)  # the parser's own import binds the function unpatched
    calls: list[object] = []
    verify = verification.verify_module

    def counting(module, **options):
        calls.append(module)
        verify(module, **options)

    monkeypatch.setattr(verification, "verify_module", counting)
    return calls


def ops(module):
    graph = next(iter(module.ops))
    return list(graph.body.block.ops)


def test_an_unchanged_module_is_not_verified_again(verified):
    module = parse(GRAPH)
    verify = verification.StageVerifier()
    verify(module)
    verify(module)
    assert len(verified) == 1


@pytest.mark.parametrize("change", ["attribute", "result type", "operand type"])
def test_any_change_a_verifier_reads_is_verified_again(verified, change):
    """A duplicate graph input index (an attribute), a relu whose result type
    is not its operand's (a retyped result, or operand), each found."""
    module = parse(GRAPH)
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
    data, _, _ = ops(module)
    verify = verification.StageVerifier()
    data.attributes["index"] = StringAttr("zero")
    with pytest.raises(GEError):
        verify(module)
    data.attributes["index"] = IntegerAttr(0, i64)
    verify(module)
    verify(module)
    assert len(verified) == 2
