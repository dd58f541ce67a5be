"""The op families whose ops take their parameters as attributes: every
family but `dynamic_attrs`, whose `ge.dynamic_attrs` wraps one of their ops.

`ge_dialect.ops` collects these families and `dynamic_attrs` into the dialect.
"""

from __future__ import annotations

from types import ModuleType

from xdsl.irdl import IRDLOperation

from ge_dialect.ops import (
    blocks,
    control_flow,
    cumulative,
    decode,
    detection,
    einsum,
    elementwise,
    image,
    logic,
    matmul,
    ml,
    movement,
    nn,
    reduce,
    scatter,
    shape_of,
    signal,
    sorting,
    stochastic,
    strings,
    structure,
    trans,
    value_shaped,
    volume,
)

STATIC_FAMILIES: tuple[ModuleType, ...] = (
    structure,
    control_flow,
    trans,
    elementwise,
    logic,
    nn,
    volume,
    matmul,
    einsum,
    movement,
    image,
    blocks,
    reduce,
    cumulative,
    scatter,
    signal,
    sorting,
    detection,
    stochastic,
    shape_of,
    value_shaped,
    ml,
    strings,
    decode,
)
"""The op family modules but `dynamic_attrs`, in the order the dialect
registers their ops."""


def ops_of(module: ModuleType) -> list[type[IRDLOperation]]:
    """The op classes an op family module defines."""
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, IRDLOperation)
        and value.__module__ == module.__name__
        and "name" in vars(value)
    ]


STATIC_OPS_BY_NAME: dict[str, type[IRDLOperation]] = {
    op.name: op for family in STATIC_FAMILIES for op in ops_of(family)
}
"""Op name -> op class, for the ops of `STATIC_FAMILIES`."""
