"""Lowering of `ge.einsum`: one direct loop nest, no decomposition.

The domain has one loop per label of the equation (output labels first);
each input is read at its labels' loop variables, so a letter repeated
within a term reads the diagonal and a size-1 dim broadcasts (index 0); the
product of the inputs accumulates into the result at the output labels:

```mlir
affine.for %b, %i, %k, %j {               // "bij,bjk->bik"
  %p = (affine.load %a[%b, %i, %j]) * (affine.load %c[%b, %j, %k])
  %s = affine.load %acc[%b, %i, %k]
  affine.store (%s + %p), %acc[%b, %i, %k]
}
```

The JIT plans such a nest as one GEMM (or a few NumPy reductions), as it
does a `ge.batch_matmul`'s. Floats accumulate in float32 (float64 in
float64), integers in their own type.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from ge_dialect.ops.einsum import EinsumOp
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value, compute_type, is_float
from passes.lowering.index import Ix
from passes.lowering.nn import accumulate, finish, initialise
from passes.lowering.registry import lowers


@lowers(EinsumOp)
def lower_einsum(ctx: LoweringContext, op: Operation) -> None:
    """Sum of products over the equation's labels (module docstring)."""
    assert isinstance(op, EinsumOp)
    operands = ctx.operands()
    y = ctx.result()
    contraction = op.contraction()
    shapes = [buffer.layout.origin_shape for buffer in operands]
    sizes = contraction.sizes(shapes)
    labels = contraction.labels
    position = {label: k for k, label in enumerate(labels)}
    element = y.layout.element_type
    floating = is_float(element)
    if not floating and not (
        isinstance(element, IntegerType) and element.width.data > 1
    ):
        raise ctx.error(f"has no loop lowering for {element}")
    compute = compute_type(element)
    multiply, add = (
        (arith.MulfOp, arith.AddfOp) if floating else (arith.MuliOp, arith.AddiOp)
    )
    acc = y if element == compute else ctx.temporary(y.layout.retyped(compute))
    initialise(ctx, acc, lambda nest, _: nest.const(0.0 if floating else 0, compute))

    def term(nest: Nest, index: list[Ix]) -> Value:
        product: Value | None = None
        for buffer, term_labels, shape in zip(
            operands, contraction.inputs, shapes, strict=True
        ):
            at = [
                Ix.of(0) if size == 1 else index[position[label]]
                for label, size in zip(term_labels, shape, strict=True)
            ]
            value = nest.load(buffer, at)
            product = value if product is None else nest.op(multiply, product, value)
        assert product is not None
        return product

    out_rank = len(contraction.output)
    accumulate(
        ctx,
        acc,
        tuple(sizes[label] for label in labels),
        lambda index: index[:out_rank],
        term,
        lambda nest, a, b: nest.op(add, a, b),
    )
    finish(ctx, y, None, acc)
