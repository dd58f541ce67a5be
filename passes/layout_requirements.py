"""Consumer-side layout requirements shared by the running-format passes.

`refine-running-format` and `select-storage-format` record on each consumer
the `#ge.layout` every operand must have (`input_layouts`, and `input_dtypes`
for AI CPU casts); `insert-transdata` materialises them as `ge.transdata` /
`ge.cast` ops (`transdata_op`, `cast_op`, in GE's order `cast_first`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from ge_dialect.attributes import FormatAttr, LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import layout_attr, origin_layout, retyped, satisfies
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    CONTROL_FLOW_OPS,
    CastOp,
    ConstOp,
    DataOp,
    GraphOp,
    NetOutputOp,
    TransDataOp,
    WhileOp,
)

INPUT_LAYOUTS = "input_layouts"
"""Consumer attribute: the `#ge.layout` each operand must have."""


INPUT_DTYPES = "input_dtypes"
"""Consumer attribute: the element type each operand must have."""


def required_layouts(op: Operation) -> list[LayoutAttr] | None:
    """The `input_layouts` of a consumer, if it has them."""
    attr = op.attributes.get(INPUT_LAYOUTS)
    if attr is None:
        return None
    if not isinstance(attr, ArrayAttr) or len(attr.data) != len(op.operands):
        raise error_at(
            op,
            f"'{INPUT_LAYOUTS}' needs one #ge.layout per operand ({len(op.operands)})",
        )
    if not all(isinstance(a, LayoutAttr) for a in attr.data):
        raise error_at(op, f"'{INPUT_LAYOUTS}' entries must be #ge.layout")
    return list(attr.data)


def set_required_layouts(op: Operation, layouts: Sequence[LayoutAttr]) -> bool:
    """Record what `op` needs; only if an operand differs. True if `op` changed."""
    mismatch = any(
        not satisfies(value.type, layout)
        for value, layout in zip(op.operands, layouts, strict=True)
    )
    old = op.attributes.get(INPUT_LAYOUTS)
    new = ArrayAttr(layouts) if mismatch else None
    if old == new:
        return False
    if new is None:
        del op.attributes[INPUT_LAYOUTS]
    else:
        op.attributes[INPUT_LAYOUTS] = new
    return True


def keep_consumer_layouts(value: SSAValue, layout: LayoutAttr) -> None:
    """After `value` was retyped: its consumers without requirements still
    need `layout`, its previous layout (GE changes only the producer's end)."""
    for use in list(value.uses):
        user = use.operation
        if required_layouts(user) is None:
            layouts = [layout_attr(v.type) for v in user.operands]
            layouts[use.index] = layout
            set_required_layouts(user, layouts)


def boundary_layouts(op: Operation) -> list[LayoutAttr]:
    """What an op without format choices needs (graph boundaries and the like).

    - a root `ge.netoutput`: the origin layout, or the user's
      `storage_formats` entry when it is not ND (the graph interface);
    - a subgraph `ge.netoutput`: the layout of the parent's result (a
      `ge.while` condition's: origin, it is no loop variable);
    - a control-flow op: the layout of the subgraph `ge.data` mirroring each
      operand (the first subgraph that has one), else origin;
    - a `ge.transdata`: its `src_format`;
    - anything else: origin.
    """
    operands = [value.type for value in op.operands]
    if isinstance(op, NetOutputOp):
        parent = op.parent_op()
        if isinstance(parent, WhileOp) and op.parent_region() is parent.cond:
            return [origin_layout(t) for t in operands]
        if parent is not None and not isinstance(parent, GraphOp):
            return [layout_attr(r.type) for r in parent.results]
        requested = op.storage_formats.data if op.storage_formats else ()
        return [
            origin_layout(t)
            if i >= len(requested) or requested[i].data == Format.ND
            else LayoutAttr(layout_attr(t).origin_format, requested[i].data)
            for i, t in enumerate(operands)
        ]
    if isinstance(op, CONTROL_FLOW_OPS):
        mirrors: dict[int, LayoutAttr] = {}
        for region in reversed(op.regions):
            for inner in region.block.ops:
                if isinstance(inner, DataOp) and inner.parent_index is not None:
                    mirrors[inner.index_value] = layout_attr(inner.output.type)
        return [mirrors.get(i, origin_layout(t)) for i, t in enumerate(operands)]
    if isinstance(op, TransDataOp):
        have = layout_attr(operands[0])
        if have.storage_format == op.src_format.data:
            return [have]
        return [LayoutAttr(have.origin_format, op.src_format.data)]
    return [origin_layout(t) for t in operands]


def origin_matches(value: SSAValue, layout: LayoutAttr) -> bool:
    """Whether `value` can be converted to `layout`: same origin format, or an
    ND constant (folded, so it may take its consumer's origin format)."""
    have = layout_attr(value.type).origin_format
    return have == layout.origin_format or (
        have is Format.ND and isinstance(value.owner, ConstOp)
    )


def cast_first(source: Attribute, target: Attribute) -> bool:
    """GE's order: Cast before TransData iff the source is not fp16 and the
    target is (so the TransData moves the narrower data)."""
    return dtype_name(source) != "float16" and dtype_name(target) == "float16"


def transdata_op(value: SSAValue, layout: LayoutAttr) -> TransDataOp:
    """`ge.transdata` of `value` to `layout`."""
    src = layout_attr(value.type).storage_format
    return TransDataOp.create(
        operands=[value],
        result_types=[retyped(value.type, layout)],
        attributes={
            "src_format": FormatAttr(src),
            "dst_format": FormatAttr(layout.storage_format),
        },
    )


def cast_op(value: SSAValue, element: Attribute) -> CastOp:
    """`ge.cast` of `value` to element type `element`, keeping its layout."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    result = TensorType(element, tensor.get_shape(), tensor.encoding)
    return CastOp.create(
        operands=[value], result_types=[result], attributes={"dst_type": element}
    )
