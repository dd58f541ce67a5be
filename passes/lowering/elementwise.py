"""Lowerings of elementwise ops: unary, binary with broadcasting, add_n,
bias_add, batch_norm and cast.

Each iterates the result's origin index; operands are read through their
own layouts, so a `[C, 1, 1]` bias stored as NC1HWC0 broadcasts onto an
NC1HWC0 activation with plain affine loads. Only valid (non-padding)
elements are computed; the result's padding stays zero from its allocation.

```mlir
%y = ge.relu %x : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> ...
// becomes (17 = 16 + 1 channels: a full C1 block and a tail)
affine.for %c1 = 0 to 1 { ... affine.load %x[0, %c1, %h, %w, %c0] ... }
affine.for ... { ... affine.load %x[0, 1, %h, %w, 0] ... }
```
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from passes.lowering.context import LoweringContext, broadcast_index
from passes.lowering.emitter import Nest, Value, is_float
from passes.lowering.index import Ix

UnaryFn = Callable[[Nest, Value, LoweringContext], Value]
BinaryFn = Callable[[Nest, Value, Value], Value]


def _select(nest: Nest, predicate: str, x: Value, bound: float, a: Value, b: Value):
    """`a if x <predicate> bound else b`."""
    cond = nest.op(arith.CmpfOp, x, nest.const(bound, x.type), predicate)
    return nest.op(arith.SelectOp, cond, a, b)


def _elu(nest: Nest, x: Value, alpha: float) -> Value:
    negative = nest.op(
        math.ExpM1Op, nest.op(arith.MinimumfOp, x, nest.const(0.0, x.type))
    )
    scaled = nest.op(arith.MulfOp, negative, nest.const(alpha, x.type))
    return _select(nest, "ogt", x, 0.0, x, scaled)


def _sigmoid(nest: Nest, x: Value, ctx: LoweringContext) -> Value:
    one = nest.const(1.0, x.type)
    denominator = nest.op(
        arith.AddfOp, one, nest.op(math.ExpOp, nest.op(arith.NegfOp, x))
    )
    return nest.op(arith.DivfOp, one, denominator)


def _softplus(nest: Nest, x: Value, ctx: LoweringContext) -> Value:
    """max(x, 0) + log1p(exp(-|x|)), which cannot overflow."""
    tail = nest.op(
        math.Log1pOp,
        nest.op(math.ExpOp, nest.op(arith.NegfOp, nest.op(math.AbsFOp, x))),
    )
    return nest.op(
        arith.AddfOp, nest.op(arith.MaximumfOp, x, nest.const(0.0, x.type)), tail
    )


def _clip(nest: Nest, x: Value, ctx: LoweringContext) -> Value:
    low, high = float(ctx.attr("min")), float(ctx.attr("max"))
    if low != float("-inf"):
        x = nest.op(arith.MaximumfOp, x, nest.const(low, x.type))
    if high != float("inf"):
        x = nest.op(arith.MinimumfOp, x, nest.const(high, x.type))
    return x


def _leaky_relu(nest: Nest, x: Value, ctx: LoweringContext) -> Value:
    scaled = nest.op(arith.MulfOp, x, nest.const(float(ctx.attr("alpha")), x.type))
    return _select(nest, "oge", x, 0.0, x, scaled)


def _selu(nest: Nest, x: Value, ctx: LoweringContext) -> Value:
    elu = _elu(nest, x, float(ctx.attr("alpha")))
    return nest.op(arith.MulfOp, elu, nest.const(float(ctx.attr("gamma")), x.type))


def _math(op_class: type[Operation]) -> UnaryFn:
    return lambda nest, x, ctx: nest.op(op_class, x)


UNARY: dict[str, UnaryFn] = {
    "ge.relu": lambda nest, x, ctx: nest.op(
        arith.MaximumfOp, x, nest.const(0.0, x.type)
    ),
    "ge.sigmoid": _sigmoid,
    "ge.tanh": _math(math.TanhOp),
    "ge.softplus": _softplus,
    "ge.neg": _math(arith.NegfOp),
    "ge.abs": _math(math.AbsFOp),
    "ge.exp": _math(math.ExpOp),
    "ge.sqrt": _math(math.SqrtOp),
    "ge.log": _math(math.LogOp),
    "ge.reciprocal": lambda nest, x, ctx: nest.op(
        arith.DivfOp, nest.const(1.0, x.type), x
    ),
    "ge.leaky_relu": _leaky_relu,
    "ge.elu": lambda nest, x, ctx: _elu(nest, x, float(ctx.attr("alpha"))),
    "ge.selu": _selu,
    "ge.clip": _clip,
}
"""Float unary ops: op name -> scalar computation."""


def _prelu(nest: Nest, x: Value, slope: Value) -> Value:
    return _select(nest, "oge", x, 0.0, x, nest.op(arith.MulfOp, slope, x))


def _arith(op_class: type[Operation]) -> BinaryFn:
    return lambda nest, a, b: nest.op(op_class, a, b)


BINARY: dict[str, tuple[BinaryFn, BinaryFn | None]] = {
    "ge.add": (_arith(arith.AddfOp), _arith(arith.AddiOp)),
    "ge.sub": (_arith(arith.SubfOp), _arith(arith.SubiOp)),
    "ge.mul": (_arith(arith.MulfOp), _arith(arith.MuliOp)),
    "ge.div": (_arith(arith.DivfOp), None),
    "ge.pow": (_arith(math.PowFOp), None),
    "ge.maximum": (_arith(arith.MaximumfOp), _arith(arith.MaxSIOp)),
    "ge.minimum": (_arith(arith.MinimumfOp), _arith(arith.MinSIOp)),
    "ge.prelu": (_prelu, None),
}
"""Binary ops: op name -> (float computation, integer computation or None;
booleans have none)."""


def lower_unary(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = f(x[i])` over the valid elements."""
    (x,) = ctx.operands()
    if not is_float(x.layout.element_type):
        raise ctx.error("has no loop lowering for non-float element types")
    y = ctx.result()
    compute = UNARY[op.name]

    def body(nest: Nest, index: list[Ix]) -> None:
        nest.store(compute(nest, nest.load(x, index), ctx), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def lower_binary(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = f(x1[bcast(i)], x2[bcast(i)])` with NumPy broadcasting."""
    x1, x2 = ctx.operands()
    element = x1.layout.element_type
    float_fn, int_fn = BINARY[op.name]
    compute = float_fn if is_float(element) else int_fn
    if compute is None or element == IntegerType(1):
        raise ctx.error(f"has no loop lowering for element type {element}")
    y = ctx.result()

    def body(nest: Nest, index: list[Ix]) -> None:
        a = nest.load(x1, broadcast_index(index, x1.layout.origin_shape))
        b = nest.load(x2, broadcast_index(index, x2.layout.origin_shape))
        nest.store(compute(nest, a, b), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def lower_add_n(ctx: LoweringContext, op: Operation) -> None:
    """Sum of all inputs with broadcasting, left to right."""
    inputs = ctx.operands()
    if not is_float(inputs[0].layout.element_type):
        raise ctx.error("has no loop lowering for non-float element types")
    y = ctx.result()

    def body(nest: Nest, index: list[Ix]) -> None:
        total = nest.load(
            inputs[0], broadcast_index(index, inputs[0].layout.origin_shape)
        )
        for x in inputs[1:]:
            value = nest.load(x, broadcast_index(index, x.layout.origin_shape))
            total = nest.op(arith.AddfOp, total, value)
        nest.store(total, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def channel_axis(data_format: str, rank: int) -> int:
    """The channel axis of a rank-`rank` tensor in `data_format` (as host_ops)."""
    if rank == 4:
        return data_format.index("C")
    return rank - 1 if data_format == "NHWC" else min(1, rank - 1)


def lower_bias_add(ctx: LoweringContext, op: Operation) -> None:
    """`y = x + bias[c]` on the channel axis."""
    x, bias = ctx.operands()
    y = ctx.result()
    axis = channel_axis(str(ctx.attr("data_format")), len(x.layout.origin_shape))

    def body(nest: Nest, index: list[Ix]) -> None:
        value = nest.op(
            arith.AddfOp, nest.load(x, index), nest.load(bias, [index[axis]])
        )
        nest.store(value, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def lower_batch_norm(ctx: LoweringContext, op: Operation) -> None:
    """Inference batch norm: `y = x * a + (offset - mean * a)`.

    `a = scale / sqrt(variance + epsilon)`, as the host kernel computes it.
    """
    x, scale, offset, mean, variance = ctx.operands()
    y = ctx.result()
    axis = str(ctx.attr("data_format")).index("C")
    epsilon = float(ctx.attr("epsilon"))

    def body(nest: Nest, index: list[Ix]) -> None:
        c = [index[axis]]
        var = nest.op(arith.AddfOp, nest.load(variance, c), nest.const(epsilon))
        a = nest.op(arith.DivfOp, nest.load(scale, c), nest.op(math.SqrtOp, var))
        b = nest.op(
            arith.SubfOp,
            nest.load(offset, c),
            nest.op(arith.MulfOp, nest.load(mean, c), a),
        )
        value = nest.op(arith.AddfOp, nest.op(arith.MulfOp, nest.load(x, index), a), b)
        nest.store(value, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def lower_cast(ctx: LoweringContext, op: Operation) -> None:
    """Element type conversion (C0 may change with the dtype)."""
    (x,) = ctx.operands()
    y = ctx.result()

    def body(nest: Nest, index: list[Ix]) -> None:
        nest.store(nest.load(x, index, raw=True), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)
