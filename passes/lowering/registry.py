"""Which function lowers an op: emitters register by op class.

A lowering takes the `LoweringContext` (positioned at the op) and the op, and
defines buffers for the op's results. Each family module of this package
registers its emitters with `@lowers(OpClass, ...)`; a registration for a
base class covers its subclasses. `Elementwise` ops with a scalar body
(`scalar(self, b, *values)`) need no registration: the generic elementwise
lowering builds their loop nest (`passes.lowering.elementwise`). Reducing ops
that can head a fused group register their `Reduction` with `@heads_groups`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from passes.lowering.context import LoweringContext

Lowering = Callable[[LoweringContext, Operation], None]

ReductionOf = Callable[[LoweringContext, Any], Any]
"""(context, result layout) -> the op's `nn.Reduction`."""

LOWERINGS: dict[type[Operation], Lowering] = {}
"""Op class -> its emitter (registered by the family modules)."""


def lowers(*op_classes: type[Operation]) -> Callable[[Lowering], Lowering]:
    """Decorator registering an emitter for `op_classes` (and subclasses)."""

    def register(lowering: Lowering) -> Lowering:
        for op_class in op_classes:
            LOWERINGS[op_class] = lowering
        return lowering

    return register


def registered_lowering(op_class: type[Operation]) -> Lowering | None:
    """The emitter registered for `op_class` or its nearest base class."""
    for base in op_class.__mro__:
        if base in LOWERINGS:
            return LOWERINGS[base]
    return None


REDUCTIONS: dict[type[Operation], ReductionOf] = {}
"""Op class -> the reduction of an op that can head a group."""


def heads_groups(*op_classes: type[Operation]) -> Callable[[ReductionOf], ReductionOf]:
    """Decorator registering the `Reduction` of ops that can head a fused group."""

    def register(reduction: ReductionOf) -> ReductionOf:
        REDUCTIONS.update(dict.fromkeys(op_classes, reduction))
        return reduction

    return register


def group_reduction(op: Operation) -> ReductionOf | None:
    """The registered reduction of `op`'s class (or a base class), if any."""
    return next((REDUCTIONS[c] for c in type(op).__mro__ if c in REDUCTIONS), None)
