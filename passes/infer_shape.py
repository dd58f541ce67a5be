"""`infer-shape`: recompute every result shape and dtype in its origin context.

Each op's result types come from the shape function it declares (run by
`ge_dialect/shape_inference.py`); layouts (`#ge.layout`) are kept. A dim the
function cannot know (-1) keeps a known declared size; anything else the
function says wins, as in GE's InferShape:

```mlir
%y = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>}
   : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
// after: -> tensor<1x4x8x8xf32>
```

Subgraph `ge.data` take their parent operand's shape and dtype (a
`ge.while`'s: its loop variable's); `ge.if`/`ge.case` results merge their
branches' outputs and a `ge.while`'s loop variables merge each loop input
with the body's output, to a fixed point (dims that differ become unknown).
Invalid inputs (a conv whose channels do not match its filter, shapes that do
not broadcast, ...) are reported at the op. Ops without a shape function keep
their declared types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.layout import check_tensor_type, shape_of
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    DataOp,
    GraphOp,
    NetOutputOp,
    WhileOp,
)
from ge_dialect.shape_inference import (
    UNKNOWN,
    ShapeError,
    has_shape_function,
    infer_shapes,
    shape_function_attributes,
)


@dataclass(frozen=True)
class InferShapePass(ModulePass):
    """Infer result shapes and dtypes from each op's shape function."""

    name = "infer-shape"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                _infer_block(graph.body.block)


def _infer_block(block: Block) -> None:
    for op in block.ops:
        if isinstance(op, DataOp):
            _infer_subgraph_input(op)
        elif op.regions:  # if/case/while/partitioned_call, and fused groups
            _infer_control_flow(op)
        elif has_shape_function(op):
            _infer_op(op)


def _infer_op(op: Operation) -> None:
    """Run the op's shape function and update its result types."""
    shapes = [_shape(v) for v in op.operands]
    dtypes = [dtype_name(_tensor(v).element_type) for v in op.operands]
    attributes = shape_function_attributes(op)
    try:
        results = infer_shapes(op, shapes, dtypes, attributes)
    except ShapeError as error:
        raise error_at(op, str(error)) from None
    if len(results) != len(op.results):
        raise error_at(
            op,
            f"has {len(op.results)} results, its shape function gives {len(results)}",
        )
    for index, (shape, dtype) in enumerate(results):
        _retype(op, index, shape, dtype)


def _infer_subgraph_input(op: DataOp) -> None:
    """A subgraph `ge.data` mirrors its parent operand's shape and dtype."""
    parent = op.parent_op()
    if isinstance(parent, GraphOp) or parent is None:
        return
    source = _tensor(
        parent.results[op.index_value]
        if isinstance(parent, WhileOp)
        else parent.operands[op.index_value]
    )
    _retype(op, 0, shape_of(source), dtype_name(source.element_type), refine=False)


def _infer_control_flow(op: Operation) -> None:
    """Infer the subgraphs, then the results from their outputs.

    A branch op's result j merges output j of every branch; a loop's result
    i merges loop input i with body output i.
    """
    if isinstance(op, WhileOp):
        _infer_while(op)
        return
    for region in op.regions:
        _infer_block(region.block)
    outputs = [_outputs(region.block) for region in op.regions]
    for index in range(len(op.results)):
        types = [branch[index] for branch in outputs]
        merged = _merge(op, index, types)
        _retype(op, index, merged, dtype_name(types[0].element_type))


def _infer_while(op: WhileOp) -> None:
    """The loop variables' types to a fixed point: from the loop inputs' types,
    each merges itself with the body's output inferred from them (a dim that
    changes becomes unknown; each round makes a dim unknown or stops). Each
    round infers the regions from their declared types again, so that a dim
    the previous round knew is not kept where it is no longer known."""
    declared = [
        (inner, index, result.type)
        for region in op.regions
        for inner in region.walk()
        for index, result in enumerate(inner.results)
    ]
    for index, first in enumerate(op.inputs):
        source = _tensor(first)
        _retype(
            op, index, shape_of(source), dtype_name(source.element_type), refine=False
        )
    while True:
        before = [result.type for result in op.results]
        for region in op.regions:
            _infer_block(region.block)
        body = _outputs(op.body.block)
        for index, first in enumerate(op.inputs):
            types = [_tensor(first), _tensor(op.results[index]), body[index]]
            merged = _merge(op, index, types)
            _retype(op, index, merged, dtype_name(types[0].element_type), refine=False)
        if [result.type for result in op.results] == before:
            return
        for inner, index, tensor in declared:
            if inner.results[index].type != tensor:
                Rewriter.replace_value_with_new_type(inner.results[index], tensor)


def _outputs(block: Block) -> list[TensorType]:
    terminator = block.last_op
    assert isinstance(terminator, NetOutputOp)
    return [_tensor(v) for v in terminator.operands]


def _merge(op: Operation, index: int, types: Sequence[TensorType]) -> tuple[int, ...]:
    """The shape all `types` agree on; dims that differ become unknown."""
    shapes = [shape_of(t) for t in types]
    dtypes = {t.element_type for t in types}
    if len({len(s) for s in shapes}) > 1 or len(dtypes) > 1:
        listed = ", ".join(str(t) for t in types)
        raise error_at(op, f"subgraphs disagree on output #{index}: {listed}")
    return tuple(
        dims[0] if len(set(dims)) == 1 else UNKNOWN
        for dims in zip(*shapes, strict=True)
    )


def _retype(
    op: Operation,
    index: int,
    shape: Sequence[int],
    dtype: str,
    *,
    refine: bool = True,
) -> None:
    """Give result `index` the shape and dtype, keeping its layout.

    With `refine`, an unknown inferred dim keeps a known declared one.
    """
    value = op.results[index]
    declared = _tensor(value)
    old_shape = shape_of(declared)
    new_shape = tuple(shape)
    if refine and len(new_shape) == len(old_shape):
        new_shape = tuple(
            old if new == UNKNOWN else new
            for new, old in zip(new_shape, old_shape, strict=True)
        )
    new_element = declared.element_type
    if dtype != dtype_name(new_element):
        new_element = element_type(dtype)
    if new_shape == old_shape and new_element == declared.element_type:
        return
    dims = [DYNAMIC_INDEX if d == UNKNOWN else d for d in new_shape]
    new_type = TensorType(new_element, dims, declared.encoding)
    try:
        check_tensor_type(new_type)
    except VerifyException as error:
        raise error_at(
            op,
            f"result #{index}: inferred type {new_type} does not fit its "
            f"layout: {error}",
        ) from None
    Rewriter.replace_value_with_new_type(value, new_type)


def _tensor(value: SSAValue) -> TensorType:
    tensor: Attribute = value.type
    assert isinstance(tensor, TensorType)
    return tensor


def _shape(value: SSAValue) -> tuple[int, ...]:
    return shape_of(_tensor(value))
