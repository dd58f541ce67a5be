"""Ops whose regions are GE subgraphs: `ge.if`, `ge.case`, `ge.while`,
`ge.partitioned_call`, and the fused groups of UB fusion (`ge.fused`).

A subgraph's `ge.data` with `parent_index = i` mirrors the parent op's
operand i; its `ge.netoutput` operand j mirrors the parent's result j.
They are `Structural`: the evaluator, scheduler and lowering run the
regions (a `ge.fused` body as one kernel).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, Region
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import default_rule, stop_rule
from ge_dialect.ops.base import GEOperation, refines, same_shape_and_dtype
from ge_dialect.ops.structure import (
    ConstOp,
    DataOp,
    NetOutputOp,
    Structural,
    VariableOp,
    verify_graph_body,
)
from ge_dialect.traits import IsolatedFromAbove


def verify_subgraph(
    op: GEOperation, region: Region, num_outputs: int, what: str
) -> None:
    """`region` is a graph body returning one value per result of `op`."""
    verify_graph_body(region)
    terminator = region.block.last_op
    assert terminator is not None
    if len(terminator.operands) != num_outputs:
        raise VerifyException(
            f"{what} returns {len(terminator.operands)} values, expected {num_outputs}"
        )
    for index, (value, result) in enumerate(
        zip(terminator.operands, op.results, strict=False)
    ):
        if not same_shape_and_dtype(value.type, result.type):
            raise VerifyException(
                f"{what} output #{index} has type {value.type}, parent result has "
                f"{result.type}"
            )


class ControlFlowOp(GEOperation):
    """Base of ops whose regions are GE subgraphs run by the evaluator."""

    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect(), Structural())
    FORMAT_RULE = staticmethod(default_rule)

    def subgraphs(self) -> list[Region]:
        """The op's subgraph regions."""
        return list(self.regions)

    def subgraph_input_type(self, parent_index: int) -> Attribute:
        """The type of the subgraph `ge.data` mirroring operand `parent_index`."""
        return self.operands[parent_index].type


@irdl_op_definition
class IfOp(ControlFlowOp):
    """`then_branch` runs when `cond` is non-zero, else `else_branch`.

    Subgraph `ge.data` ops refer to parent operands by index (0 is `cond`).
    """

    name = "ge.if"

    cond = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    then_branch = region_def("single_block")
    else_branch = region_def("single_block")

    assembly_format = (
        "$cond (`,` $inputs^)? attr-dict `:` functional-type(operands, results) "
        "`then` $then_branch `else` $else_branch"
    )

    def verify_(self) -> None:
        for region, what in ((self.then_branch, "then"), (self.else_branch, "else")):
            verify_subgraph(self, region, len(self.outputs), f"{what} branch")


@irdl_op_definition
class CaseOp(ControlFlowOp):
    """Runs branch number `branch_index` (clamped to the last branch)."""

    name = "ge.case"

    branch_index = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    branches = var_region_def("single_block")

    assembly_format = (
        "$branch_index (`,` $inputs^)? attr-dict `:` "
        "functional-type(operands, results) $branches"
    )

    def verify_(self) -> None:
        if not self.branches:
            raise VerifyException("'ge.case' needs at least one branch")
        for index, region in enumerate(self.branches):
            verify_subgraph(self, region, len(self.outputs), f"branch #{index}")


@irdl_op_definition
class WhileOp(ControlFlowOp):
    """Loop: `cond` maps the loop variables to a boolean, `body` updates them.

    Operand i, result i, the `ge.data` with parent_index i in both regions and
    body output i are one loop variable, whose type is result i's. Operand i
    (its first value) may be more static: a dim the loop changes is unknown
    in the loop variable (TensorFlow's shape invariants), e.g. a buffer that
    grows by a row per iteration:

    ```mlir
    %r = ge.while %empty : (tensor<0x4xf32>) -> tensor<?x4xf32> cond {...} body {
      %b = ge.data {parent_index = 0 : i64} : tensor<?x4xf32>
      ...
    }
    ```
    """

    name = "ge.while"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    cond = region_def("single_block")
    body = region_def("single_block")

    assembly_format = (
        "$inputs attr-dict `:` functional-type(operands, results) "
        "`cond` $cond `body` $body"
    )

    def subgraph_input_type(self, parent_index: int) -> Attribute:
        """The loop variable's type: result `parent_index`'s."""
        return self.results[parent_index].type

    def verify_(self) -> None:
        if len(self.inputs) != len(self.outputs):
            raise VerifyException(
                f"'ge.while' has {len(self.inputs)} loop inputs but "
                f"{len(self.outputs)} results"
            )
        for index, (first, variable) in enumerate(
            zip(self.inputs, self.outputs, strict=True)
        ):
            if not refines(first.type, variable.type):
                raise VerifyException(
                    f"loop input #{index} of type {first.type} does not fit its "
                    f"loop variable of type {variable.type}"
                )
        verify_graph_body(self.cond)
        terminator = self.cond.block.last_op
        assert terminator is not None
        if len(terminator.operands) != 1:
            raise VerifyException("cond subgraph must return exactly one value")
        verify_subgraph(self, self.body, len(self.outputs), "body")


@irdl_op_definition
class PartitionedCallOp(ControlFlowOp):
    """Calls its single subgraph; `engine` names the engine that runs it."""

    name = "ge.partitioned_call"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    engine = opt_attr_def(StringAttr)
    f = region_def("single_block")

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results) $f"

    def verify_(self) -> None:
        verify_subgraph(self, self.f, len(self.outputs), "subgraph")


CONTROL_FLOW_OPS = (IfOp, CaseOp, WhileOp, PartitionedCallOp)


@irdl_op_definition
class FusedOp(GEOperation):
    """A group of AI Core ops computed as one kernel (one pass over memory).

    The body is a `ge` subgraph, as in `ge.partitioned_call`: `ge.data`
    with `parent_index = i` is operand i, `ge.netoutput` operand j is result
    j. `fusion_rule` names the fusion rule that formed the group. It is not
    control flow: the group's ops run as one AI Core op.

    ```mlir
    %y = ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
      %0 = ge.data {parent_index = 0 : i64} : tensor<1x3x8x8xf32>
      %1 = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32>
      %2 = ge.conv2d %0, %1 {data_format = "NCHW"} : (...) -> tensor<1x4x6x6xf32>
      %3 = ge.relu %2 : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
      ge.netoutput %3 : tensor<1x4x6x6xf32>
    }
    ```
    """

    name = "ge.fused"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    fusion_rule = attr_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), Pure(), Structural())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results) $body"

    def verify_(self) -> None:
        verify_subgraph(self, self.body, len(self.outputs), "fused body")
        inner = [
            op for op in self.body.block.ops if not isinstance(op, DataOp | NetOutputOp)
        ]
        if not inner:
            raise VerifyException("fused body has no op to compute")
        for op in inner:
            if op.regions or isinstance(op, ConstOp | VariableOp):
                raise VerifyException(
                    f"fused body cannot hold '{op.name}' (only compute ops; "
                    "constants are operands)"
                )


SUBGRAPH_OPS = (*CONTROL_FLOW_OPS, FusedOp)
"""Every op with subgraph regions."""
