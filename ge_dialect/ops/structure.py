"""Graph structure: `ge.graph`, `ge.data`, `ge.const`, `ge.variable`, `ge.netoutput`.

A graph is a `ge.graph` whose single block holds `ge.data` inputs, constants,
the computation and a `ge.netoutput` terminator:

```mlir
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (...) -> tensor<1x4x6x6xf32>
  ge.netoutput %y : tensor<1x4x6x6xf32>
}
```

These ops are `Structural`: the evaluator, the scheduler and the lowering
treat them themselves, so they have no shape function or kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
)
from xdsl.ir import Region, SSAValue
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    ConstantLike,
    IsTerminator,
    OpTrait,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import ExternalDataAttr, FormatAttr
from ge_dialect.dataflow import check_block_order
from ge_dialect.format_rules import (
    constant_refresh_rule,
    data_storage_format_rule,
    default_rule,
)
from ge_dialect.layout import shape_of, storage_shape_of
from ge_dialect.ops.base import GEOperation, enclosing_target, same_shape_and_dtype
from ge_dialect.traits import IsolatedFromAbove


class Structural(OpTrait):
    """Graph structure: drivers handle the op themselves (no shape function,
    no kernel); its types come from its operands, attributes or regions."""


def verify_graph_body(region: Region) -> None:
    """A graph region has one argument-less block ending in `ge.netoutput`."""
    if not region.blocks:
        raise VerifyException("graph region must have one block")
    block = region.block
    if block.args:
        raise VerifyException(
            "graph block takes no arguments (inputs are 'ge.data' ops)"
        )
    if not isinstance(block.last_op, NetOutputOp):
        raise VerifyException("graph region must end with 'ge.netoutput'")
    check_block_order(block)


@irdl_op_definition
class GraphOp(GEOperation):
    """A computation graph: `ge.graph @name { ... ge.netoutput ... }`."""

    name = "ge.graph"

    sym_name = attr_def(SymbolNameConstraint())
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), Structural())

    assembly_format = "$sym_name attr-dict-with-keyword $body"

    def __init__(self, name: str, body: Any):
        super().__init__(attributes={"sym_name": StringAttr(name)}, regions=[body])

    def verify_(self) -> None:
        verify_graph_body(self.body)
        seen: set[int] = set()
        for op in self.body.block.ops:
            if isinstance(op, DataOp) and isinstance(op.index, IntegerAttr):
                index = op.index.value.data
                if index in seen:
                    raise VerifyException(f"two graph inputs have index {index}")
                seen.add(index)

    @property
    def output(self) -> NetOutputOp:
        """The graph's terminator."""
        last = self.body.block.last_op
        assert isinstance(last, NetOutputOp)
        return last

    def inputs(self) -> list[DataOp]:
        """The graph's `ge.data` ops ordered by `index`."""
        data = [op for op in self.body.block.ops if isinstance(op, DataOp)]
        return sorted(data, key=lambda d: d.index_value)


@irdl_op_definition
class DataOp(GEOperation):
    """A graph input. Inside a subgraph, `parent_index` names the parent operand.

    `storage_format`/`storage_shape` are the user's request for the storage
    layout of this input (consumed by `refine-running-format`). Not `Pure`:
    an unused input is still part of the graph's signature.
    """

    name = "ge.data"

    index = opt_attr_def(IntegerAttr)
    parent_index = opt_attr_def(IntegerAttr)
    storage_format = opt_attr_def(FormatAttr)
    storage_shape = opt_attr_def(DenseArrayBase)
    output = result_def(TensorType)

    traits = traits_def(Structural())
    FORMAT_RULE = staticmethod(default_rule)
    REFRESH_RULE = staticmethod(data_storage_format_rule)

    assembly_format = "attr-dict `:` type($output)"

    @property
    def index_value(self) -> int:
        """The input position (parent_index inside subgraphs)."""
        attr = self.index if self.index is not None else self.parent_index
        return attr.value.data if attr is not None else 0

    def verify_(self) -> None:
        if self.storage_shape is not None and self.storage_format is None:
            raise VerifyException("'storage_shape' requires 'storage_format'")
        parent = self.parent_op()
        if isinstance(parent, GraphOp):
            if self.index is None:
                raise VerifyException("graph input needs an 'index' attribute")
            if self.index.value.data < 0:
                raise VerifyException(f"index must be >= 0, got {self.index_value}")
            return
        if parent is None:
            return
        if self.parent_index is None:
            raise VerifyException(
                f"'ge.data' inside a '{parent.name}' subgraph needs 'parent_index'"
            )
        parent_index = self.parent_index.value.data
        if not 0 <= parent_index < len(parent.operands):
            raise VerifyException(
                f"parent_index {parent_index} is out of range: '{parent.name}' has "
                f"{len(parent.operands)} operands"
            )
        subgraph_input_type = getattr(parent, "subgraph_input_type", None)
        parent_type = (
            subgraph_input_type(parent_index)
            if subgraph_input_type is not None
            else parent.operands[parent_index].type
        )
        if not same_shape_and_dtype(parent_type, self.output.type):
            raise VerifyException(
                f"type {self.output.type} does not match parent operand "
                f"#{parent_index} of type {parent_type}"
            )


