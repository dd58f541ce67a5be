"""The layout a value's data is held in at run time, read from its type
(`relayout.ValueLayout`: its formats, dtype, reshape type and groups, and
the conversions between origin and storage arrays)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, reshape_type_of
from ge_dialect.ops import TransDataOp
from ge_dialect.relayout import ValueLayout

GROUPED_STORAGE = (Format.FRACTAL_Z, Format.FRACTAL_Z_3D)
"""Storage formats whose layout depends on convolution groups."""


def value_layout(value: SSAValue, target: str | None = None) -> ValueLayout:
    """The layout a value is held in, from its type.

    Groups are not part of a type: a FRACTAL_Z(_3D) value takes the `groups`
    of the `ge.transdata` that produces or consumes it.
    """
    tensor = value.type
    assert isinstance(tensor, TensorType)
    origin, storage = layout_of(tensor)
    groups = 1
    if storage in GROUPED_STORAGE:
        users = (use.operation for use in value.uses)
        for op in (value.owner, *users):
            if isinstance(op, TransDataOp):
                groups = op.value_of("groups")
                break
    return ValueLayout(
        origin,
        storage,
        dtype_name(tensor.element_type),
        reshape_type_of(tensor),
        groups,
        target,
    )
