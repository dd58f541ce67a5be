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
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """`arith.remf`: the float remainder with the dividend's sign (C `fmod`).

    Upstream MLIR's op, which xDSL's arith dialect does not define; loop
    contexts that parse lowered IR load it (`ge_runtime.jit.loop_context`).
    """

    name = "arith.remf"

    traits = traits_def(Pure())


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


def is_integer(type_: Attribute) -> bool:
    """Whether `type_` is an integer type other than `i1`."""
    return isinstance(type_, IntegerType) and type_.width.data > 1


def is_unsigned(type_: Attribute) -> bool:
    """Whether `type_` is an unsigned integer type (`ui8`, ...)."""
    return is_integer(type_) and type_.signedness.data == Signedness.UNSIGNED


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


def sigmoid(b: ScalarBuilder, x: Any) -> Any:
    """`1 / (1 + exp(-x))`."""
    one = b.const(1.0, x.type)
    return b.op(
        arith.DivfOp,
        one,
        b.op(arith.AddfOp, one, b.op(math.ExpOp, b.op(arith.NegfOp, x))),
    )


def softplus(b: ScalarBuilder, x: Any) -> Any:
    """`max(x, 0) + log1p(exp(-|x|))`, which cannot overflow."""
    tail = b.op(
        math.Log1pOp, b.op(math.ExpOp, b.op(arith.NegfOp, b.op(math.AbsFOp, x)))
    )
    return b.op(arith.AddfOp, b.op(arith.MaximumfOp, x, b.const(0.0, x.type)), tail)


def clamp(b: ScalarBuilder, x: Any, low: float, high: float) -> Any:
    """`min(max(x, low), high)`, skipping infinite bounds."""
    if low != float("-inf"):
        x = b.op(arith.MaximumfOp, x, b.const(low, x.type))
    if high != float("inf"):
        x = b.op(arith.MinimumfOp, x, b.const(high, x.type))
    return x


def floored_remainder(b: ScalarBuilder, remainder: Any, divisor: Any) -> Any:
    """A truncated remainder (dividend's sign) made floored (divisor's sign):
    `r + d` where r is nonzero and its sign differs from d's. A float zero
    takes the divisor's sign, as NumPy's `mod` gives."""
    if is_float(remainder.type):
        zero = b.const(0.0, remainder.type)
        nonzero = b.op(arith.CmpfOp, remainder, zero, "one")
        differ = b.op(
            arith.XOrIOp,
            b.op(arith.CmpfOp, remainder, zero, "olt"),
            b.op(arith.CmpfOp, divisor, zero, "olt"),
        )
        shifted = b.op(arith.AddfOp, remainder, divisor)
        signed_zero = b.op(math.CopySignOp, zero, divisor)
        exact = b.op(arith.CmpfOp, remainder, zero, "oeq")
        fixed = b.op(
            arith.SelectOp, b.op(arith.AndIOp, nonzero, differ), shifted, remainder
        )
        return b.op(arith.SelectOp, exact, signed_zero, fixed)
    zero = b.const(0, remainder.type)
    nonzero = b.op(arith.CmpiOp, remainder, zero, "ne")
    differ = b.op(
        arith.XOrIOp,
        b.op(arith.CmpiOp, remainder, zero, "slt"),
        b.op(arith.CmpiOp, divisor, zero, "slt"),
    )
    shifted = b.op(arith.AddiOp, remainder, divisor)
    return b.op(arith.SelectOp, b.op(arith.AndIOp, nonzero, differ), shifted, remainder)


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
    unsigned = is_bool(a.type) or is_unsigned(a.type)
    if unsigned and predicate.startswith("s"):  # i1: true is 1, above false
        predicate = "u" + predicate[1:]
    return b.op(arith.CmpiOp, a, c, predicate)


def truth(b: ScalarBuilder, x: Any) -> Any:
    """`x != 0` as an i1 (NaN is true), `x` itself when it is already i1."""
    if is_bool(x.type):
        return x
    return compare(b, "ne", x, b.const(0.0 if is_float(x.type) else 0, x.type))
