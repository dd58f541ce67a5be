"""Moving ops into and out of subgraph regions."""

from __future__ import annotations

from xdsl.ir import Block

from ge_dialect.ops import CONTROL_FLOW_OPS, DataOp, NetOutputOp, PartitionedCallOp


def inline_partitioned_calls(block: Block) -> None:
    """Replace every `ge.partitioned_call` of `block` by its ops, nested ones
    too (in calls and in the subgraphs of control flow)."""
    for op in list(block.ops):
        if isinstance(op, CONTROL_FLOW_OPS) and not isinstance(op, PartitionedCallOp):
            for region in op.regions:
                inline_partitioned_calls(region.block)
        if not isinstance(op, PartitionedCallOp):
            continue
        body = op.f.block
        inline_partitioned_calls(body)
        terminator = body.last_op
        assert isinstance(terminator, NetOutputOp)
        for inner in list(body.ops):
            if isinstance(inner, DataOp):
                inner.output.replace_all_uses_with(op.operands[inner.index_value])
                body.erase_op(inner)
        for result, value in zip(op.results, terminator.operands, strict=True):
            result.replace_all_uses_with(value)
        body.erase_op(terminator)
        for inner in list(body.ops):
            inner.detach()
            block.insert_op_before(inner, op)
        block.erase_op(op)