@irdl_op_definition
class ConstOp(GEOperation):
    """A constant tensor. Its `value` is stored in the storage layout of the result.

    `value` is a dense elements attribute or `#ge.external<"key">` for weights
    kept outside the IR text. A splat may be written in the result's origin
    shape instead (`dense<0.5> : tensor<9x9x3x3xf16>` for a FRACTAL_Z result):
    laid out, its padding is zero (`ge_dialect.constants.inline_stored_array`).
    """

    name = "ge.const"

    value = attr_def(DenseIntOrFPElementsAttr | ExternalDataAttr)
    output = result_def(TensorType)

    traits = traits_def(Pure(), ConstantLike(), Structural())
    FORMAT_RULE = staticmethod(default_rule)
    REFRESH_RULE = staticmethod(constant_refresh_rule)

    assembly_format = "attr-dict `:` type($output)"

    def verify_(self) -> None:
        if not isinstance(self.value, DenseIntOrFPElementsAttr):
            return
        value_type = self.value.get_type()
        result = self.output.type
        assert isinstance(result, TensorType)
        if value_type.element_type != result.element_type:
            raise VerifyException(
                f"value dtype {value_type.element_type} does not match result dtype "
                f"{result.element_type}"
            )
        expected = storage_shape_of(result, enclosing_target(self))
        value_shape = shape_of(value_type)
        if value_shape == expected:
            return
        if value_shape == shape_of(result) and self.value.is_splat():
            return  # a splat in the origin shape: padding is zero when laid out
        raise VerifyException(
            f"value shape {list(value_shape)} does not match the result's "
            f"storage shape {list(expected)}"
        )


@irdl_op_definition
class VariableOp(GEOperation):
    """A named, mutable graph variable (shared by name across subgraphs)."""

    name = "ge.variable"

    var_name = attr_def(StringAttr, attr_name="name")
    output = result_def(TensorType)

    traits = traits_def(Structural())

    assembly_format = "attr-dict `:` type($output)"


@irdl_op_definition
class NetOutputOp(GEOperation):
    """The terminator of a graph or subgraph; operand j is output j.

    `storage_formats` (one `#ge.format` per operand, ND for "keep") is the
    user's request for output storage layouts.
    """

    name = "ge.netoutput"

    outputs = var_operand_def(TensorType)
    storage_formats = opt_attr_def(ArrayAttr[FormatAttr])

    traits = traits_def(IsTerminator(), Structural())

    assembly_format = "($outputs^ `:` type($outputs))? attr-dict"

    def __init__(self, outputs: Sequence[SSAValue]):
        super().__init__(operands=[outputs])

    def verify_(self) -> None:
        if self.storage_formats is not None and len(self.storage_formats) != len(
            self.outputs
        ):
            raise VerifyException(
                f"'storage_formats' has {len(self.storage_formats)} entries for "
                f"{len(self.outputs)} outputs"
            )
        names = self.attributes.get("output_names")
        if names is None:
            return
        if not isinstance(names, ArrayAttr) or not all(
            isinstance(name, StringAttr) for name in names.data
        ):
            raise VerifyException("'output_names' must be an array of strings")
        if len(names) > len(self.outputs):  # fewer: the rest are unnamed
            raise VerifyException(
                f"'output_names' has {len(names)} names for {len(self.outputs)} outputs"
            )


STRUCTURE_OPS = (GraphOp, DataOp, ConstOp, VariableOp, NetOutputOp)
