"""Scalar bodies of elementwise ops, built from xDSL's `arith` and `math` ops.

An `Elementwise` op says how one result element is computed with a method
`scalar(self, b, *values)`: `values` are the operand elements (16-bit floats
arrive widened to float32), `b` builds ops. The loop lowering calls it inside
its loop nest and fused groups call it in their epilogues, so an elementwise
op needs no lowering code of its own:

```python
def scalar(self, b: ScalarBuilder, x: Any) -> Any:      # ge.relu
    return b.op(arith.MaximumfOp, x, b.const(0.0, x.type))
```

A body returns None when it has no computation for the element type (the
lowering then reports the op as not lowerable for that type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness
from xdsl.ir import Attribute, Operation


class ScalarBuilder(Protocol):
    """What a scalar body may call (the lowering's loop nest implements it)."""

    def op(self, op_class: Callable[..., Operation], *args: Any) -> Any:
        """Apply an `arith`/`math` op class to operands (and attributes such as
        a comparison predicate)."""
        ...

    def const(self, value: float | int, type_: Attribute) -> Any:
        """A constant of type `type_`."""
        ...

    def convert(self, value: Any, to: Attribute) -> Any:
        """`value` converted to type `to`."""
        ...


def is_float(type_: Attribute) -> bool:
    """Whether `type_` is a floating-point type."""
    return isinstance(type_, AnyFloat)


def is_bool(type_: Attribute) -> bool:
    """Whether `type_` is `i1`."""
    return isinstance(type_, IntegerType) and type_.width.data == 1


def select_by(
    b: ScalarBuilder, predicate: str, x: Any, bound: float, a: Any, c: Any
) -> Any:
    """`a if x <predicate> bound else c` (an ordered float comparison)."""
    cond = b.op(arith.CmpfOp, x, b.const(bound, x.type), predicate)
    return b.op(arith.SelectOp, cond, a, c)


def elu(b: ScalarBuilder, x: Any, alpha: float) -> Any:
    """`x if x > 0 else alpha * (exp(x) - 1)`."""
    negative = b.op(math.ExpM1Op, b.op(arith.MinimumfOp, x, b.const(0.0, x.type)))
    scaled = b.op(arith.MulfOp, negative, b.const(alpha, x.type))
    return select_by(b, "ogt", x, 0.0, x, scaled)


def clamp(b: ScalarBuilder, x: Any, low: float, high: float) -> Any:
    """`min(max(x, low), high)`, skipping infinite bounds."""
    if low != float("-inf"):
        x = b.op(arith.MaximumfOp, x, b.const(low, x.type))
    if high != float("inf"):
        x = b.op(arith.MinimumfOp, x, b.const(high, x.type))
    return x


FLOAT_PREDICATES = {
    "eq": "oeq",
    "ne": "une",
    "lt": "olt",
    "le": "ole",
    "gt": "ogt",
    "ge": "oge",
}
"""Comparison kind -> `arith.cmpf` predicate: NaN compares false, except `!=`."""

SIGNED_PREDICATES = {
    "eq": "eq",
    "ne": "ne",
    "lt": "slt",
    "le": "sle",
    "gt": "sgt",
    "ge": "sge",
}
"""Comparison kind -> `arith.cmpi` predicate on signed integers."""


def compare(b: ScalarBuilder, kind: str, a: Any, c: Any) -> Any:
    """`a <kind> c` as an i1 (`kind`: eq, ne, lt, le, gt, ge), NumPy's semantics."""
    if is_float(a.type):
        return b.op(arith.CmpfOp, a, c, FLOAT_PREDICATES[kind])
    predicate = SIGNED_PREDICATES[kind]
    unsigned = is_bool(a.type) or a.type.signedness.data == Signedness.UNSIGNED
    if unsigned and predicate.startswith("s"):  # i1: true is 1, above false
        predicate = "u" + predicate[1:]
    return b.op(arith.CmpiOp, a, c, predicate)


def truth(b: ScalarBuilder, x: Any) -> Any:
    """`x != 0` as an i1 (NaN is true), `x` itself when it is already i1."""
    if is_bool(x.type):
        return x
    return compare(b, "ne", x, b.const(0.0 if is_float(x.type) else 0, x.type))
