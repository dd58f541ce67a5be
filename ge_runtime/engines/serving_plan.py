"""The plan of a model sunk whole into one compiled part: what `ge-atc`
records in an offline model's manifest (`plan`, `om.PLAN_SCHEMA`) so that
`engines.served` runs it without parsing its IR.

The plan names the code cache key of the compiled function, which graph
input each argument is and in what layout, the weights it reads (by key,
in argument order), and per graph output the result, origin shape and
layout; and its largest tensor, checked against the memory budget before
anything is allocated (as `check_claimed_memory` checks the IR).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ge_dialect.limits import static_bytes
from ge_dialect.naming import node_label
from ge_dialect.ops import DataOp, PartitionedCallOp
from ge_dialect.structured_io import STRUCTURED_INPUTS, STRUCTURED_OUTPUTS
from ge_dialect.value_layout import value_layout
from ge_runtime.jit.compiler import entry_key
from passes.lowering.convert_ge_to_loops import graph_constants, weight_key

if TYPE_CHECKING:
    from ge_runtime.engines.scheduler import CompiledModel


def serving_plan(model: CompiledModel) -> dict[str, Any] | None:
    """The plan of a model sunk whole into one compiled part whose code is
    kept in the code cache (None: any other schedule: host-scheduled, split
    around fallback ops, several streams, run in the reference evaluator,
    an output that is not a result of the part, inputs or outputs that are
    sequences or optionals)."""
    if model.mode != "sink" or len(model.parts) != 1:
        return None
    (part,) = model.parts
    if part.compiled is None or part.cache_key is None or part.stream_count > 1:
        return None
    target = model.evaluator.target
    graph = model.graph
    if any(key in graph.attributes for key in (STRUCTURED_INPUTS, STRUCTURED_OUTPUTS)):
        return None  # sequences and optionals: their files are read with the IR
    block_ops = list(graph.body.block.ops)
    if any(not isinstance(op, DataOp | PartitionedCallOp) for op in block_ops[:-1]):
        return None
    call = part.call
    operand_inputs = []
    for operand in call.operands:
        if not isinstance(operand.owner, DataOp):
            return None
        operand_inputs.append(operand.owner.index_value)
    outputs = []
    results = part.graph.output.operands
    for value in graph.output.operands:
        if value.owner is not call:
            return None
        result = results[value.index]  # type: ignore[attr-defined]
        outputs.append(
            {
                "result": value.index,  # type: ignore[attr-defined]
                "shape": list(result.type.get_shape()),  # type: ignore[attr-defined]
                "layout": value_layout(result, target).to_json(),
            }
        )
    claims = [
        (nbytes, op)
        for op in part.graph.walk()
        for result in op.results
        if (nbytes := static_bytes(result.type)) is not None
    ]
    largest, owner = max(claims, key=lambda claim: claim[0], default=(0, None))
    return {
        "entry": entry_key(part.graph, target, part.cache_key),
        "largest": {
            "bytes": largest,
            "node": "" if owner is None else node_label(owner),
        },
        "arguments": [
            {
                "input": operand_inputs[data.index_value],
                "layout": value_layout(data.output, target).to_json(),
            }
            for data in part.graph.inputs()
        ],
        "weights": [
            key
            for op in graph_constants(part.graph)
            if (key := weight_key(op)) is not None
        ],
        "outputs": outputs,
    }
