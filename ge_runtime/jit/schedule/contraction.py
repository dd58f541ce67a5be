"""How a contraction becomes one BLAS call: the plan made at compile time.

The NumPy emitter (`emit.numpy_accumulation`) finds the products an
accumulation sums; `plan_contraction` decides the GEMM: which operand goes
left, how each is transposed and reshaped, and how the product is laid out
back into the output's axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Contraction:
    """A product of two operands summed over their shared axes not kept, as
    one BLAS call: `left (batch, M, K) @ right (batch, K, N)`.

    Planned at compile time from the operands' axes (`plan_contraction`);
    `first` says which operand is on the left (OpenBLAS is far faster with
    the larger free dimension there).
    """

    first: int
    left_perm: tuple[int, ...]
    left_shape: tuple[int, ...]
    right_perm: tuple[int, ...]
    right_shape: tuple[int, ...]
    product_shape: tuple[int, ...]
    order_shape: tuple[int, ...]
    out_perm: tuple[int, ...]


def plan_contraction(
    a_axes: Sequence[int],
    b_axes: Sequence[int],
    sizes: dict[int, int],
    out_axes: Sequence[int],
) -> Contraction:
    """How to compute `einsum(a[a_axes], b[b_axes] -> out_axes)` as one GEMM
    (every axis of an operand is in the other operand or in `out_axes`)."""
    kept = set(out_axes)
    shared = [x for x in a_axes if x in b_axes]
    batch = [x for x in shared if x in kept]
    summed = [x for x in shared if x not in kept]
    a_free = [x for x in a_axes if x not in shared]
    b_free = [x for x in b_axes if x not in shared]

    def count(axes: list[int]) -> int:
        return math.prod(sizes[x] for x in axes)

    first = 1 if count(a_free) < count(b_free) else 0
    (left_axes, left_free), (right_axes, right_free) = (
        ((a_axes, a_free), (b_axes, b_free))
        if first == 0
        else ((b_axes, b_free), (a_axes, a_free))
    )
    left_order = batch + left_free + summed
    right_order = batch + summed + right_free
    rows, inner, columns = count(left_free), count(summed), count(right_free)
    if batch:
        left_shape = (count(batch), rows, inner)
        right_shape = (count(batch), inner, columns)
        product_shape = (count(batch), rows, columns)
    else:
        left_shape, right_shape = (rows, inner), (inner, columns)
        product_shape = (rows, columns)
    order = batch + left_free + right_free
    return Contraction(
        first,
        tuple(list(left_axes).index(x) for x in left_order),
        left_shape,
        tuple(list(right_axes).index(x) for x in right_order),
        right_shape,
        product_shape,
        tuple(sizes[x] for x in order),
        tuple(order.index(x) for x in out_axes),
    )
