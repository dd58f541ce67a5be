"""The generic lowering of `Elementwise` ops, and of `ge.cast`.

An elementwise op declares where each operand is read (`operand_axes`) and
how one element is computed (`scalar`, see `ge_dialect.scalar`); this module
turns that into a loop nest over the result's origin index. Operands are read
through their own layouts, so a `[C, 1, 1]` bias stored as NC1HWC0 broadcasts
onto an NC1HWC0 activation with plain affine loads. Only valid (non-padding)
elements are computed; the result's padding stays zero from its allocation.

```mlir
%y = ge.relu %x : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> ...
// becomes (17 = 16 + 1 channels: a full C1 block and a tail)
affine.for %c1 = 0 to 1 { ... affine.load %x[0, %c1, %h, %w, %c0] ... }
affine.for ... { ... affine.load %x[0, 1, %h, %w, 0] ... }
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, Operation

from ge_dialect.ops import BitcastOp, CastOp
from ge_dialect.scalar import is_bool, is_float, is_unsigned
from ge_dialect.traits import Elementwise
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value
from passes.lowering.index import Ix
from passes.lowering.registry import lowers


def has_scalar_body(op: Operation) -> bool:
    """Whether `op` is elementwise with a scalar body (lowers generically)."""
    return op.has_trait(Elementwise) and hasattr(op, "scalar")


def no_body_reason(op: Operation, element: Attribute) -> str | None:
    """Why `op`'s scalar body has no computation for `element`, if the op
    says (`NO_SCALAR_BODY`: dtype kind "i", "u", "f" or "bool" -> reason)."""
    if is_bool(element):
        kind = "bool"
    elif is_float(element):
        kind = "f"
    else:
        kind = "u" if is_unsigned(element) else "i"
    return getattr(op, "NO_SCALAR_BODY", {}).get(kind)


def operand_index(op: Operation, position: int, index: Sequence[Ix]) -> list[Ix]:
    """Where operand `position` of elementwise `op` is read for result `index`."""
    return [
        Ix.of(0) if axis is None else index[axis]
        for axis in op.operand_axes(position)  # type: ignore[attr-defined]
    ]


def element_value(op: Operation, nest: Nest, operands: Sequence[Value]) -> Value | None:
    """The op's scalar body on operand elements (None: not for these types)."""
    return op.scalar(nest, *operands)  # type: ignore[attr-defined]


def lower_elementwise(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = scalar(x1[map1(i)], x2[map2(i)], ...)` over the valid elements."""
    inputs = ctx.operands()
    y = ctx.result()
    probe = Nest(ctx.emitter, None)
    loads = [probe.load(x, [Ix.of(0)] * len(x.layout.origin_shape)) for x in inputs]
    if element_value(op, probe, loads) is None:
        types = ", ".join(sorted({str(x.layout.element_type) for x in inputs}))
        reason = no_body_reason(op, inputs[-1].layout.element_type)
        detail = f" ({reason})" if reason else ""
        raise ctx.error(f"has no loop lowering for element type {types}{detail}")

    def body(nest: Nest, index: list[Ix]) -> None:
        values = [
            nest.load(x, operand_index(op, k, index)) for k, x in enumerate(inputs)
        ]
        nest.store(element_value(op, nest, values), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


@lowers(BitcastOp)
def lower_bitcast(ctx: LoweringContext, op: Operation) -> None:
    """The bits of each element as the result's type: an `arith.bitcast`
    between a float and the signless integer of its width; between integers
    the store converts bit for bit (a bool byte to uint8: 0 or 1)."""
    (x,) = ctx.operands()
    y = ctx.result()
    target = y.layout.element_type

    def body(nest: Nest, index: list[Ix]) -> None:
        value = nest.load(x, index, raw=True)
        if is_float(value.type) and not is_float(target):
            signless = IntegerType(value.type.bitwidth)  # type: ignore[union-attr]
            value = nest.op(arith.BitcastOp, value, signless)
        elif is_float(target) and not is_float(value.type):
            signless = IntegerType(target.bitwidth)  # type: ignore[union-attr]
            value = nest.op(arith.BitcastOp, nest.convert(value, signless), target)
        nest.store(value, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


@lowers(CastOp)
def lower_cast(ctx: LoweringContext, op: Operation) -> None:
    """Element type conversion (C0 may change with the dtype); the op says
    what happens to an element before the store converts it
    (`CastOp.convert_element`: saturation, float8_e8m0fnu's rounding)."""
    assert isinstance(op, CastOp)
    (x,) = ctx.operands()
    y = ctx.result()

    def body(nest: Nest, index: list[Ix]) -> None:
        value = op.convert_element(nest, nest.load(x, index, raw=True))
        nest.store(value, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)
